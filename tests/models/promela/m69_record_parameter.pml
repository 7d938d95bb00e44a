/* a record as a proctype parameter (SPIN passes its fields, one parameter each: run
   P(r, 9) is P(r.a, r.b, 9)), and an array bound that is a variable's name (SPIN
   warns and uses the variable's initial value) */
typedef Pair { byte a; bool b };
byte SIZE = 3;
byte cells[SIZE];
Pair g;
proctype Worker(Pair p; byte k) {
  cells[p.a] = k;
  p.a++;
  assert(p.b && p.a == g.a + 1 && k == 9)
}
init {
  g.a = 2; g.b = true;
  run Worker(g, 9);
  _nr_pr == 1;
  assert(cells[2] == 9 && g.a == 2)
}
