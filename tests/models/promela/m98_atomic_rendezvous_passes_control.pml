/* A rendezvous send inside atomic passes control to the receiver: when the receiver's
   step does not enter an atomic sequence, no process holds control after the
   handshake, so M moves before A finishes its sequence (pan 6.5.2: assertion
   violated). bridge kept control with the sender, still inside its sequence, and
   held HOLDS (found by the survey of public models: reloj.pml's state count). */
chan rc = [0] of {byte};
byte x, n, v;
active proctype A() { atomic { x == 0 -> rc!1; x = 1 } }
active proctype B() { rc?v -> n = 1 }
active proctype M() { x == 0 && v == 1 && n == 0 -> assert(false) }
