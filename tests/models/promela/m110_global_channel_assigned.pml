/* global channels declared with an initialiser and later assigned (SPIN's
   Examples/LTL/mobile2.pml swaps fa and fp: x = fa; fa = fp; fp = x): a chan
   variable holds a channel id, so after the swap 'fa' names the channel created
   as fp; names compared with == and !=, and a name received from a channel */
chan fa = [0] of { byte };
chan fp = [1] of { byte };
chan pick = [1] of { chan };
byte got;

active proctype Swap() {
  chan x;
  fa!1;
  x = fa; fa = fp; fp = x;
  assert(fa != fp && x == fp);
  fa!2;
  fp!3;
  pick?fa;
  assert(fa == fp);
  fa!4
}

active proctype Take() {
  byte v;
  do
  :: fp?v -> got = got + v
  :: fa?v -> got = got + 10 * v
  :: pick!fp; break
  od;
  assert(got != 9)
}

ltl swapped { [] (got < 50) }
