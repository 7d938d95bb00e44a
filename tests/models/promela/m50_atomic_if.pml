/* round-trip layout of atomic sequences: atomic_if (issue 5 item 6) */
byte x, y;
active proctype A() {
  atomic {
    x = 1;
    if :: y == 0 -> x = 2 :: y == 1 -> x = 3 fi;
    y = 5
  }
  x = 0;
  y = 4
}
active proctype B() { y = 1; y == 5 -> y = 2 }
