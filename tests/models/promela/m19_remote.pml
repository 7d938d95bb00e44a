byte turn;
active [2] proctype P() {
  byte mine = _pid + 1;
  turn == _pid;
cs:
  mine = mine * 2;
  turn = 1 - _pid
}
active proctype Watch() {
  assert(!(P[0]@cs && P[1]@cs));
  P[1]@cs -> assert(P[1]:mine == 2)
}
