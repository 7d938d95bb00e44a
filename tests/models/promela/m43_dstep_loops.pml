/* d_step with for, nested if/do, break from an inner if, receive as first statement */
chan q = [2] of { byte };
byte a[4], total, i;
active proctype P() {
  q!3;
  d_step {
    q?i;
    for (total : 0 .. 2) { a[total] = i + total }
    total = 0;
    do
    :: total < 10 ->
       if
       :: a[0] > 2 -> total = total + a[0]; a[0] = 0
       :: else -> break
       fi
    od
  };
  assert(total == 3 && a[1] == 4 && a[2] == 5)
}
