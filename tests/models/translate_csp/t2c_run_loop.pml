/* init starts N workers in a counting loop; a worker's update may be lost.
   init waits until the workers are gone (_nr_pr == 1). */
#define N 3
byte sum;
bool done[N];

proctype Worker(byte id) {
  byte t;
  t = sum;
  sum = t + id + 1;
  done[id] = true
}

init {
  byte i;
  atomic {
    do
    :: i < N -> run Worker(i); i++
    :: else -> break
    od
  };
  _nr_pr == 1;
  assert(done[0] && done[1] && done[2]);
  assert(sum <= 6)
}

ltl all_done { <> (done[0] && done[1] && done[2]) }
ltl no_lost_update { [] (done[0] && done[1] && done[2] -> sum == 6) }
