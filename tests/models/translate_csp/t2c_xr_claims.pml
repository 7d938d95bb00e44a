/* claims made by processes started with run; a local channel claimed by its owner;
   a second claimant of a global channel is an error */
chan g = [2] of { byte };
byte got;
proctype Reader(byte id) {
  chan mine = [1] of { byte };
  xr mine;
  xr g;
  mine!id;
  mine?got;
  g?_
}
init {
  g!1;
  run Reader(1);
  (got == 1);
  run Reader(2)
}
