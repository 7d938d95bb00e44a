byte a[4] = 2;
short b[3] = { 1, 2, 3 };
byte i, sum;
active proctype P() {
  for (i : 0 .. 3) {
    a[i] = a[i] + i
  }
  assert(i == 4);
  for (i in b) {
    sum = sum + b[i]
  }
  assert(sum == 6 && a[3] == 5);
  a[sum - 6] = 9;
  assert(a[0] == 9)
}
