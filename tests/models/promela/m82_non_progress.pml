/* The issue's example: a non-progress cycle at depth 2 (pan -l), with and without
   weak fairness (-f): the loop x = 0, 1, 2, 0 ... never passes the progress label. */
byte x;
active proctype A() {
  do
  :: x = (x + 1) % 3
  :: x == 2 -> progress: x = 0
  od
}
