active proctype P() {
  :: skip
}
