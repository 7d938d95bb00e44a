/* While A holds control inside its atomic sequence, pan tries no statement of B: B's
   assertion never sees x == 1 (pan -DNOREDUCE: errors: 0).  bridge used to evaluate
   B's assert in that state too and reported a violation. */
byte x;
active proctype A() {
  atomic { x = 1; x == 1; x = 2 }
}
active proctype B() {
  assert(x != 1)
}
