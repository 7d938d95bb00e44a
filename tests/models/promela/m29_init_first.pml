byte order[3];
byte n;
init { order[n] = _pid; n++ }
active [2] proctype P() {
  d_step { order[n] = _pid; n++ }
}
active proctype Check() {
  n == 3;
  assert(order[0] + order[1] + order[2] == 3)
}
