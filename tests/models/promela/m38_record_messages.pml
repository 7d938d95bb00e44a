/* a typedef as a channel message: whole records sent and received */
typedef Msg { byte kind; short val[2] }
chan q = [2] of { Msg };
Msg a, b;
active proctype P() {
  a.kind = 3; a.val[1] = 7;
  q!a;
  q?b;
  assert(b.kind == 3 && b.val[1] == 7 && b.val[0] == 0);
  b.val[0] = 5;
  a.val[0] = b.val[0];
  assert(a.val[0] == 5)
}
