byte x = 0;
active proctype P() {
  y = 1
}
