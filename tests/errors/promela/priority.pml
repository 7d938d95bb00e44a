active proctype P() priority 2 {
  skip
}
