/* A guard that mentions timeout but holds with timeout 0, such as (!timeout && y == 0)
   or (timeout || y == 1), is taken in pan's normal pass, and its step reads timeout 0.
   bridge tried such guards only once nothing else could move, with timeout 1: the
   first statement below never ran (an invalid end state where pan finds none), and
   x = timeout stored 1. */
byte x = 7, y;
active proctype P() {
  (!timeout && y == 0) -> y = 1;
  atomic { (timeout || y == 1) -> y = 2; x = timeout };
  assert(x == 0);
  timeout -> y = 3;
  (!timeout || y == 3) -> x = 5
}
active proctype Q() {
  (y == 3);
  (x == 5)
}
ltl reached { <> (x == 5) }
