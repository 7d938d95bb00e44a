inline f(a) { a = 1 }
byte x;
active proctype P() {
  f(x, x)
}
