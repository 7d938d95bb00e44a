/* LE-3: self-stabilizing leader election in complete graphs, action-as-process
 * style of 003 (population-protocols-in-spin) section 3: one process per action
 * Rule n(i, r) between initiator i and responder r (Fig. 2 rules), an arbitrary initial
 * configuration (section 4.1), and the eventually correct detector of section 4.1.
 * Checked with SPIN's weak fairness (process-level), 003 Table 1. */
#define N 3
#define SUM (leader[0] + leader[1] + leader[2])
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
    run Rule1(0, 1);
    run Rule2(0, 1);
    run Rule3(0, 1);
    run Rule1(0, 2);
    run Rule2(0, 2);
    run Rule3(0, 2);
    run Rule1(1, 0);
    run Rule2(1, 0);
    run Rule3(1, 0);
    run Rule1(1, 2);
    run Rule2(1, 2);
    run Rule3(1, 2);
    run Rule1(2, 0);
    run Rule2(2, 0);
    run Rule3(2, 0);
    run Rule1(2, 1);
    run Rule2(2, 1);
    run Rule3(2, 1);
    run RandomDetector();
    run DetectorCorrect()
    }
}

ltl eventuallyOneLeader { <> [] oneLeader }
