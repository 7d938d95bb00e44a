active proctype P() {
  hidden byte x;
  skip
}
