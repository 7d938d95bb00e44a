/* The claim reads the state where the holder of an atomic sequence is blocked: P
   sets x = 1 and blocks at (y == 1); pan loses atomicity there and its claim steps
   (pan -a: errors: 1, the trail ends in that state). Q's own sequence never shows
   x == 1, so only the blocked state does. */
byte x, y;
active proctype P() { atomic { x = 1; y == 1; x = 0 } }
active proctype Q() { atomic { y = 1; x = 2 } }
ltl q { [] (x != 1) }
