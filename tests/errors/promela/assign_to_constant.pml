mtype = { a };
active proctype P() {
  a = 1
}
