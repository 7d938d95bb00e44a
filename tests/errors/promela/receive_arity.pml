chan q = [1] of { byte };
byte a, b;
active proctype P() {
  q?a,b
}
