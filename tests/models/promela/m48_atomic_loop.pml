/* round-trip layout of atomic sequences: atomic_loop (issue 5 item 6) */
byte x, y;
active proctype A() {
  atomic { x = 0; do :: x < 3 -> x++ :: else -> break od; y = 1 }
  x = 7
}
active proctype B() { y == 1 -> x = 6 }
