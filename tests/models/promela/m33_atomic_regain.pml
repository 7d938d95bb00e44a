/* After an atomic sequence blocks, atomicity is lost; when it becomes executable
   again, other processes may still move first (SPIN regains atomicity only when the
   process is scheduled). Here C can see x == 1 && y == 1: assertion violated. */
byte x, y;
active proctype A() { atomic { x = 1; (y == 1); x = 2 } }
active proctype B() { y = 1 }
active proctype C() { (y == 1 && x == 1) -> assert(false) }
