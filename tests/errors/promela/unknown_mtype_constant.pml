mtype = { a, b };
mtype m = c;
active proctype P() { skip }
