active proctype P() {
  if
  :: skip
}
