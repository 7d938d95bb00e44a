byte seen;
proctype Child() { seen = _nr_pr }
init {
  byte p;
  p = run Child();
  assert(p == 1);
  (_nr_pr == 1);
  assert(seen == 2);
  run Child();
  run Child();
  (_nr_pr == 1)
}
