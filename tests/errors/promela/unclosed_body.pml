active proctype P() {
  skip
