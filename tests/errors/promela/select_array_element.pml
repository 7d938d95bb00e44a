byte arr[3];
active proctype P() {
  select(arr[1] : 1 .. 3)
}
