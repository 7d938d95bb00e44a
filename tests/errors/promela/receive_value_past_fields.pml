chan q = [1] of { byte };
byte a;
active proctype P() {
  q?a,5
}
