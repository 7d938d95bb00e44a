mtype = { req, ack };
chan q = [3] of { mtype, byte };
byte v, w;
active proctype T() {
  q!req,5; q!ack,7; q!req,9;
  assert(full(q) && len(q) == 3);
  q??ack,v;
  assert(v == 7 && len(q) == 2);
  q?<req,w>;
  assert(w == 5 && len(q) == 2);
  assert(q?[req,5]);
  q?req,eval(w);
  q!!req,1;
  q?req,v; assert(v == 1);
  q?_,v;  assert(v == 9);
  assert(empty(q) && nfull(q))
}
