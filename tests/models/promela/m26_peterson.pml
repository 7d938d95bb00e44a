bool flag[2];
byte turn;
byte incrit;
active [2] proctype Proc() {
  byte me = _pid;
  byte other = 1 - _pid;
again:
  flag[me] = true;
  turn = other;
  (flag[other] == false || turn == me);
  incrit++;
  assert(incrit == 1);
  incrit--;
  flag[me] = false;
  goto again
}
