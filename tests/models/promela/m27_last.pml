byte x;
byte lastseen = 9;
active [2] proctype P() {
  x++;
  lastseen = _last
}
active proctype Q() {
  (x == 2) -> assert(lastseen <= 1 || lastseen == 9)
}
