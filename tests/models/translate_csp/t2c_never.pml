/* A hand-written never claim with an else option and a claim that can
   terminate; the system may deadlock, where the claim keeps reading its
   last state. */
byte x, stage;

active proctype P() {
  do
  :: x < 3 -> x++
  :: x == 3 -> break
  od;
  stage = 1;
  (stage == 2)       /* blocks forever: a deadlock the claim stutters over */
}

never {
start:
  if
  :: (x == 2) -> goto seen_two
  :: else -> goto start
  fi;
seen_two:
  do
  :: (stage == 1) -> goto accept_done
  :: (stage == 0)
  od;
accept_done:
  do
  :: (stage == 1)
  od
}
