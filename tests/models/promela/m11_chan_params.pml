chan link[2] = [1] of { byte };
chan done = [2] of { byte, chan };
proctype Worker(byte id; chan in) {
  byte v;
  in?v;
  done!v + id, in
}
init {
  byte r, s;
  chan which;
  run Worker(1, link[0]);
  run Worker(2, link[1]);
  link[1]!10;
  link[0]!20;
  done?r,which;
  done?s,_;
  assert(r + s == 33)
}
