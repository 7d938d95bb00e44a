/* a provided clause guards every statement, also inside an atomic sequence:
   A blocks after turn = 1 and B sees x == 0 (assertion violated in SPIN) */
byte x, turn;
active proctype A() provided (turn == 0) { atomic { turn = 1; x = 1 } }
active proctype B() { turn == 1 -> assert(x == 1) }
