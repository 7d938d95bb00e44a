/* round-trip layout of atomic sequences: atomic_blocks_mid (issue 5 item 6) */
byte x, y;
chan c = [1] of { byte };
active proctype A() {
  atomic { x = 1; c?y; x = y }
  atomic { x = x + 1; x = x + 1 }
}
active proctype B() { x == 1 -> c!3; x == 5 -> y = 9 }
