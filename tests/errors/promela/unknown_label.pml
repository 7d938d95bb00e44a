active proctype P() {
  goto nowhere
}
