byte n;
byte a[n];
active proctype P() { skip }
