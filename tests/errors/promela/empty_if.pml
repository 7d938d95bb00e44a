active proctype P() {
  if
  fi
}
