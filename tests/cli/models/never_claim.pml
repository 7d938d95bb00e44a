/* The claim accepts once x == 2 and then terminates: SPIN (pan -a) reports it. */
byte x = 0;
active proctype P() {
  do
  :: x = (x + 1) % 3
  od
}
never {
T0_init:
  do
  :: (x == 2) -> goto accept_all
  :: true
  od;
accept_all:
  skip
}
