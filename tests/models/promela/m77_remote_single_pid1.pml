/* P@CS with two running instances of P names the one with the lowest pid (pan's
   f_pid): only pid 1 passes CS, so the property holds. */
byte n;
active [2] proctype P() {
  if
  :: _pid == 1 -> CS: n++
  :: else -> skip
  fi
}
ltl q { [] !(P@CS) }
