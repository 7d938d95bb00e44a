byte x, turn;
active proctype A() provided (turn == 0) {
  do
  :: x < 3 -> x++; turn = 1
  :: x >= 3 -> break
  od
}
active proctype B() provided (turn == 1) {
  do
  :: x < 3 -> turn = 0
  :: x >= 3 -> break
  od
}
