chan q = [1] of { byte };
active proctype P() { q!1 }
ltl p { [] empty(q) }
