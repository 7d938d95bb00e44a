byte x, stop;
active proctype Worker() {
  {
    do
    :: x < 5 -> x++
    :: x >= 5 -> x = 0
    od
  } unless { stop == 1 };
  assert(stop == 1)
}
active proctype Stopper() {
  x == 3 -> stop = 1
}
