/* Conditional expressions, bit operations, shifts, remote references through a
   pid expression, _last and np_. */
byte x = 5, y, seen;
bit b;
short s = -7;

active [2] proctype P() {
  byte k = (_pid == 0 -> 3 : 4);
  y = (x > 3 -> x - 3 : x + 1) + k;
  b = y & 1;
  x = (~x) & 15;
  s = (s >> 1) + (x << 2) - (s % 4);
progress:
  x = x ^ (y | 8);
end:
  false
}

active proctype Watch() {
  byte who;
  who = (x > 100 -> 0 : 1);
  P[who]:k == 4 -> seen = _last + 1
}

ltl k_fixed { [] (P[0]:k == 3 && P[1]:k == 4) }
ltl sometimes_progress { []<> !np_ }
ltl seen_set { <> (seen > 0) }
