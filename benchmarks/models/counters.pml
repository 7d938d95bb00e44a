/* Five interleaved counters mod M (issue 11): each process increments its own counter
   forever. 18^5 = 1 889 568 states for M = 18; the product with the automaton of
   !([]<> c[0] == 0) has 3.67 million states. []<> (c[0] == 0) holds under process-level
   weak fairness (pan -a -f) and fails without it. */
#ifndef M
#define M 18
#endif
byte c[5];
active [5] proctype P() {
  do
  :: c[_pid] = (c[_pid] + 1) % M
  od
}
ltl { []<> (c[0] == 0) }
