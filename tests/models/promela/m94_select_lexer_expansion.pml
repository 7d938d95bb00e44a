/* select (v : lo .. hi): SPIN's lexer turns a select with a plain name (letters and
   digits) and decimal bounds at most 32 apart, outside an inline, into one choice;
   every other select is a loop (v = lo; do :: v < hi -> v++ :: break od) whose
   intermediate values are states of their own (and visible to LTL) */
#define HI 3
byte g, ab, a_b, w, v2, big;

inline pick(v) {
  select(v : 1 .. 2)
}

active proctype P() {
  select(g : 1 .. 3);           /* expanded */
  select( ab :1..2 );           /* expanded: blanks are allowed */
  select(a_b : 1 .. 3);         /* loop: '_' is not a letter or digit */
  select(w : 1 .. HI - 1);      /* loop: the bound is not a number */
  select(v2 :
         1 .. 2);               /* loop: a newline inside */
  select(big : 1 .. 40);        /* loop: more than 32 apart */
  pick(g);                      /* loop: inside an inline */
  assert(g >= 1 && a_b >= 1 && w >= 1 && big >= 1)
}

/* holds if a_b is chosen in one step; SPIN's loop passes through a_b == 1 */
ltl stays { [] ((a_b == 1) -> [] (a_b == 1)) }
