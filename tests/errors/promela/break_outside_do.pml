active proctype P() {
  break
}
