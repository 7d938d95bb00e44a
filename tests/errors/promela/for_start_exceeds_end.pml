byte i;
active proctype P() {
  for (i : 3 .. 1) { skip }
}
