/* an escape interrupts an atomic sequence of the main part between its statements,
   but never a d_step */
byte x, y, z;
active proctype P() {
  { atomic { x = 1; y = 2 } } unless { x == 1 };
  assert(y == 0);
  { d_step { z = 1; y = 3 } } unless { z == 1 };
  assert(y == 3)
}
