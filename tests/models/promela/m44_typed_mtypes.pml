/* named mtypes as parameter and message types, printm, mtype comparisons */
mtype = { start, stop };
mtype:fruit = { apple, pear };
chan box = [1] of { mtype, mtype:fruit };
proctype Eater(mtype:fruit want; mtype how) {
  mtype:fruit got;
  mtype cmd;
  box?cmd,got;
  printm(got);
  assert(got == want && cmd == how)
}
init {
  run Eater(pear, start);
  box!start,pear
}
