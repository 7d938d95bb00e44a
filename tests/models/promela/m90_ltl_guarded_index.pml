/* pan evaluates an ltl formula's propositional part as one C expression, left to
   right and short circuit: in guarded, a[i] is not read while i is out of range
   (pan -a: errors: 0); in unguarded it is, and pan reports "invalid array index"
   (errors: 1). */
byte a[3];
byte i;
active proctype P() {
  i = 5;
  i = 0
}
ltl guarded { [] ((i < 3) -> (a[i] == 0)) }
ltl unguarded { [] (a[i] == 0) }
