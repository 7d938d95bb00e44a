/* round-trip layout of atomic sequences: atomic_in_loop (issue 5 item 6) */
byte x, y;
active proctype A() {
  do
  :: atomic { x < 2 -> x++; y = x }
  :: x >= 2 -> break
  od;
  y = 0
}
active proctype B() { do :: y > 0 -> y-- :: y == 0 -> break od }
