/* Process priorities (SPIN 6.2+): pan moves a process only if no process with a
   higher priority can move.  Hi (priority 3) counts to 3 before Lo (priority 1) may
   take a step, so Lo's assertion holds; without priorities it fails. */
byte x;
active proctype Hi() priority 3 {
  do
  :: x < 3 -> x++
  :: x == 3 -> break
  od
}
active proctype Lo() {
  assert(x == 3);
  x = 7
}
ltl lo_last { [] (x != 7 -> x <= 3) }
ltl done { <> (x == 7) }
