/* A process blocked inside its atomic sequence: pan stores one state where bridge's
   state space has two, the exclusive slot (state.py) naming the blocked holder or -1
   after another process's step. Both have the same successors (a blocked holder gives
   up atomicity); the differential count rule keys stored states without the slot
   (test_promela_vs_spin._pan_key). pan stores 4 states; the rule counted 5 before. */
int g;
active proctype Other() { skip }
active proctype Holder() { atomic { g == 0; g == 1 } }
