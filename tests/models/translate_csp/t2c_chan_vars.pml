/* A channel variable chosen at run time; rendezvous through it; channel queries
   and polls on a buffered channel. */
chan a = [0] of { byte };
chan b = [0] of { byte };
chan q = [2] of { byte };
byte got;

active proctype Chooser() {
  chan c;
  if
  :: c = a
  :: c = b
  fi;
  c!7;
  q!1; q!2;
  full(q) -> q?_;
  nempty(q) && len(q) == 1 && q?[2] -> q?got;
  assert(got == 2 && empty(q) && nfull(q))
}

active proctype ListenA() {
  byte v;
end:
  a?v;
  assert(v == 7)
}

active proctype ListenB() {
  byte v;
end:
  b?v;
  assert(v == 7)
}

ltl gets_two { <> (got == 2) }
