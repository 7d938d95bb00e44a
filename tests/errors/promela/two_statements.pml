byte x;
active proctype P() {
  x = 1 x = 2
}
