chan reply = [1] of { chan };
active proctype Server() {
  chan back;
  reply?back;
  back!42
}
active proctype Client() {
  chan mine = [1] of { byte };
  byte v;
  reply!mine;
  mine?v;
  assert(v == 42)
}
