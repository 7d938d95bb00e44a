chan q = [1] of { byte };
active proctype P() { q!1 }
trace {
  q!1;
  skip
}
