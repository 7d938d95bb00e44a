byte i, s;
active proctype Loop() {
  do
  :: i < 4 -> i++; s = s + i
  :: i >= 4 -> break
  od;
again:
  if
  :: s > 0 -> s--; goto again
  :: else
  fi;
  i = 0;
  do
  :: i == 3 -> goto done
  :: else -> i++
  od;
done:
  assert(i == 3 && s == 0)
}
