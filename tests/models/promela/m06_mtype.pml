mtype = { req, ack, nak };
mtype:color = { red, green };
mtype = { err };
mtype m = req;
mtype:color c = red;
chan q = [2] of { mtype, byte };
active proctype P() {
  assert(req == 3 && ack == 2 && nak == 1 && err == 4);
  assert(red == 2 && green == 1);
  q!m,1;
  q!ack,2;
  q?req,_;
  q?m,_;
  assert(m == ack);
  c = green;
  printm(m);
  printf("m=%e c=%d\n", m, c)
}
