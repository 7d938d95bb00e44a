byte x = 0x10;
active proctype P() { skip }
