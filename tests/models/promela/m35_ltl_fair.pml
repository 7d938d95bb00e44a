/* promela-spin.md section 14: <> flag fails without fairness, holds with -f */
bool flag = false;
byte cnt = 0;
active proctype A() { flag = true }
active proctype B() {
  do
  :: cnt < 3 -> cnt++
  :: cnt == 3 -> cnt = 0
  od
}
ltl eventually_flag { <> flag }
ltl always_small { [] (cnt <= 3) }
ltl cnt_recurs { []<> (cnt == 0) }
