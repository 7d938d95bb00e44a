/* receive argument forms of SPIN's grammar (spin.y rargs): parenthesised lists,
   call-style a(b, c), nested parentheses, eval(), constants, negative constants,
   mtype names, in ?, ??, ?<>, ??<> and the ?[ ] poll */
mtype = { req, ack };
chan c = [4] of { mtype, int, byte };
int a, v = -1;
byte b;
mtype m;
active proctype Sender() {
  c!req(-1, 7);
  c!ack, 3, 8;
  c!req(5, 9);
  c!ack(-1, 2)
}
active proctype Receiver() {
  c?[(req, -1, 7)];
  c?<(m, a, b)>;
  assert(m == req && a == -1 && b == 7);
  c?(req, eval(v), b);
  assert(b == 7);
  c?ack(a, b);
  assert(a == 3 && b == 8);
  c??<req, (a, b)>;
  c??(req, a, b);
  assert(a == 5 && b == 9);
  c?m, (a, b);
  assert(m == ack && a == -1 && b == 2)
}
