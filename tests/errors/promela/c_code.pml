active proctype P() {
  c_code { x++; }
}
