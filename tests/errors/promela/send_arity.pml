chan q = [1] of { byte, byte };
active proctype P() {
  q!1,2,3
}
