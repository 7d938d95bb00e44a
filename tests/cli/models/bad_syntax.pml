byte x = 0;
active proctype P() {
  x = 1 +;
  x = 2
}
