byte x;
active proctype P() { x = 1 }
ltl p { <> (y == 1) }
