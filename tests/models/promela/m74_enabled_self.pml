/* A process may not ask whether it is itself enabled: pan's error "used:
   enabled(pid=thisproc)" when the guard is evaluated. */
byte x;
active proctype A() {
  x = 1;
  enabled(_pid) -> x = 2
}
