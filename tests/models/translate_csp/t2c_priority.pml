/* Process priorities as public models use them: a start-up process that outranks the
   workers it starts, a run with a priority of its own, set_priority and get_priority.
   Worker(1) (priority 5) outranks Boss (3) and finishes before Boss moves again;
   Worker(2) (priority 1) waits until Boss lowers its own priority to 1, then the two
   interleave: x ends 4 or 6. Without priorities x could also end 3 or 5. */
byte x, done;
bool fin;
proctype Worker(byte id) {
  x = x + id;
  done++
}
active proctype Boss() priority 3 {
  assert(get_priority(_pid) == 3 && _priority == 3);
  run Worker(1) priority 5;
  assert(done == 1);
  run Worker(2);
  set_priority(_pid, 1);
  x = x * 2;
  (done == 2);
  assert(x == 4 || x == 6);
  fin = true
}
ltl both { [] (fin -> (x == 4 || x == 6)) }
ltl four { <> (x == 4) }
