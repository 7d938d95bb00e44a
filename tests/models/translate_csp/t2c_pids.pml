/* Processes die youngest first and their pids are reused; two processes run
   the same proctype; x = run P() yields the new pid. */
byte owner[6];
byte started;

proctype Child(byte tag) {
  owner[_pid] = tag;
  started++
}

active proctype Parent() {
  byte p, q;
  p = run Child(1);
  q = run Child(2);
  (started == 3);
  assert(owner[p] >= 1 && owner[q] >= 1)
}

active proctype Other() {
  run Child(3)
}

ltl all_started { <> (started == 3) }
