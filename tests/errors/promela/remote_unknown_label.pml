active proctype P() { L: skip }
ltl p { [] P@M }
