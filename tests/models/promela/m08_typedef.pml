typedef Point { byte x; byte y[2] }
typedef Box { Point lo; Point hi; bool filled }
Box bx;
Point pts[2];
active proctype P() {
  bx.lo.x = 1;
  bx.hi.y[1] = 7;
  pts[1].y[0] = 3;
  pts[0].x = pts[1].y[0] + bx.hi.y[1];
  bx.filled = true;
  assert(pts[0].x == 10 && bx.lo.x == 1 && bx.filled)
}
