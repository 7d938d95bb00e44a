chan q = [1] of { byte };
active proctype P() {
  !full(q)
}
