/* An acceptance cycle only without fairness: Spin loops at accept_wait while Stop
   never moves; under weak fairness Stop sets done and Spin leaves for good. */
bool done;
active proctype Spin() {
  do
  :: !done -> accept_wait: skip
  :: done -> break
  od
}
active proctype Stop() {
  done = true
}
