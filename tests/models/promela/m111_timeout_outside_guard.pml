/* 'timeout' read outside a guard (SPIN accepts it: x = timeout, assert(!timeout || b)).
   pan's timeout is a flag of its search step: 0 in the normal pass, 1 only in the pass
   it makes when no process can move. A statement that is executable whatever timeout
   is, is taken in the normal pass, so every read here is 0, also right after a
   timeout step, inside an atomic sequence entered by a normal step and in a
   process that is the only one able to move. */
byte x = 7, n;
bool seen;
active proctype P() {
  x = timeout;
  assert(!timeout || seen);
  do
  :: n < 2 -> n++
  :: timeout -> seen = true; break
  od;
  x = x + timeout;
  atomic { n == 2 -> x = x + 2 * timeout; n = 3 };
  assert(x == 0 && seen)
}
active proctype Q() {
  byte mine;
  (n == 3);
  mine = timeout + 4 * seen;
  assert(mine == 4)
}
ltl never_one { [] (x != 1 && x != 2) }
