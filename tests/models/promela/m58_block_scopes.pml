/* SPIN 6 block scopes: a name declared in two sibling blocks (and in two expansions
   of one inline) is two variables; a label inside an inline, reached by a goto of the
   same expansion, exists once per expansion; sibling blocks (d_steps too) may reuse
   a label or a name */
byte total, steps;
inline bump(amount) {
  byte t = amount;
  do
  :: t > 0 -> total++; t--
  :: t == 0 -> goto finished
  od;
finished:
  steps++
}
active proctype P() {
  bump(2);
  bump(3);
  assert(total == 5 && steps == 2);
  if
  :: atomic { total > 4; byte k = 1; total = total + k }
  :: atomic { total > 4; byte k = 2; total = total + k }
  fi;
  { byte w = 1; goto again; again: total = total + w };
  { byte w = 2; goto again; again: total = total + w };
  d_step { byte d = 1; total = total + d };
  d_step { byte d = 2; total = total + d };
  assert(total == 12 || total == 13)
}
