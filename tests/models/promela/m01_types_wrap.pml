/* bit/bool/byte/short/int/unsigned: SPIN's truncation on assignment */
bit b1;
bool f;
byte by = 250;
short sh = 32767;
int in;
unsigned u : 3 = 6;
byte k;

active proctype Wrap() {
  by = by + 10;
  assert(by == 4);
  sh = sh + 1;
  assert(sh == -32768);
  b1 = 3;
  assert(b1 == 1);
  f = 2;
  assert(f == 0);
  u = u + 3;
  assert(u == 1);
  in = -7 / 2;
  assert(in == -3);
  in = -7 % 2;
  assert(in == -1);
  by = -1;
  assert(by == 255);
  in = ~8;
  assert(in == -9);
  k = (by > 3 -> 7 : 9);
  assert(k == 7);
  in = (1 << 4) | 3 & 6 ^ 1;
  assert(in == 19)
}
