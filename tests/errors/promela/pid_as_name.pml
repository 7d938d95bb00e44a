active proctype P() {
  byte pid;
  skip
}
