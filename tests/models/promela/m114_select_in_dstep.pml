/* select inside d_step (SPIN accepts it): the d_step takes the first executable option
   of the form SPIN builds. The lexer's choice (plain name, decimal bounds at most 32
   apart) and spin.y's loop (any other select; its break comes first) leave v at lo;
   the lexer's loop for bounds more than 32 apart (v = lo; do :: (v < hi) -> v++ ::
   break od) runs v up to hi. Also in a d_step with a goto, and in an inline. */
byte i_x, y, x, z, w;
inline pick() { d_step { select(z : 1 .. 3); y = z + 1 } }
active proctype P() {
  d_step { select(i_x : 1 .. 40); y = i_x + 1 };
  assert(i_x == 1 && y == 2);
  pick();
  assert(z == 1);
  d_step { select(x : 1 .. 3); y = x + 1 };
  assert(x == 1);
  d_step { select(x : 2 .. 40); y = x + 1 };
  assert(x == 40 && y == 41);
  d_step { y = 0; select(z : 5 .. 40); L: y++; if :: y < 3 -> goto L :: else fi };
  assert(z == 40 && y == 3);
  d_step { y = 0; select(z : 5 .. 8); L2: y++; if :: y < 3 -> goto L2 :: else fi };
  assert(z == 5 && y == 3)
}
active proctype Q() {
  byte w0;
  select(w : 0 .. 3);
  w0 = w;
  d_step { select(w : w .. 3) };  /* spin.y's loop: w stays */
  assert(w == w0)
}
