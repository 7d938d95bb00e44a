/* Without fairness Idle may run forever while Maker never passes progress: a
   non-progress cycle.  Under SPIN's weak fairness (-f) Maker must move, and it
   passes progress in each of its loops: no non-progress cycle. */
byte made, idle;
active proctype Idle() {
  do
  :: idle = 1 - idle
  od
}
active proctype Maker() {
  do
  :: made = 1 - made;
progress: skip
  od
}
