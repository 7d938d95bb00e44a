"""Write the size-specific case-study models (``python3 case_studies/generate.py``).

Return nothing; (re)write ``case_studies/<name>/<name>_<N>.csp`` (and ``.pml``) for every
size listed in ``SIZES``. Sizes are separate files because CSP# has no N-ary sum in a
``#define`` proposition: ``oneLeader`` must spell out ``leader[0] + ... + leader[N-1]``.
Models whose text does not depend on N in that way (dining philosophers, Milner's
scheduler, readers/writers, process-level leader election) are single files; the
regression runner instantiates their size by rewriting ``#define N <v>;`` (see
``bridge/regress.py``). ``tests/golden/test_case_studies.py`` checks that the committed
files equal what this script writes, so edit the templates here, not the outputs.

Every model is written from the papers in ``shared/papers`` (cited per model below).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _sum(array: str, n: int) -> str:
    return " + ".join(f"{array}[{k}]" for k in range(n))


def _init_arrays(arrays: list[str], n: int) -> str:
    """Return CSP# process definitions ``Init()`` choosing every bit of ``arrays``.

    One step per node (event ``setup.i.v``) picks all bits of node i at once, so that the
    initialisation tree stays small; the paper omits ``Init`` ("constructed
    straightforwardly using the choice operator", 000 section 2.1).
    """
    width = len(arrays)
    lines = []
    for i in range(n):
        choices = []
        for v in range(2**width):
            bits = "; ".join(f"{a}[{i}] = {(v >> b) & 1}" for b, a in enumerate(arrays))
            choices.append(f"setup.{i}.{v}{{{bits};}} -> Skip")
        body = "\n    [] ".join(choices)
        lines.append(f"InitNode{i}() = {body};")
    chain = "; ".join(f"InitNode{i}()" for i in range(n))
    lines.append(f"Init() = {chain};")
    return "\n".join(lines)


DETECTOR = """\
// The eventual leader detector of 000 Fig. 1 lines 18-19.
Detector() = oracle{correct = 1;} -> Detector()
    [] guess1{guess = false;} -> Detector()
    [] guess2{guess = true;} -> Detector();"""


def le_r(n: int) -> str:
    """Leader election in rings, 000 Fig. 1 (Fischer and Jiang, OPODIS'06)."""
    return f"""//@@LE_R: self-stabilizing leader election in rings (N = {n})@@
// From 000 (pat-verification-under-fairness) Fig. 1, verbatim except:
//  * Fig. 1 line 20 names the node process 'Process(x)'; it is 'Node(x)' (line 5).
//  * the rules are written as guarded choice '[g] rule -> Node(i)' instead of 'case':
//    the five guards are mutually exclusive, so both pick the same rule, but PAT 3.5's
//    'case' with no true branch steps to Skip and the node drops out of the ring
//    (cspsharp.md 9.7), while the paper says a rule "is applicable only if the
//    guarding condition is satisfied" (a node without an applicable rule waits).
//  * 'oneLeader' and 'exist' spell out the sum for N nodes; Init (omitted in the
//    paper) chooses every leader/bullet/shield bit (case_studies/generate.py).
#define N {n};
#define exist (correct == 0 && guess) || (correct != 0 && {_sum("leader", n)} > 0);
var correct = 0; var guess = false;
var leader[N]; var bullet[N]; var shield[N];
Node(i) = [!exist] rule1.i.(i + 1)%N{{bullet[i] = 1; leader[i] = 1; shield[i] = 1;}} -> Node(i)
    [] [leader[i] == 0 && shield[i] == 1 && exist] rule2.i.(i + 1)%N{{
        leader[i] = 0; shield[i] = 0; bullet[(i + 1)%N] = 0; shield[(i + 1)%N] = 1;
    }} -> Node(i)
    [] [leader[i] == 1 && shield[i] == 1 && exist] rule3.i.(i + 1)%N{{
        bullet[i] = 1; leader[i] = 1; shield[i] = 0; bullet[(i + 1)%N] = 0; shield[(i + 1)%N] = 1;
    }} -> Node(i)
    [] [leader[i] == 1 && shield[i] == 0 && bullet[(i + 1)%N] == 0 && exist]
        rule4.i.(i + 1)%N{{bullet[i] = 1; leader[i] = 1; shield[i] = 0; bullet[(i + 1)%N] = 0;}} -> Node(i)
    [] [shield[i] == 0 && bullet[(i + 1)%N] == 1 && exist]
        rule5.i.(i + 1)%N{{bullet[i] = 1; leader[i] = 0; shield[i] = 0; bullet[(i + 1)%N] = 0;}} -> Node(i);
{DETECTOR}
{_init_arrays(["leader", "bullet", "shield"], n)}
LeaderElection() = Init(); (Detector() ||| (||| x:{{0..N - 1}}@Node(x)));

#define oneLeader ({_sum("leader", n)} == 1);
#assert LeaderElection() |= <> []oneLeader;
"""


def le_r_case(n: int) -> str:
    """000 Fig. 1 with its 'case' construct kept verbatim (PAT 3.5 case semantics)."""
    text = le_r(n)
    start = text.index("Node(i) = [!exist]")
    end = text.index("// The eventual leader detector")
    case = f"""Node(i) = case {{
    !exist : rule1.i.(i + 1)%N{{bullet[i] = 1; leader[i] = 1; shield[i] = 1;}} -> Node(i)
    leader[i] == 0 && shield[i] == 1 && exist : rule2.i.(i + 1)%N{{
        leader[i] = 0; shield[i] = 0; bullet[(i + 1)%N] = 0; shield[(i + 1)%N] = 1;
    }} -> Node(i)
    leader[i] == 1 && shield[i] == 1 && exist : rule3.i.(i + 1)%N{{
        bullet[i] = 1; leader[i] = 1; shield[i] = 0; bullet[(i + 1)%N] = 0; shield[(i + 1)%N] = 1;
    }} -> Node(i)
    leader[i] == 1 && shield[i] == 0 && bullet[(i + 1)%N] == 0 && exist :
        rule4.i.(i + 1)%N{{bullet[i] = 1; leader[i] = 1; shield[i] = 0; bullet[(i + 1)%N] = 0;}} -> Node(i)
    shield[i] == 0 && bullet[(i + 1)%N] == 1 && exist :
        rule5.i.(i + 1)%N{{bullet[i] = 1; leader[i] = 0; shield[i] = 0; bullet[(i + 1)%N] = 0;}} -> Node(i)
}};
"""
    head = text[:start].replace(
        "//@@LE_R: self-stabilizing leader election in rings",
        "//@@LE_R (Fig. 1 'case' kept verbatim)",
    )
    return head + case + text[end:]


def tc_r(n: int) -> str:
    """Token circulation in directed rings (Angluin et al. OPODIS'05; 003 Fig. 3)."""
    return f"""//@@TC_R: self-stabilizing token circulation in directed rings (N = {n})@@
// Rules of 003 (population-protocols-in-spin) Fig. 3, node 0 being the unique leader
// (003 section 5.1); initiator i, responder (i + 1) % N (directed ring):
//  Rule 1 ((*b, N), (*b, L)) -> (-b), (+not b): the leader responder flips its label;
//  Rule 2 ((*b, *), (*not b, N)) -> (-b), (+b): a non-leader responder copies it.
// A label change passes the token from the initiator to the responder (or creates
// one). The initial configuration is arbitrary (token and label bits of every node).
#define N {n};
var token[N]; var label[N];
Node(i) = [(i + 1)%N == 0 && label[i] == label[0]]
        rule1.i.(i + 1)%N{{token[i] = 0; token[0] = 1; label[0] = 1 - label[i];}} -> Node(i)
    [] [(i + 1)%N != 0 && label[i] != label[(i + 1)%N]]
        rule2.i.(i + 1)%N{{token[i] = 0; token[(i + 1)%N] = 1; label[(i + 1)%N] = label[i];}} -> Node(i);
{_init_arrays(["token", "label"], n)}
TokenCirculation() = Init(); (||| x:{{0..N - 1}}@Node(x));

#define oneToken ({_sum("token", n)} == 1);
#assert TokenCirculation() |= <> []oneToken;
"""


def le_c(n: int) -> str:
    """Leader election in complete graphs (Fischer and Jiang; 003 Fig. 2)."""
    rules = []
    for j in range(n):
        rules.append(
            f"[i != {j} && leader[i] == 1 && leader[{j}] == 1] rule1.i.{j}{{leader[{j}] = 0;}} -> Node(i)"
        )
        rules.append(
            f"[i != {j} && leader[i] == 0 && !exist && leader[{j}] == 0] rule2.i.{j}{{leader[i] = 1;}} -> Node(i)"
        )
    body = "\n    [] ".join(rules)
    return f"""//@@LE_C: self-stabilizing leader election in complete graphs (N = {n})@@
// Rules of 003 (population-protocols-in-spin) Fig. 2, from Fischer and Jiang [11]:
//  Rule 1 ((L, *), (L, *)) -> (L, -): of two interacting leaders the responder quits;
//  Rule 2 ((-, F), (-, *)) -> (L, -): a non-leader initiator told "no leader" by the
//    detector becomes a leader when the responder is not one;
//  Rule 3 ((-, T), (-, *)) -> (-, -) changes nothing and is left out (a self-loop).
// Every ordered pair (i, j), i != j, may interact. The eventual leader detector is the
// one of 000 Fig. 1 (the input F of Rule 2 is '!exist').
#define N {n};
#define exist (correct == 0 && guess) || (correct != 0 && {_sum("leader", n)} > 0);
var correct = 0; var guess = false;
var leader[N];
Node(i) = {body};
{DETECTOR}
{_init_arrays(["leader"], n)}
LeaderElection() = Init(); (Detector() ||| (||| x:{{0..N - 1}}@Node(x)));

#define oneLeader ({_sum("leader", n)} == 1);
#assert LeaderElection() |= <> []oneLeader;
"""


def le_or(n: int, corrected: bool) -> str:
    """Leader election in odd rings: 000 section 5.2 (Jiang's thesis p. 66)."""
    u, v = "u", "(u + 1)%N"
    probe_v = (
        f"if (leader[{v}] == 0) {{ probe[{v}] = 1; }}" if corrected else f"probe[{v}] = 1;"
    )
    absorb = f" probe[{u}] = 0;" if corrected else ""
    acts = [
        # barrier edge: label[u] == label[v]; probe[u] x (phase[u]==0 | probe[v]==0 | else)
        (f"label[u] == label[{v}] && probe[u] == 1 && phase[u] == 0",
         f"leader[u] = 1; probe[u] = 0; bullet[{v}] = 0; phase[u] = 1; {probe_v}"),
        (f"label[u] == label[{v}] && probe[u] == 1 && phase[u] != 0 && probe[{v}] == 0",
         f"leader[u] = 1; probe[u] = 0; bullet[{v}] = 0; label[{v}] = 1 - label[{v}]; phase[{v}] = 0;"),
        (f"label[u] == label[{v}] && probe[u] == 1 && phase[u] != 0 && probe[{v}] != 0",
         f"leader[u] = 1; probe[u] = 0; bullet[{v}] = 0;"),
        (f"label[u] == label[{v}] && probe[u] != 1 && phase[u] == 0",
         f"bullet[{v}] = 0; phase[u] = 1; {probe_v}"),
        (f"label[u] == label[{v}] && probe[u] != 1 && phase[u] != 0 && probe[{v}] == 0",
         f"bullet[{v}] = 0; label[{v}] = 1 - label[{v}]; phase[{v}] = 0;"),
        (f"label[u] == label[{v}] && probe[u] != 1 && phase[u] != 0 && probe[{v}] != 0",
         f"bullet[{v}] = 0;"),
        # leader responder on a non-barrier edge
        (f"label[u] != label[{v}] && leader[{v}] == 1 && bullet[{v}] == 1",
         f"leader[{v}] = 0;{absorb}"),
        (f"label[u] != label[{v}] && leader[{v}] == 1 && bullet[{v}] != 1",
         f"bullet[u] = 1;{absorb}"),
        # non-leader responder: bullets move back, probes move forward
        (f"label[u] != label[{v}] && leader[{v}] != 1 && bullet[{v}] == 1 && probe[u] == 1",
         f"bullet[{v}] = 0; bullet[u] = 1; probe[u] = 0; probe[{v}] = 1;"),
        (f"label[u] != label[{v}] && leader[{v}] != 1 && bullet[{v}] == 1 && probe[u] != 1",
         f"bullet[{v}] = 0; bullet[u] = 1;"),
        (f"label[u] != label[{v}] && leader[{v}] != 1 && bullet[{v}] != 1 && probe[u] == 1",
         f"probe[u] = 0; probe[{v}] = 1;"),
    ]
    choices = []
    for k, (guard, effect) in enumerate(acts, start=1):
        choices.append(f"[{guard}]\n        act{k}.u.{v}{{{effect}}} -> Node(u)")
    body = "\n    [] ".join(choices)
    if corrected:
        note = """// CORRECTED protocol, after the explanation in 000 section 5.2 ([20], revised in [2]):
//  * a barrier edge generates a probe at the responder only if it is not a leader
//    (act1, act4: 'if (leader[v] == 0) { probe[v] = 1; }');
//  * a probe is absorbed by a leader it runs into (act7, act8: 'probe[u] = 0' when the
//    responder is a leader)."""
    else:
        note = """// BUGGY protocol: the thesis pseudo-code of 000 section 5.2 as printed. PAT found a
// counterexample for N = 3 under strong global fairness (000 section 5.2)."""
    return f"""//@@LE_OR: leader election in odd rings, {"corrected" if corrected else "thesis pseudo-code"} (N = {n})@@
// Initiator u, responder v = (u + 1) % N (oriented ring). The interaction of 000
// section 5.2 is split into eleven guarded actions act1..act11 as PAT's model does
// ("eleven case splits"); the twelfth path (non-barrier edge, non-leader responder,
// no bullet at v, no probe at u) changes nothing and is left out (a self-loop).
{note}
#define N {n};
var leader[N]; var label[N]; var probe[N]; var phase[N]; var bullet[N];
Node(u) = {body};
{_init_arrays(["leader", "label", "probe", "phase", "bullet"], n)}
LeaderElectionOddRing() = Init(); (||| x:{{0..N - 1}}@Node(x));

#define oneLeader ({_sum("leader", n)} == 1);
#assert LeaderElectionOddRing() |= <> []oneLeader;
"""


def peterson(n: int) -> str:
    """Peterson's N-process filter algorithm (000 Table 3; Alagarsamy [1])."""
    others = " && ".join(f"(i == {k} || pos[{k}] < j)" for k in range(n))
    return f"""//@@Peterson's filter lock (N = {n})@@
// 000 Table 3 row peterson(N): "requires process-level weak fairness to guarantee
// bounded by-pass, i.e. if a process requests to enter the critical section, it
// eventually will" (000 section 5.3). Peterson's N-process algorithm: to pass level j
// (1 <= j < N) process i sets pos[i] = j, step[j] = i and waits until step[j] != i or
// every other process is below level j.
#define N {n};
var pos[N]; var step[N];
Proc(i) = req.i -> Level(i, 1);
Level(i, j) = if (j < N) {{ set.i.j{{pos[i] = j; step[j] = i;}} -> Wait(i, j) }}
              else {{ cs.i -> exit.i{{pos[i] = 0;}} -> Proc(i) }};
Wait(i, j) = [step[j] != i || ({others})] pass.i.j -> Level(i, j + 1);
Peterson() = ||| x:{{0..N - 1}}@Proc(x);

#assert Peterson() |= [](req.0 -> <> cs.0);
"""


DP = """//@@Dining philosophers dp(N)@@
// 000 Table 3 rows dp(10), dp(13), dp(15): N philosophers and N forks; each
// philosopher takes its right then its left fork, so the system can deadlock and
// []<> eat.0 fails whether or not fairness is assumed (000 section 5.3).
// N is instantiated by the regression runner (it rewrites '#define N ...;').
#define N 5;
Phil(i) = get.i.(i + 1)%N -> get.i.i -> eat.i -> put.i.(i + 1)%N -> put.i.i -> Phil(i);
Fork(x) = get.x.x -> put.x.x -> Fork(x) [] get.(x - 1)%N.x -> put.(x - 1)%N.x -> Fork(x);
College() = || x:{0..N - 1}@(Phil(x) || Fork(x));

#assert College() |= []<> eat.0;
"""


def milner(annotated: bool) -> str:
    """Milner's cyclic scheduler ms(N) (000 Table 3)."""
    def ev(e: str) -> str:
        return f"sf({e})" if annotated else e

    note = (
        "// Annotated version: strong fairness only on the inter-process communications\n"
        "// (the synchronised events a, b and c), 000 section 5.3 and section 4.\n"
        if annotated
        else "// Whole-system version: strong local fairness is applied to every event.\n"
    )
    return f"""//@@Milner's cyclic scheduler ms(N){" with fairness annotations" if annotated else ""}@@
// 000 Table 3 rows ms(N): N cells pass a token c.i around a ring; cell i lets process i
// start (a.i) only when it holds the token and waits for it to finish (b.i) before
// starting it again; b.i may come before or after the token is passed on (Milner,
// Communication and Concurrency, 1989). Property: []<> work.0.
{note}// N is instantiated by the regression runner (it rewrites '#define N ...;').
#define N 3;
Cell(i) = {ev("c.i")} -> Started(i);
Started(i) = {ev("a.i")} -> ({ev("b.i")} -> {ev("c.(i + 1)%N")} -> Cell(i) [] {ev("c.(i + 1)%N")} -> {ev("b.i")} -> Cell(i));
Cell0() = Started(0);
Worker(i) = {ev("a.i")} -> work.i -> {ev("b.i")} -> Worker(i);
Scheduler() = Cell0() || (|| i:{{1..N - 1}}@Cell(i)) || (|| i:{{0..N - 1}}@Worker(i));

#assert Scheduler() |= []<> work.0;
"""


LE_PL = """//@@LE: leader election in complete networks with symmetric processes@@
// 002 (fair-process-counter-abstraction) section 6, model LE: the self-stabilizing
// leader election for complete networks of Fischer and Jiang [11], written with
// identical, identity-free processes (the shape process counter abstraction needs):
// a node is a process in local state NonLeader or Leader and 'nleaders' counts the
// leaders. Rule 1 (two leaders meet, one quits) and Rule 2 (a non-leader told "no
// leader" meets a non-leader and becomes leader) as in 003 Fig. 2. The detector is
// split, as in 003 section 4.1, into a guessing process and an 'Oracle' process that
// makes it correct, so that process-level fairness (002 Defs. 4-5) applies to it.
// Each node first chooses its initial local state (self-stabilisation: any start).
// N is instantiated by the regression runner (it rewrites '#define N ...;').
#define N 10;
var nleaders = 0; var correct = 0; var guess = false;
#define exist (correct == 0 && guess) || (correct != 0 && nleaders > 0);
Node(i) = start0.i -> NonLeader(i) [] start1.i{nleaders = nleaders + 1;} -> Leader(i);
NonLeader(i) = [!exist && nleaders <= N - 2] become.i{nleaders = nleaders + 1;} -> Leader(i);
Leader(i) = [nleaders >= 2] quit.i{nleaders = nleaders - 1;} -> NonLeader(i);
Guesser() = [correct == 0] guess1{guess = false;} -> Guesser()
    [] [correct == 0] guess2{guess = true;} -> Guesser();
Oracle() = [correct == 0] oracle{correct = 1;} -> Skip;
LE() = Oracle() ||| Guesser() ||| (||| x:{0..N - 1}@Node(x));

#define oneLeader (nleaders == 1);
#assert LE() |= <> []oneLeader;
"""


RW = """//@@RW: readers/writers (002 Fig. 1)@@
// 002 (fair-process-counter-abstraction) Fig. 1: readers R0 -[!writing] startread
// {counter++}-> R1 -stopread{counter--}-> R0; writers W0 -[counter == 0 && !writing]
// startwrite{writing := true}-> W1 -stopwrite{writing := false}-> W0.
// NR readers and NW writers; the runner rewrites '#define NR ...;' / '#define NW ...;'.
#define NR 2;
#define NW 2;
var counter = 0; var writing = false;
Reader(i) = [!writing] startread{counter = counter + 1;} -> stopread{counter = counter - 1;} -> Reader(i);
Writer(i) = [counter == 0 && !writing] startwrite{writing = true;} -> stopwrite{writing = false;} -> Writer(i);
RW() = (||| i:{0..NR - 1}@Reader(i)) ||| (||| i:{0..NW - 1}@Writer(i));

#define reading counter > 0;
#define clash counter > 0 && writing;
#assert RW() |= [] !clash;
#assert RW() |= []<> reading;
"""


def pml_le_c(n: int) -> str:
    """003 section 4.1: leader election, one SPIN process per action (Rule n(i, r))."""
    runs = []
    for i in range(n):
        for r in range(n):
            if i != r:
                runs += [f"    run Rule1({i}, {r});", f"    run Rule2({i}, {r});", f"    run Rule3({i}, {r});"]
    inits = "\n".join(
        f"    if\n    :: atomic {{ true -> leader[{k}] = 0 }}\n    :: atomic {{ true -> leader[{k}] = 1 }}\n    fi;"
        for k in range(n)
    )
    total = " + ".join(f"leader[{k}]" for k in range(n))
    run_text = "\n".join(runs)
    return f"""/* LE-{n}: self-stabilizing leader election in complete graphs, action-as-process
 * style of 003 (population-protocols-in-spin) section 3: one process per action
 * Rule n(i, r) between initiator i and responder r (Fig. 2 rules), an arbitrary initial
 * configuration (section 4.1), and the eventually correct detector of section 4.1.
 * Checked with SPIN's weak fairness (process-level), 003 Table 1. */
#define N {n}
#define SUM ({total})
#define oneLeader (SUM == 1)
bit leader[N];
bool detector = false;
bit detectorcorrect = 0;

proctype Rule1(byte i; byte r) {{
    do
    :: atomic {{ leader[i] == 1 && leader[r] == 1 -> leader[r] = 0 }}
    od
}}
proctype Rule2(byte i; byte r) {{
    do
    :: atomic {{ leader[i] == 0 && leader[r] == 0 &&
                ((detectorcorrect == 0 && !detector) || (detectorcorrect == 1 && SUM == 0)) ->
                leader[i] = 1 }}
    od
}}
proctype Rule3(byte i; byte r) {{
    do
    :: atomic {{ leader[i] == 0 && leader[r] == 0 &&
                ((detectorcorrect == 0 && detector) || (detectorcorrect == 1 && SUM > 0)) ->
                skip }}
    od
}}
proctype RandomDetector() {{
    do
    :: (detectorcorrect == 0) -> detector = false
    :: (detectorcorrect == 0) -> detector = true
    od
}}
proctype DetectorCorrect() {{
    do
    :: (detectorcorrect == 0) -> progress: detectorcorrect = 1
    od
}}
init {{
    atomic {{
{inits}
{run_text}
    run RandomDetector();
    run DetectorCorrect()
    }}
}}

ltl eventuallyOneLeader {{ <> [] oneLeader }}
"""


def pml_tc_r(n: int) -> str:
    """003 section 5.1: token circulation in directed rings, one process per action."""
    runs = []
    for rule in (1, 2):
        for i in range(n):
            runs.append(f"    run Rule{rule}({i}, {(i + 1) % n});")
    inits = "\n".join(
        f"    if\n    :: atomic {{ true -> {a}[{k}] = 0 }}\n    :: atomic {{ true -> {a}[{k}] = 1 }}\n    fi;"
        for k in range(n)
        for a in ("token", "label")
    )
    total = " + ".join(f"token[{k}]" for k in range(n))
    run_text = "\n".join(runs)
    return f"""/* TC-{n}: self-stabilizing token circulation in directed rings, action-as-process
 * style of 003 (population-protocols-in-spin) section 5.1: node 0 is the leader, one
 * process per action Rule n(i, (i + 1) % N) (Fig. 3 rules), arbitrary initial
 * configuration. Checked with SPIN's weak fairness (process-level), 003 section 5. */
#define N {n}
#define oneToken (({total}) == 1)
bit leader[N];
bit token[N];
bit label[N];

/* Rule 1 ((*b, N), (*b, L)) -> (-b), (+not b) */
proctype Rule1(byte i; byte r) {{
    do
    :: atomic {{ leader[i] == 0 && leader[r] == 1 && label[i] == label[r] ->
                token[i] = 0; token[r] = 1; label[r] = 1 - label[i] }}
    od
}}
/* Rule 2 ((*b, *), (*not b, N)) -> (-b), (+b) */
proctype Rule2(byte i; byte r) {{
    do
    :: atomic {{ leader[r] == 0 && label[i] != label[r] ->
                token[i] = 0; token[r] = 1; label[r] = label[i] }}
    od
}}
init {{
    atomic {{
    leader[0] = 1;
{inits}
{run_text}
    }}
}}

ltl eventuallyOneToken {{ <> [] oneToken }}
"""


SIZES: dict[str, tuple[int, ...]] = {
    "le_r": (3, 4, 5, 6, 7, 8),
    "tc_r": (3, 4, 5, 6, 7, 8, 9, 11, 13),
    "le_c": (3, 4, 5, 6, 7, 8),
    "le_or": (3, 5, 7),
    "peterson": (3, 4, 5),
    "promela_le_c": (3, 4, 5, 6),
    "promela_tc_r": (3, 4, 5, 6),
}


def render_all() -> dict[Path, str]:
    """Return every generated file (path -> text)."""
    out: dict[Path, str] = {}
    for n in SIZES["le_r"]:
        out[HERE / "le_r" / f"le_r_{n}.csp"] = le_r(n)
    out[HERE / "le_r" / "le_r_case_3.csp"] = le_r_case(3)
    for n in SIZES["tc_r"]:
        out[HERE / "tc_r" / f"tc_r_{n}.csp"] = tc_r(n)
    for n in SIZES["le_c"]:
        out[HERE / "le_c" / f"le_c_{n}.csp"] = le_c(n)
    for n in SIZES["le_or"]:
        out[HERE / "le_or" / f"le_or_buggy_{n}.csp"] = le_or(n, corrected=False)
        out[HERE / "le_or" / f"le_or_fixed_{n}.csp"] = le_or(n, corrected=True)
    for n in SIZES["peterson"]:
        out[HERE / "peterson" / f"peterson_{n}.csp"] = peterson(n)
    out[HERE / "dp" / "dp.csp"] = DP
    out[HERE / "ms" / "ms.csp"] = milner(annotated=False)
    out[HERE / "ms" / "ms_annotated.csp"] = milner(annotated=True)
    out[HERE / "le_pl" / "le_pl.csp"] = LE_PL
    out[HERE / "rw" / "rw.csp"] = RW
    for n in SIZES["promela_le_c"]:
        out[HERE / "promela_le_c" / f"le_c_{n}.pml"] = pml_le_c(n)
    for n in SIZES["promela_tc_r"]:
        out[HERE / "promela_tc_r" / f"tc_r_{n}.pml"] = pml_tc_r(n)
    return out


def main(argv: list[str]) -> int:
    """Write (or with ``--check`` compare) every generated file; return an exit code."""
    check = "--check" in argv
    stale = []
    for path, text in render_all().items():
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for path in stale:
        print(f"stale: {path.relative_to(HERE)}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
