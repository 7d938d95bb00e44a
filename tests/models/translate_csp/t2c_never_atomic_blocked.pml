/* The state where P's second atomic sequence blocks at (y == 1), with x == 3, is read
   by SPIN's claim (pan loses atomicity there): the claim matches (pan -a: errors: 1). */
byte x, y;
active proctype P() {
  atomic { x = 1; x = 2 };
  atomic { x = 3; y == 1; x = 4 }
}
active proctype Q() { y = 1 }
never {
  do
  :: x == 3 -> break
  :: else
  od
}
