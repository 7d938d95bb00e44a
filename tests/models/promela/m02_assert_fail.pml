/* two counters race; the assertion can fail */
byte x;
active [2] proctype Inc() {
  byte t;
  t = x;
  t = t + 1;
  x = t
}
init {
  (_nr_pr == 1);
  assert(x == 2)
}
