/* provided clauses together with else (else = no other option executable) */
byte x, turn;
active proctype A() provided (turn == 0) {
  do
  :: x < 3 -> x++
  :: else -> turn = 1; break
  od
}
active proctype B() provided (turn == 1) {
  if
  :: x > 5 -> x = 0
  :: else -> x = 9
  fi;
  assert(x == 9)
}
