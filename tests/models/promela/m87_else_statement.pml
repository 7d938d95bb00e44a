/* an else that is not the first statement of an option (here after the last
   option's statements, as written in a public model): spin -a accepts it, and pan
   takes it as a statement of its own, executable when nothing else leaves its
   state, that is always */
byte x;
active proctype P() {
  do
  :: x < 3 -> x++;
     else
  :: x == 3 -> break
  od;
  assert(x == 3)
}
