#define p (x == 1)
byte x;
active proctype P() {
  do
  :: x = 1
  :: x = 0
  od
}
ltl always_small { [] (x <= 1) }
ltl infinitely { []<> p && <> (x == 0) }
ltl until_form { !p U (x == 1) || (p -> p) }
never {
T0_init:
  do
  :: (x == 1) -> goto accept_S1
  :: true
  od;
accept_S1:
  do
  :: (x == 1)
  od
}
