/* A counter modulo 3: x reaches 2, so [](x < 2) is violated. */
byte x = 0;
active proctype P() {
  do
  :: x = (x + 1) % 3
  od
}
ltl small { [] (x < 2) }
