active proctype P() priority 0 {
  skip
}
