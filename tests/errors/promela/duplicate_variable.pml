byte x;
byte x;
active proctype P() { skip }
