byte x;
active proctype P() {
  x = zz + 1
}
