byte x;
active proctype P() {
progress_loop:
  do
  :: x < 3 -> x++
  :: x == 3 -> x = 0
  od
}
active proctype Q() {
accept_here:
  x < 10;
end_q:
  x == 20
}
