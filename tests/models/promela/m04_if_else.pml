byte x, y;
active proctype P() {
  if
  :: x == 0 -> x = 1
  :: x == 0 -> x = 2
  :: else -> x = 3
  fi;
  if
  :: x == 1 ->
     if
     :: y = 1
     :: y = 2
     fi
  :: else -> y = 3
  fi;
  assert(y != 0)
}
active proctype Q() {
  if
  :: x > 0 -> skip
  :: else -> x = 7
  fi
}
