/* hidden globals are not part of the state (SPIN); show/pid types; np_ in ltl */
hidden byte scratch;
show byte shown;
pid who;
active [2] proctype W() {
  do
  :: scratch = scratch + _pid + 1;
     shown = (shown + 1) % 3;
     who = _pid
  :: shown == 2 ->
progress_reset:
     shown = 0
  od
}
ltl progress_often { []<> !np_ }
