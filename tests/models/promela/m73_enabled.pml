/* enabled(pid): true iff the process with that pid has an executable statement
   (its else counts; a pid that does not run gives false), in guards and in ltl. */
byte x, y;
active proctype A() {
  do
  :: x < 2 -> x++
  :: x == 2 -> (y == 1); x = 0
  od
}
active proctype B() {
  do
  :: !enabled(0) -> y = 1
  :: enabled(0) && y == 1 -> y = 0
  :: assert(!enabled(7))
  od
}
ltl a_blocked_only_waiting { [] (!enabled(0) -> (x == 2 && y != 1)) }
ltl b_always_enabled { [] enabled(1) }
