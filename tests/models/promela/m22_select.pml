byte small, big, count;
active proctype P() {
  select (small : 1 .. 4);
  assert(small >= 1 && small <= 4);
  select (big : 0 .. 40);
  assert(big <= 40);
  count = small + big
}
