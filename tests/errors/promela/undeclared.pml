active proctype P() {
  y = 1
}
