/* The holder of an atomic sequence blocks at (y == 1) with x == 1: atomicity is lost,
   Q moves, and the claim reads x == 1 (pan -a: errors: 1).  The second formula is
   about the state inside the sequence that the claim never reads (x == 3). */
byte x, y;
active proctype P() {
  atomic { x = 1; x = 3; x = 1; y == 1; x = 0 }
}
active proctype Q() {
  y = 1
}
ltl sees_one { [] (x != 1) }
ltl never_three { [] (x != 3) }
