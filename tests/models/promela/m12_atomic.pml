byte x, y;
active proctype A() {
  atomic { x = 1; (y == 1); x = 2 }
}
active proctype B() { (x == 1) -> y = 1 }
active proctype C() {
  atomic { x > 0 -> y = y + 10; y = y - 10 }
}
