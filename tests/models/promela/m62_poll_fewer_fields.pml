/* polls and peeks with fewer arguments than the channel has fields test only the
   fields they name (no error); a poll with extra variables ignores them; a receive
   with a wrong count that never executes is no error (SPIN accepts all of these) */
mtype = { red, white, blue };
chan q = [2] of { mtype, byte };
chan one = [1] of { byte };
byte x, n;
active proctype Sender() {
  q!white,1;
  q!red,2;
  one!7
}
active proctype Watcher() {
  q?[white] -> n++;
  q?<x> ;
  assert(x == white);
  q?[red, _, _] || len(q) == 2 -> n++;
  if
  :: x == 99 -> one?x,n    /* never executes: x is never 99 */
  :: else -> skip
  fi
}
ltl starts_white { [] (q?[red] -> n > 0) }
