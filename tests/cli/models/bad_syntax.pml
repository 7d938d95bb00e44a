byte x = 0;
active proctype P() {
  x = ;
}
