byte x;
proctype P() {
  x = 1
}
