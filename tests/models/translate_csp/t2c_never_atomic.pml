/* A never claim over a model with atomic sequences: SPIN's claim does not step in a
   state whose holder of atomicity can move on. P's rendezvous inside its sequence hands
   control to Q inside Q's own sequence, so the claim never sees x == 1 (pan -a: errors:
   0). translate --to csp makes its claim process pass its turn there (bridge_read). */
byte x;
chan c = [0] of { byte };
active proctype P() { atomic { x = 1; c!1; x = 0 } }
active proctype Q() { byte v; atomic { c?v; x = 2 } }
never {
  do
  :: x == 1 -> break
  :: else
  od
}
