byte a, b, c[2];
inline swap(p, q) {
  byte tmp;
  tmp = p;
  p = q;
  q = tmp
}
inline setboth(u, w, v) {
  u = v;
  w = v
}
active proctype P() {
  a = 1; b = 2;
  swap(a, b);
  assert(a == 2 && b == 1);
  setboth(c[0], c[1], 4);
  swap(c[0], a);
  assert(c[0] == 2 && a == 4)
}
