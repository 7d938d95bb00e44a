active proctype P() {
  x = $
}
