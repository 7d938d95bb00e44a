/* A rendezvous inside atomic passes control to the receiver; an atomic sequence
   that blocks loses atomicity and regains it when it moves again. */
chan c = [0] of { byte };
byte x, y, z;

active proctype A() {
  atomic { x = 1; c!1; x = 2 }
}

active proctype B() {
  byte v;
  atomic { c?v; y = x + v; z == 1; y = 9 }
}

active proctype C() {
  x == 2 -> z = 1
}

ltl nine { <> (y == 9) }
ltl never_three { [] (y != 3) }
