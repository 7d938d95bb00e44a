/* LE-6: self-stabilizing leader election in complete graphs, action-as-process
 * style of 003 (population-protocols-in-spin) section 3: one process per action
 * Rule n(i, r) between initiator i and responder r (Fig. 2 rules), an arbitrary initial
 * configuration (section 4.1), and the eventually correct detector of section 4.1.
 * Checked with SPIN's weak fairness (process-level), 003 Table 1. */
#define N 6
#define SUM (leader[0] + leader[1] + leader[2] + leader[3] + leader[4] + leader[5])
#define oneLeader (SUM == 1)
bit leader[N];
bool detector = false;
bit detectorcorrect = 0;

proctype Rule1(byte i; byte r) {
    do
    :: atomic { leader[i] == 1 && leader[r] == 1 -> leader[r] = 0 }
    od
}
proctype Rule2(byte i; byte r) {
    do
    :: atomic { leader[i] == 0 && leader[r] == 0 &&
                ((detectorcorrect == 0 && !detector) || (detectorcorrect == 1 && SUM == 0)) ->
                leader[i] = 1 }
    od
}
proctype Rule3(byte i; byte r) {
    do
    :: atomic { leader[i] == 0 && leader[r] == 0 &&
                ((detectorcorrect == 0 && detector) || (detectorcorrect == 1 && SUM > 0)) ->
                skip }
    od
}
proctype RandomDetector() {
    do
    :: (detectorcorrect == 0) -> detector = false
    :: (detectorcorrect == 0) -> detector = true
    od
}
proctype DetectorCorrect() {
    do
    :: (detectorcorrect == 0) -> progress: detectorcorrect = 1
    od
}
init {
    atomic {
    if
    :: atomic { true -> leader[0] = 0 }
    :: atomic { true -> leader[0] = 1 }
    fi;
    if
    :: atomic { true -> leader[1] = 0 }
    :: atomic { true -> leader[1] = 1 }
    fi;
    if
    :: atomic { true -> leader[2] = 0 }
    :: atomic { true -> leader[2] = 1 }
    fi;
    if
    :: atomic { true -> leader[3] = 0 }
    :: atomic { true -> leader[3] = 1 }
    fi;
    if
    :: atomic { true -> leader[4] = 0 }
    :: atomic { true -> leader[4] = 1 }
    fi;
    if
    :: atomic { true -> leader[5] = 0 }
    :: atomic { true -> leader[5] = 1 }
    fi;
    run Rule1(0, 1);
    run Rule2(0, 1);
    run Rule3(0, 1);
    run Rule1(0, 2);
    run Rule2(0, 2);
    run Rule3(0, 2);
    run Rule1(0, 3);
    run Rule2(0, 3);
    run Rule3(0, 3);
    run Rule1(0, 4);
    run Rule2(0, 4);
    run Rule3(0, 4);
    run Rule1(0, 5);
    run Rule2(0, 5);
    run Rule3(0, 5);
    run Rule1(1, 0);
    run Rule2(1, 0);
    run Rule3(1, 0);
    run Rule1(1, 2);
    run Rule2(1, 2);
    run Rule3(1, 2);
    run Rule1(1, 3);
    run Rule2(1, 3);
    run Rule3(1, 3);
    run Rule1(1, 4);
    run Rule2(1, 4);
    run Rule3(1, 4);
    run Rule1(1, 5);
    run Rule2(1, 5);
    run Rule3(1, 5);
    run Rule1(2, 0);
    run Rule2(2, 0);
    run Rule3(2, 0);
    run Rule1(2, 1);
    run Rule2(2, 1);
    run Rule3(2, 1);
    run Rule1(2, 3);
    run Rule2(2, 3);
    run Rule3(2, 3);
    run Rule1(2, 4);
    run Rule2(2, 4);
    run Rule3(2, 4);
    run Rule1(2, 5);
    run Rule2(2, 5);
    run Rule3(2, 5);
    run Rule1(3, 0);
    run Rule2(3, 0);
    run Rule3(3, 0);
    run Rule1(3, 1);
    run Rule2(3, 1);
    run Rule3(3, 1);
    run Rule1(3, 2);
    run Rule2(3, 2);
    run Rule3(3, 2);
    run Rule1(3, 4);
    run Rule2(3, 4);
    run Rule3(3, 4);
    run Rule1(3, 5);
    run Rule2(3, 5);
    run Rule3(3, 5);
    run Rule1(4, 0);
    run Rule2(4, 0);
    run Rule3(4, 0);
    run Rule1(4, 1);
    run Rule2(4, 1);
    run Rule3(4, 1);
    run Rule1(4, 2);
    run Rule2(4, 2);
    run Rule3(4, 2);
    run Rule1(4, 3);
    run Rule2(4, 3);
    run Rule3(4, 3);
    run Rule1(4, 5);
    run Rule2(4, 5);
    run Rule3(4, 5);
    run Rule1(5, 0);
    run Rule2(5, 0);
    run Rule3(5, 0);
    run Rule1(5, 1);
    run Rule2(5, 1);
    run Rule3(5, 1);
    run Rule1(5, 2);
    run Rule2(5, 2);
    run Rule3(5, 2);
    run Rule1(5, 3);
    run Rule2(5, 3);
    run Rule3(5, 3);
    run Rule1(5, 4);
    run Rule2(5, 4);
    run Rule3(5, 4);
    run RandomDetector();
    run DetectorCorrect()
    }
}

ltl eventuallyOneLeader { <> [] oneLeader }
