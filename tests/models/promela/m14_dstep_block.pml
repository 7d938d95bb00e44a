/* a d_step that blocks after its first statement: pan reports "block in d_step seq" */
byte x, y;
active proctype A() {
  d_step { x = 1; (y == 1); x = 2 }
}
active proctype B() { (x == 1) -> y = 1 }
