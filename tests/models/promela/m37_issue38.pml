/* SPIN issue #38 (promela-spin.md section 13): with -f, pan misses an acceptance
   cycle that only stutters in the terminal state; errors: 1 without -f, 0 with -f */
byte n = 0;
active proctype P() { n = 1 }
active proctype Q() { n = 2 }
ltl stays1 { <>[] (n == 1) }
