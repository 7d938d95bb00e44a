/* gotos inside a d_step (here from an inline, as an early exit, and a backward
   jump forming a loop): the whole d_step is still one indivisible step */
byte x, y, n;
inline settle(v) {
  if
  :: v == 0 -> goto settled
  :: else -> v--
  fi;
  n++;
settled:
  skip
}
active proctype P() {
  n == 2;
  d_step {
    settle(x);
    y = 3;
again:
    y--;
    if
    :: y > 0 -> goto again
    :: else
    fi;
    settle(y)
  };
  assert(x == 0 && y == 0 && n == 2)
}
active proctype Q() {
  x = 2;
  d_step { settle(x); settle(x); settle(x) };
  assert(x == 0 && n == 2)
}
