active proctype P() {
  do
  :: break
}
