byte x, n;
byte a[3];
active proctype P() {
  d_step {
    x = 5;
    if
    :: x > 3 -> n = 1
    :: else -> n = 2
    fi;
    do
    :: n < 3 -> a[n] = n; n++
    :: else -> break
    od
  };
  assert(n == 3 && a[2] == 2 && a[0] == 0)
}
active proctype Q() {
  d_step { x == 5 -> x = 0; n = n * 2 }
}
