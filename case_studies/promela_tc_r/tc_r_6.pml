/* TC-6: self-stabilizing token circulation in directed rings, action-as-process
 * style of 003 (population-protocols-in-spin) section 5.1: node 0 is the leader, one
 * process per action Rule n(i, (i + 1) % N) (Fig. 3 rules), arbitrary initial
 * configuration. Checked with SPIN's weak fairness (process-level), 003 section 5. */
#define N 6
#define oneToken ((token[0] + token[1] + token[2] + token[3] + token[4] + token[5]) == 1)
bit leader[N];
bit token[N];
bit label[N];

/* Rule 1 ((*b, N), (*b, L)) -> (-b), (+not b) */
proctype Rule1(byte i; byte r) {
    do
    :: atomic { leader[i] == 0 && leader[r] == 1 && label[i] == label[r] ->
                token[i] = 0; token[r] = 1; label[r] = 1 - label[i] }
    od
}
/* Rule 2 ((*b, *), (*not b, N)) -> (-b), (+b) */
proctype Rule2(byte i; byte r) {
    do
    :: atomic { leader[r] == 0 && label[i] != label[r] ->
                token[i] = 0; token[r] = 1; label[r] = label[i] }
    od
}
init {
    atomic {
    leader[0] = 1;
    if
    :: atomic { true -> token[0] = 0 }
    :: atomic { true -> token[0] = 1 }
    fi;
    if
    :: atomic { true -> label[0] = 0 }
    :: atomic { true -> label[0] = 1 }
    fi;
    if
    :: atomic { true -> token[1] = 0 }
    :: atomic { true -> token[1] = 1 }
    fi;
    if
    :: atomic { true -> label[1] = 0 }
    :: atomic { true -> label[1] = 1 }
    fi;
    if
    :: atomic { true -> token[2] = 0 }
    :: atomic { true -> token[2] = 1 }
    fi;
    if
    :: atomic { true -> label[2] = 0 }
    :: atomic { true -> label[2] = 1 }
    fi;
    if
    :: atomic { true -> token[3] = 0 }
    :: atomic { true -> token[3] = 1 }
    fi;
    if
    :: atomic { true -> label[3] = 0 }
    :: atomic { true -> label[3] = 1 }
    fi;
    if
    :: atomic { true -> token[4] = 0 }
    :: atomic { true -> token[4] = 1 }
    fi;
    if
    :: atomic { true -> label[4] = 0 }
    :: atomic { true -> label[4] = 1 }
    fi;
    if
    :: atomic { true -> token[5] = 0 }
    :: atomic { true -> token[5] = 1 }
    fi;
    if
    :: atomic { true -> label[5] = 0 }
    :: atomic { true -> label[5] = 1 }
    fi;
    run Rule1(0, 1);
    run Rule1(1, 2);
    run Rule1(2, 3);
    run Rule1(3, 4);
    run Rule1(4, 5);
    run Rule1(5, 0);
    run Rule2(0, 1);
    run Rule2(1, 2);
    run Rule2(2, 3);
    run Rule2(3, 4);
    run Rule2(4, 5);
    run Rule2(5, 0);
    }
}

ltl eventuallyOneToken { <> [] oneToken }
