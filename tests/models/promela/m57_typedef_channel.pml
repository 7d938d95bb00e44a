/* a typedef field that is a channel with an initialiser: every variable of the type
   (global, global array, local to each process instance) gets channels of its own */
typedef Box {
  byte count;
  chan items = [2] of { byte }
};
Box shared;
Box many[2];
byte got;
proctype Worker(byte k) {
  Box mine;
  byte mygot;
  mine.items!k;
  mine.items!k + 1;
  assert(len(mine.items) == 2);
  mine.items?mygot;
  assert(mygot == k);
  shared.items!k;
  many[k - 1].items!k
}
init {
  run Worker(1);
  run Worker(2);
  timeout;
  assert(len(shared.items) == 2 && len(many[0].items) == 1 && len(many[1].items) == 1);
  many[1].items?got;
  assert(got == 2);
  shared.items?got;
  shared.items?got
}
