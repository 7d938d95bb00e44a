/* an escape whose first statement is a receive (guard = poll), nested unless */
chan ctl = [1] of { byte };
byte work, stage;
active proctype Worker() {
  {
    {
      do
      :: work < 4 -> work++
      :: work >= 4 -> work = 0
      od
    } unless { work == 3 -> stage = 1 }
  } unless { ctl?1 -> stage = 2 };
  assert(stage >= 1)
}
active proctype Boss() {
  work == 2 -> ctl!1
}
