byte x;
active proctype Waiter() {
  do
  :: x == 5 -> break
  :: timeout -> x = 5
  od;
  assert(x == 5)
}
active proctype Other() {
  x < 2 -> x++
}
