byte x;
c_code { int y; }
active proctype P() { x = 1 }
