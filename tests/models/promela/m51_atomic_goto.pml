/* round-trip layout of atomic sequences: atomic_goto (issue 5 item 6) */
byte x;
active proctype A() {
again:
  atomic { x < 3 -> x++; goto again }
}
active proctype B() { x == 2 -> x = 0 }
