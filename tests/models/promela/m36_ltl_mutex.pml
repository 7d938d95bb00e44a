/* Peterson's mutual exclusion with remote-label LTL properties */
bool flag[2];
byte turn;
active [2] proctype Proc() {
  do
  :: flag[_pid] = true;
     turn = 1 - _pid;
     (flag[1 - _pid] == false || turn == _pid);
cs:  skip;
     flag[_pid] = false
  od
}
ltl mutex { [] !(Proc[0]@cs && Proc[1]@cs) }
ltl enters { []<> Proc[0]@cs }
ltl no_starve { [] (flag[0] -> <> Proc[0]@cs) }
