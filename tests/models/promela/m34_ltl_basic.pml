/* finite run: SPIN's stutter extension (promela-spin.md section 9) */
byte x = 0;
active proctype P() { x = 1; x = 2 }
ltl ev1 { <> (x == 1) }
ltl evalways2 { <>[] (x == 2) }
ltl inf1 { []<> (x == 1) }
ltl safe { [] (x <= 2) }
ltl never2 { [] (x != 2) }
ltl until2 { (x < 2) U (x == 2) }
ltl release { (x == 2) V (x <= 2) }
