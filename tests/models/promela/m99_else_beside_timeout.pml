/* 'else' and 'timeout' options at one location (SPIN accepts them): the process can
   always move there, so the system is never blocked while it is there and timeout
   reads false; an option whose guard mentions timeout is an ordinary option that the
   else waits for (pan: 'timeout || x == 3' is taken when x == 3). */
byte x, y;
chan c = [0] of { byte };
active proctype P() {
  do
  :: x < 3 -> x++
  :: (timeout || x == 3) -> y = y + 1; x = 0
  :: timeout -> assert(false)
  :: y == 1 -> c?y
  :: else -> break
  od;
  if
  :: timeout -> y = 9
  :: else -> skip
  fi;
  assert(y != 9)
}
active proctype Q() {
  do
  :: y < 2 -> c!1
  :: y >= 2 -> break
  od
}
ltl eventually_done { <> (y >= 1) }
