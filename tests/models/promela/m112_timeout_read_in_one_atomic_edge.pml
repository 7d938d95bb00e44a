/* 'timeout' read in the same step as the timeout guard that enabled it: the atomic
   sequence is one step (bridge makes it one edge; SPIN's statement merging, on by
   default, one transition), taken in pan's timeout pass, so x = timeout stores 1 and
   the assertion fails. pan built from spin -o3 (no merging) without a never claim
   reads 0 after the guard: this model is compared with pan's default build. */
byte x = 7, y, z;
active proctype P() {
  atomic { timeout -> y = 1; z = 2; x = timeout };
  assert(x == 0)
}
