/* arrays of channels declared in a proctype, constant and computed indices */
active proctype P() {
  chan c[2] = [1] of { byte };
  byte v;
  c[0]!3;
  c[1]!4;
  c[1]?v;
  assert(v == 4);
  c[0]?v;
  assert(v == 3 && len(c[0]) == 0)
}
active proctype Q() {
  chan d[2] = [1] of { byte };
  d[1]!1
}
active proctype R() {
  chan e[3] = [1] of { byte };
  byte i = 2;
  e[i]!7;
  assert(len(e[2]) == 1 && len(e[1]) == 0)
}
