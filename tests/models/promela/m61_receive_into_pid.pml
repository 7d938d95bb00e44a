/* a receive into _pid: spin -a accepts it and pan overwrites the process's _pid
   with the received value (SPIN's simulator only warns), so later reads of _pid in
   that process see the new value; eval(_pid) is the matching form */
chan c = [3] of { byte, byte };
byte seen;
active proctype P() {
  byte x;
  c!5,0;
  c!7,1;
  c!9,1;
  c?x(_pid);
  assert(x == 5 && _pid == 0);
  c?x(_pid);
  seen = _pid;
  c?x(eval(_pid));
  assert(x == 9 && seen == 1)
}
active proctype Q() {
  assert(_pid == 1)
}
