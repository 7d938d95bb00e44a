byte n;
byte a[n + 1];
active proctype P() { skip }
