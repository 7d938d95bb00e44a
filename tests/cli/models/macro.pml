/* The bound comes from -D LIMIT=...: x counts modulo 3, so [] (x < LIMIT) holds for
 * LIMIT >= 3 and is violated for LIMIT <= 2. */
#ifndef LIMIT
#define LIMIT 3
#endif
byte x = 0;
active proctype P() {
  do
  :: x = (x + 1) % 3
  od
}
ltl bounded { [] (x < LIMIT) }
