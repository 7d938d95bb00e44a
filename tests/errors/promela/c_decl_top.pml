c_decl { int x; }
active proctype P() { skip }
