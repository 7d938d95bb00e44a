/* Remote references to instances that are not running (yet, or any more): a label
   test is false and a variable reads 0, as in pan.  init starts the BS processes,
   so BS[a_id] does not run in the first states. */
byte a_id = 1;
byte rounds;
proctype BS() {
  byte v = 3;
  do
  :: rounds < 2 -> progress: rounds++
  :: rounds >= 2 -> break
  od;
  v = 4
}
init {
  atomic { run BS(); run BS() };
  (rounds >= 2)
}
ltl ok { (![]<>(BS[a_id]@progress || BS[a_id]:v == 3)) -> <>(rounds >= 2) }
ltl zero_before { [] (BS[9]:v == 0 && !BS[9]@progress) }
ltl starts_at_3 { [] (BS[1]:v == 0 || BS[1]:v == 3 || BS[1]:v == 4) }
