/* SPIN 6 lets a line break end a statement */
byte x, y
active proctype P() {
  x = 1
  y = x + 1
  if
  :: x == 1
     -> y++
  :: else
     skip
  fi
  atomic {
    x++
    y--
  }
  assert(x == 2 && y == 2)
}
