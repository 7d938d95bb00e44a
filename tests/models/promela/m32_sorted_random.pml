chan q = [4] of { byte };
byte a, b, c;
active proctype P() {
  q!!3; q!!1; q!!2;
  q?a; q?b; q?c;
  assert(a == 1 && b == 2 && c == 3);
  q!5; q!6; q!7;
  q??6;
  q?a; q?b;
  assert(a == 5 && b == 7)
}
active proctype R() {
  byte v;
  q?[5] -> q??<v>
}
