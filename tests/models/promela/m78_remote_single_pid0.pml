/* The same with pid 0 passing CS: violated. */
byte n;
active [2] proctype P() {
  if
  :: _pid == 0 -> CS: n++
  :: else -> skip
  fi
}
ltl q { [] !(P@CS) }
