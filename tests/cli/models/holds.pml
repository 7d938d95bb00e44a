/* Every assertion holds: x stays below 3. */
byte x = 0;
active proctype P() {
  do
  :: x = (x + 1) % 3
  od
}
ltl below { [] (x < 3) }
