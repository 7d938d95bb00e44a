/* A rendezvous inside an atomic sequence passes control to the receiver, which is
   inside its own atomic sequence: the claim steps only after the receiver's sequence
   ends, so it never sees x == 1 (pan -a: errors: 0). */
byte x;
chan c = [0] of { byte };
active proctype P() {
  atomic { x = 1; c!1; x = 0 }
}
active proctype Q() {
  byte v;
  atomic { c?v; x = 2 }
}
ltl never_one { [] (x != 1) }
