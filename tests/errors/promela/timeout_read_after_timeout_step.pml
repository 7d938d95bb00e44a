byte x, y;
active proctype P() {
  atomic { timeout -> y = 1; if :: y == 1 -> x = timeout :: else fi }
}
