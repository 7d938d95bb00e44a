/* local channel variables assigned at run time in two instances of one proctype
   started by run: each instance's id slot changes on its own (other names the
   instance's own channel mine, then mine names the global g); the assertion fails
   once both instances have sent to g (an error with its trace, in both engines) */
chan g = [2] of { byte };
proctype P(byte k) {
  chan mine = [1] of { byte };
  chan other = [1] of { byte };
  byte v;
  mine!k;
  other = mine;
  other?v;
  assert(v == k && len(mine) == 0);
  mine = g;
  mine!k;
  assert(len(g) < 2)
}
init { run P(1); run P(2) }
