/* set_priority with a value outside 1..255: pan reports "priority is out of range"
   when the statement executes. */
byte x;
active proctype P() priority 2 {
  x = 1;
  set_priority(_pid, 0);
  x = 2
}
