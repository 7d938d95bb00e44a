/* a label with no statement after it, closing a block (spin.y: NAME ':' is a label on
   an implied skip), as the target of a goto and inside a nested block */
byte x;
active proctype P() {
  do
  :: x < 3 -> x++
  :: x == 3 -> goto done
  od;
done:
}
active proctype Q() {
  if
  :: x == 1 -> goto out
  :: true
  fi;
  { x == 2; L: }
out:
}
