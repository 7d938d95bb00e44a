byte x;
active proctype P() {
  if
  :: else -> skip
  :: else -> x = 1
  fi
}
