/* a local channel variable declared with an initialiser and later assigned another
   channel (the name then stands for that one; the channel it was created with stays
   where it is), and a channel name received from a channel */
chan left = [1] of { byte };
chan right = [1] of { byte };
chan pick = [1] of { chan };
active proctype P() {
  chan mine = [1] of { byte };
  byte v;
  mine!1;
  mine = left;
  mine!2;
  left?v;
  assert(v == 2);
  pick?mine;
  mine!3;
  right?v;
  assert(v == 3 && len(left) == 0)
}
active proctype Q() { pick!right }
