/* accept labels in a proctype and no never claim: pan -a reports an acceptance
   cycle (the loop through accept_busy can repeat forever). */
byte x;
active proctype P() {
  do
  :: x < 3 -> x++
  :: x == 3 -> accept_busy: x = 0
  od
}
