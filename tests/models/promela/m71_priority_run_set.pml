/* run ... priority, set_priority, get_priority and _priority: the priority of a
   running process is part of the state; a process started by run gets priority 1
   unless it names one; get_priority of a pid that does not run is 0. */
byte turn, seen;
proctype Worker(byte id) {
  turn = id;
  seen = seen + get_priority(_pid)
}
init priority 2 {
  assert(_priority == 2 && get_priority(5) == 0);
  run Worker(1) priority 4;    /* runs at once: it outranks init */
  assert(turn == 1);
  run Worker(2);               /* priority 1: waits until init blocks */
  set_priority(_pid, 1);       /* now both have priority 1: interleaved */
  _priority = 6;               /* own priority again, unchecked field */
  assert(get_priority(0) == 6);
  (turn == 2);
  assert(seen == 5)
}
