unsigned x : 32;
active proctype P() { skip }
