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
    case = """Node(i) = case {
    !exist : rule1.i.(i + 1)%N{bullet[i] = 1; leader[i] = 1; shield[i] = 1;} -> Node(i)
    leader[i] == 0 && shield[i] == 1 && exist : rule2.i.(i + 1)%N{
        leader[i] = 0; shield[i] = 0; bullet[(i + 1)%N] = 0; shield[(i + 1)%N] = 1;
    } -> Node(i)
    leader[i] == 1 && shield[i] == 1 && exist : rule3.i.(i + 1)%N{
        bullet[i] = 1; leader[i] = 1; shield[i] = 0; bullet[(i + 1)%N] = 0; shield[(i + 1)%N] = 1;
    } -> Node(i)
    leader[i] == 1 && shield[i] == 0 && bullet[(i + 1)%N] == 0 && exist :
        rule4.i.(i + 1)%N{bullet[i] = 1; leader[i] = 1; shield[i] = 0; bullet[(i + 1)%N] = 0;} -> Node(i)
    shield[i] == 0 && bullet[(i + 1)%N] == 1 && exist :
        rule5.i.(i + 1)%N{bullet[i] = 1; leader[i] = 0; shield[i] = 0; bullet[(i + 1)%N] = 0;} -> Node(i)
};
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
// Null interactions (event idle.i.(i + 1)%N): in the population protocol model
// (Angluin et al., PODC'04/OPODIS'05; Fischer and Jiang, OPODIS'06; 003 section 2.1)
// ANY pair of adjacent agents may interact at any step, and an interaction to which no
// rule applies leaves both agents unchanged (a step C -> C). The first version of this
// model left these steps out; then every infinite run consists of rule steps only and
// <>[]oneToken held even without fairness at N = 3, against 000 section 5.1 ("all of
// the algorithms fail to satisfy the property without fairness"): with the null steps
// an unfair scheduler may let the ring interact forever without changing anything in a
// configuration with two tokens. The null steps are self-loops, so they add no state
// and never make a fair cycle unfair: the weak/strong-local/strong-global verdicts of
// 000 Table 2 are those of the rules alone.
#define N {n};
var token[N]; var label[N];
Node(i) = [(i + 1)%N == 0 && label[i] == label[0]]
        rule1.i.(i + 1)%N{{token[i] = 0; token[0] = 1; label[0] = 1 - label[i];}} -> Node(i)
    [] [(i + 1)%N != 0 && label[i] != label[(i + 1)%N]]
        rule2.i.(i + 1)%N{{token[i] = 0; token[(i + 1)%N] = 1; label[(i + 1)%N] = label[i];}} -> Node(i)
    [] [((i + 1)%N == 0 && label[i] != label[0]) || ((i + 1)%N != 0 && label[i] == label[(i + 1)%N])]
        idle.i.(i + 1)%N -> Node(i);
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
// The level test is a guarded choice ([j < N] ... [] [j == N] ...), as in PAT's own
// Peterson example, not 'if (j < N)': an 'if' resolves by a tau step, PAT counts tau
// as always engaged (cspsharp.md 5.1), and weak fairness then admits a run in which
// process 0 sits forever before its test with that tau enabled but never taken, so
// bounded bypass would fail under weak fairness against 000 Table 3 (Yes). A guard
// adds no step (cspsharp.md 7: the test is atomic with the first event), so every
// internal decision of a process is one of its named, fairly scheduled events.
#define N {n};
var pos[N]; var step[N];
Proc(i) = req.i -> Level(i, 1);
Level(i, j) = [j < N] set.i.j{{pos[i] = j; step[j] = i;}} -> Wait(i, j)
           [] [j == N] cs.i -> exit.i{{pos[i] = 0;}} -> Proc(i);
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


# ---------------------------------------------------------------------------------------
# Models added by the second case-studies engineer (issue 6): LE_T, two-hop coloring,
# orienting rings, KV, the lock-free stack and the Java meta-lock. Each template's
# header comment names the source of every rule and every modelling decision.


def le_t(n: int) -> str:
    """Leader election in rooted trees (000 Table 2, LE_T; Canepa and Potop-Butucaru [5])."""
    return f"""//@@LE_T: self-stabilizing leader election in rooted trees (N = {n})@@
// Sources and modelling decisions (issue 6):
//  * 000 (pat-verification-under-fairness) section 5.1 and Table 2 give only the name,
//    the reference [5] (Canepa and Potop-Butucaru, "Stabilizing token schemes for
//    population protocols", CoRR abs/0806.3471, not in shared/papers), the property
//    <>[] oneLeader, the sizes 3, 5, ..., 13, and "requires at least weak fairness".
//  * From [5] (its abstract; the full text was not available here): the protocols use
//    ONE memory bit per agent (leader or not) and the eventual leader detector of
//    Fischer and Jiang; the tree is rooted (every node knows which neighbour is its
//    parent). The rules below are OUR reconstruction in that model, not [5] verbatim:
//      rule1.c.p  child c and parent p both leaders       -> c quits (leaders merge);
//      rule2.c.p  c leader, p not                          -> the leader bit moves up;
//      rule3.c.p  neither a leader, the detector says none -> p becomes a leader
//                 (as Rule 2 of LE_C, 003 Fig. 2, but placed towards the root).
//    Leaders only move up and merge, so once the detector is correct the leaders end
//    in one leader at the root; without fairness the detector may guess forever.
//  * Shape: the sizes of Table 2 are odd, so we take the complete binary tree with
//    parent(c) = (c - 1) / 2 (every inner node has two children).
//  * The detector is the one of 000 Fig. 1 lines 18-19 (as in LE_R/LE_C); Init (any
//    initial configuration, self-stabilisation) chooses every leader bit.
//  * Interactions are parent-child edges only; the child process Node(c) carries the
//    rules of its edge (the root has no edge of its own). No rule is a self-loop.
#define N {n};
#define exist (correct == 0 && guess) || (correct != 0 && {_sum("leader", n)} > 0);
var correct = 0; var guess = false;
var leader[N];
Node(c) = [leader[c] == 1 && leader[(c - 1)/2] == 1] rule1.c.(c - 1)/2{{leader[c] = 0;}} -> Node(c)
    [] [leader[c] == 1 && leader[(c - 1)/2] == 0] rule2.c.(c - 1)/2{{leader[c] = 0; leader[(c - 1)/2] = 1;}} -> Node(c)
    [] [leader[c] == 0 && leader[(c - 1)/2] == 0 && !exist] rule3.c.(c - 1)/2{{leader[(c - 1)/2] = 1;}} -> Node(c);
{DETECTOR}
{_init_arrays(["leader"], n)}
LeaderElectionTree() = Init(); (Detector() ||| (||| x:{{1..N - 1}}@Node(x)));

#define oneLeader ({_sum("leader", n)} == 1);
#assert LeaderElectionTree() |= <> []oneLeader;
"""


COLORS = 3  # two-hop coloring of a ring: a node's two neighbours need distinct colours


def _coloring_init(n: int, with_succ: bool) -> str:
    """Return ``Init()`` choosing each node's colour, colour bits (and successor colour)."""
    lines = []
    for i in range(n):
        choices = []
        succs = range(COLORS) if with_succ else [None]
        for col in range(COLORS):
            for bits in range(2**COLORS):
                for s in succs:
                    body = f"color[{i}] = {col}; " + " ".join(
                        f"bit[{i * COLORS + k}] = {(bits >> k) & 1};" for k in range(COLORS))
                    label = f"setup.{i}.{col}.{bits}"
                    if s is not None:
                        body += f" succ[{i}] = {s};"
                        label += f".{s}"
                    choices.append(f"{label}{{{body}}} -> Skip")
        joined = "\n    [] ".join(choices)
        lines.append(f"InitNode{i}() = {joined};")
    lines.append("Init() = " + "; ".join(f"InitNode{i}()" for i in range(n)) + ";")
    return "\n".join(lines)


def _coloring_rules(v: str) -> str:
    """Return the two-hop coloring rules for initiator u and responder ``v``."""
    mine = f"bit[u*C + color[{v}]]"
    theirs = f"bit[({v})*C + color[u]]"
    meet = f"{mine} = 1 - {mine}; {theirs} = {mine};"
    rules = [f"[{mine} == {theirs}] flip.u.{v}{{{meet}}} -> Node(u)"]
    for k in range(COLORS):
        rules.append(f"[{mine} != {theirs}] recolor.u.{v}.{k}{{{meet} color[{v}] = {k};}} -> Node(u)")
    return "\n    [] ".join(rules)


def _colored(n: int) -> str:
    return " && ".join(f"color[{(i - 1) % n}] != color[{(i + 1) % n}]" for i in range(n))


COLORING_NOTE = """//  * Two-hop coloring, from Angluin, Aspnes, Fischer and Jiang, "Self-stabilizing
//    population protocols" (OPODIS 2005 / ACM TAAS 2008; reference [2] of 001, not in
//    shared/papers; rules as we know them from that paper, not checked against its
//    text here): every node x has a colour x.color and one bit x.bit[c] per colour c.
//    When initiator x meets responder y, x flips its bit x.bit[y.color] and y copies
//    it into y.bit[x.color]; if the two bits disagreed before the meeting, y also
//    takes a new colour (recolor.x.y.k), else the meeting is flip.x.y. In a two-hop
//    coloring every bit belongs to exactly one edge and its two ends stay equal; a
//    node with two neighbours of one colour shares one bit between two edges, so a
//    meeting on one edge makes the other edge's copy disagree and a neighbour is
//    recoloured.
//  * OURS: the copy. The rules of the first version (flip both bits only when they
//    agree, recolour without copying) did not stabilise at N = 4: a brute force over
//    all 331,776 configurations found bottom SCCs without a stable configuration,
//    and bridge's check agreed (violated). With the copy the brute force finds every
//    bottom SCC colored at N = 3 and 4 (case_studies/two_hop_coloring/expected.toml).
//  * The paper's "random" new colour is a nondeterministic choice among all C colours
//    (one event per colour), which global fairness resolves (001 section 2).
//  * Topology: an undirected ring of N nodes (001 section 7: "many of the protocols are
//    designed for network rings"); each node u interacts, as initiator, with
//    (u + 1) % N and (u - 1) % N. C = 3 colours (the fewest a ring needs). 'colored'
//    says the two neighbours of every node have different colours.
//  * Init chooses every colour and bit (self-stabilisation: any initial state)."""


def two_hop_coloring(n: int) -> str:
    """Two-hop coloring in a ring (001 Table 1; Angluin et al. [2] of 001)."""
    return f"""//@@Two-hop coloring (N = {n})@@
// Sources and modelling decisions (issue 6):
//  * 001 (global-fairness-symmetry-por) Table 1 gives only the name, N = 3, the state
//    count (122856) and time; no rules, no property and no verdict (row 'unknown').
{COLORING_NOTE}
//  * Property (ours): eventually always a two-hop coloring, <>[] colored, checked
//    under strong global fairness as in 001.
#define N {n};
#define C {COLORS};
var color[N]; var bit[{n * COLORS}];
Node(u) = {_coloring_rules("(u + 1)%N")}
    [] {_coloring_rules("(u + N - 1)%N")};
{_coloring_init(n, with_succ=False)}
TwoHopColoring() = Init(); (||| x:{{0..N - 1}}@Node(x));

#define colored ({_colored(n)});
#assert TwoHopColoring() |= <> []colored;
"""


def _orient_rules(v: str) -> str:
    """Return the ring-orientation rules for initiator u and responder ``v``."""
    u_to_v = f"succ[u] == color[{v}]"
    v_to_u = f"succ[{v}] == color[u]"
    rules = [f"[{u_to_v} && {v_to_u} && color[u] != {k}] turn.u.{v}.{k}{{succ[{v}] = {k};}} -> Node(u)"
             for k in range(COLORS)]
    rules.append(f"[succ[u] != color[{v}] && succ[{v}] != color[u]] face.u.{v}{{succ[{v}] = color[u];}} -> Node(u)")
    return "\n    [] ".join(rules)


def orienting_rings(n: int) -> str:
    """Orienting an undirected ring (001 Table 1; Angluin et al. [2] of 001)."""
    cw = " && ".join(f"succ[{i}] == color[{(i + 1) % n}]" for i in range(n))
    ccw = " && ".join(f"succ[{i}] == color[{(i - 1) % n}]" for i in range(n))
    return f"""//@@Orienting rings (N = {n})@@
// Sources and modelling decisions (issue 6):
//  * 001 (global-fairness-symmetry-por) Table 1 gives only the name, N = 3, 4, 5, two
//    properties "prop 1" and "prop 2" (not stated), state counts and times; no rules
//    and no verdict (rows 'unknown').
//  * Angluin et al. [2] of 001 orient an undirected ring on top of a two-hop coloring:
//    a node names a neighbour by its colour, so its direction is the colour 'succ' of
//    the neighbour it calls its successor. The two-hop coloring rules are those of
//    case_studies/two_hop_coloring (same events); the composition runs both protocols
//    in the same interactions, each rule as its own step (interleaving the two
//    components' rules adds no behaviour that global fairness would exclude).
//  * Orientation rules: [2]'s own rules were not available here; these are OURS, in
//    its model (a node sees only its partner's colour and state): on an edge where
//    both ends point at each other the responder points elsewhere (turn.u.v.k, any
//    colour k other than the initiator's: nondeterministic, resolved by global
//    fairness); on an edge where neither points at the other the responder points at
//    the initiator (face.u.v). A consistently oriented ring enables neither rule.
{COLORING_NOTE}
//  * Properties (ours, the paper does not state them): prop 1 = <>[] (colored &&
//    oriented), the ring is eventually always consistently oriented (all successors
//    clockwise or all counter-clockwise); prop 2 = <>[] colored, the coloring layer
//    stabilises. Both under strong global fairness as in 001.
#define N {n};
#define C {COLORS};
var color[N]; var bit[{n * COLORS}]; var succ[N];
Node(u) = {_coloring_rules("(u + 1)%N")}
    [] {_coloring_rules("(u + N - 1)%N")}
    [] {_orient_rules("(u + 1)%N")}
    [] {_orient_rules("(u + N - 1)%N")};
{_coloring_init(n, with_succ=True)}
OrientingRings() = Init(); (||| x:{{0..N - 1}}@Node(x));

#define colored ({_colored(n)});
#define oriented ({_colored(n)}) && (({cw}) || ({ccw}));
#assert OrientingRings() |= <> []oriented;
#assert OrientingRings() |= <> []colored;
"""


KV = """//@@KV: K-valued single-writer multi-reader register from binary registers@@
// Sources and modelling decisions (issue 6):
//  * 002 (fair-process-counter-abstraction) section 6, model KV, "a K-valued register
//    [3]": "A shared K-valued multi-reader single-writer register R can be simulated by
//    an array of K binary registers. When the single writer process wants to write v
//    into R, it will set the v-th element of B to 1 and then set all the values before
//    v-th element to 0. When a reader wants to read the value, it will do an upwards
//    scan first from 0 to the first element u whose value is 1, then do a downwards
//    scan from u to 0 and remember the index of the last element with value 1, which is
//    the return value of the reading operation." Property PropKvalue =
//    [](read_inv -> <> read_res). Every rule below is that text, one binary-register
//    access per step (writer: write.v sets B[v], clear.j clears B[j] for j = v-1 .. 0,
//    write_res ends the write; reader: up_zero/up_one read B[j] going up, down_zero/
//    down_one going down, read_res returns 'last').
//  * OURS: N (the table's #Proc) counts all processes: one writer and N - 1 readers.
//    The writer clears from v - 1 down to 0 (the paper gives no order; downwards is
//    the order of Lamport's construction, "On interprocess communication", 1986).
//    K = 3 values (the paper does not give K); the register starts holding 0
//    (B = [1, 0, 0]); the writer writes any value, forever. Processes are identical
//    and their events carry no identity (the setting of 002), so read_inv/read_res are
//    the paper's event names. The upward scan never passes the highest set bit (a write
//    sets B[v] before clearing below v), so 'up_zero' at j = K - 1 cannot happen; we
//    guard it with j < K - 1 rather than index out of the array (the guards on
//    the constant j come first, so that the front-end unfolds a finite process).
// N is instantiated by the regression runner (it rewrites '#define N ...;').
#define N 3;
#define K 3;
var B = [1, 0, 0];
Writer() = write.0{B[0] = 1;} -> Clear(-1)
    [] write.1{B[1] = 1;} -> Clear(0)
    [] write.2{B[2] = 1;} -> Clear(1);
Clear(j) = [j >= 0] clear.j{B[j] = 0;} -> Clear(j - 1)
    [] [j < 0] write_res -> Writer();
Reader(i) = read_inv -> Up(i, 0);
Up(i, j) = [B[j] == 1] up_one.j -> Down(i, j - 1, j)
    [] [j < K - 1] ([B[j] == 0] up_zero.j -> Up(i, j + 1));
Down(i, j, last) = [j >= 0] ([B[j] == 1] down_one.j -> Down(i, j - 1, j)
        [] [B[j] == 0] down_zero.j -> Down(i, j - 1, last))
    [] [j < 0] read_res -> Reader(i);
KValued() = Writer() ||| (||| i:{0..N - 2}@Reader(i));

#assert KValued() |= [](read_inv -> <> read_res);
"""


STACK = """//@@Stack: Treiber's lock-free stack@@
// Sources and modelling decisions (issue 6):
//  * 002 (fair-process-counter-abstraction) section 6, model Stack, "a lock-free stack
//    [28]": "the stack can be implemented by a linked list, which is shared by arbitrary
//    number of processes. Each push or pop operation keeps trying to update the stack
//    until no other process interrupts." Property Propstack = [](push_inv -> <> push_res),
//    "false even under strong fairness".
//  * The algorithm is Treiber's (IBM RJ 5118, 1986): push(c): t = top; c.next = t;
//    CAS(top, t, c), retried on failure; pop: t = top; if t is null return empty;
//    n = t.next; CAS(top, t, n), retried on failure. One shared access per step:
//    push_inv (invocation with the first read of top; the private cell is linked in
//    the same step), pcas_fail then pread (retry), push_res (the successful CAS: the
//    operation takes effect and returns); pop_inv (invocation with the first read of
//    top), qnext (read t.next), pop_res (successful CAS), qcas_fail then qread (retry),
//    pop_empty (top was null: the pop returns "empty" and the process pops again).
//    Invocations and responses share a step with the first/last shared access so that
//    the state space stays small enough for N = 5..10 (002 used counter abstraction).
//  * OURS (bounded memory, as the paper's model must have): N processes and N cells;
//    process i starts owning cell i; a push links the owned cell, a pop takes the
//    popped cell into ownership; each process alternates push and pop (a process that
//    popped nothing pops again). Local variables t[i], n[i] and own[i] are global
//    arrays indexed by the process (reset after use). A successful pop clears the
//    popped cell's next field (t.next = null, as garbage-collected implementations do).
//    No version tag on 'top', so the ABA problem of the untagged stack is present; it
//    affects what pops return, not whether a push is retried.
//  * OURS: the property is for process 0 (push_inv.0, push_res.0): with anonymous
//    events another process's push_res would satisfy it, while the paper's property is
//    that "a process must eventually be able to update the stack".
// N is instantiated by the regression runner (it rewrites '#define N ...;').
#define N 3;
var top = -1; var next[N]; var own[N]; var t[N]; var n[N];
Proc(i) = start.i{own[i] = i; t[i] = -1; n[i] = -1;} -> Push(i);
Push(i) = push_inv.i{t[i] = top; next[own[i]] = top;} -> PCas(i);
PRead(i) = pread.i{t[i] = top; next[own[i]] = top;} -> PCas(i);
PCas(i) = [top == t[i]] push_res.i{top = own[i]; own[i] = -1; t[i] = -1;} -> Pop(i)
    [] [top != t[i]] pcas_fail.i -> PRead(i);
Pop(i) = pop_inv.i{t[i] = top;} -> QNext(i);
QRead(i) = qread.i{t[i] = top;} -> QNext(i);
QNext(i) = [t[i] == -1] pop_empty.i -> Pop(i)
    [] [t[i] != -1] qnext.i{n[i] = next[t[i]];} -> QCas(i);
QCas(i) = [top == t[i]] pop_res.i{top = n[i]; next[t[i]] = -1; own[i] = t[i]; t[i] = -1; n[i] = -1;} -> Push(i)
    [] [top != t[i]] qcas_fail.i{n[i] = -1;} -> QRead(i);
Stack() = ||| i:{0..N - 1}@Proc(i);

#assert Stack() |= [](push_inv.0 -> <> push_res.0);
"""


ML = """//@@ML: Java meta-lock (Agesen et al.)@@
// Sources and modelling decisions (issue 6):
//  * 002 (fair-process-counter-abstraction) section 6, model ML, "the Java meta-lock
//    algorithm [1]": "designed to ensure the mutually exclusive access to an object. A
//    synchronized method first acquires a lock on the object, executes the method and
//    then releases the lock. The property is that always eventually some thread is
//    accessing the object, i.e., []<> access, which is true without fairness."
//  * The protocol is that of Agesen, Detlefs, Garthwaite, Knippel, Ramakrishna and
//    White, "An efficient meta-lock for implementing ubiquitous synchronization"
//    (OOPSLA 1999), as we know it: getMetaLock SWAPs a 'busy' header into the object;
//    if the old header was not busy the thread has the meta-lock (get_fast), otherwise
//    (get_slow) it must be handed the header by its predecessor. releaseMetaLock CASes
//    the header back; the CAS succeeds iff nobody swapped in since (rel_fast), else
//    (rel_slow) the releaser hands off: if its successor has already registered it is
//    granted the header (handoff) and woken (wake), otherwise the releaser leaves the
//    header ready (deposit) and the successor takes it when it registers (take) instead
//    of waiting (enqueue). Registration and hand-off are each one atomic step (in [1]
//    both run under the predecessor's mutex).
//  * OURS (abstraction): threads are identical and carry no identity (the setting of
//    002, needed for process counter abstraction); the chain "successor of the releaser"
//    is abstracted to counters: 'swapped' threads have swapped but not registered,
//    'waiting' ones registered and wait, 'ready'/'granted' count deposited and granted
//    hand-offs. A hand-off may go to any swapped/waiting thread, not only the
//    releaser's immediate successor: this adds behaviours, so []<> access holding here
//    implies it for the FIFO protocol. 'access' is the synchronized method (its event
//    carries no thread identity, as in the paper's property).
// N is instantiated by the regression runner (it rewrites '#define N ...;').
#define N 10;
var busy = 0; var swapped = 0; var waiting = 0; var ready = 0; var granted = 0;
Thread(i) = [busy == 0] get_fast{busy = 1;} -> Holding(i)
    [] [busy == 1] get_slow{swapped = swapped + 1;} -> Register(i);
Register(i) = [ready > 0] take{ready = ready - 1; swapped = swapped - 1;} -> Holding(i)
    [] [ready == 0] enqueue{swapped = swapped - 1; waiting = waiting + 1;} -> Waiting(i);
Waiting(i) = [granted > 0] wake{granted = granted - 1;} -> Holding(i);
Holding(i) = access -> Release(i);
Release(i) = [swapped + waiting == 0] rel_fast{busy = 0;} -> Thread(i)
    [] [swapped + waiting > 0] rel_slow -> HandOff(i);
HandOff(i) = [waiting > 0] handoff{waiting = waiting - 1; granted = granted + 1;} -> Thread(i)
    [] [waiting == 0] deposit{ready = ready + 1;} -> Thread(i);
MetaLock() = ||| i:{0..N - 1}@Thread(i);

#assert MetaLock() |= []<> access;
"""


SIZES: dict[str, tuple[int, ...]] = {
    "le_r": (3, 4, 5, 6, 7, 8),
    "tc_r": (3, 4, 5, 6, 7, 8, 9, 11, 13),
    "le_c": (3, 4, 5, 6, 7, 8),
    "le_or": (3, 5, 7),
    "peterson": (3, 4, 5),
    "promela_le_c": (3, 4, 5, 6),
    "promela_tc_r": (3, 4, 5, 6),
    "le_t": (3, 5, 7, 9, 11, 13),
    "two_hop_coloring": (3,),
    "orienting_rings": (3, 4, 5),
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
    out[HERE / "kv" / "kv.csp"] = KV
    out[HERE / "stack" / "stack.csp"] = STACK
    out[HERE / "ml" / "ml.csp"] = ML
    for n in SIZES["le_t"]:
        out[HERE / "le_t" / f"le_t_{n}.csp"] = le_t(n)
    for n in SIZES["two_hop_coloring"]:
        out[HERE / "two_hop_coloring" / f"two_hop_coloring_{n}.csp"] = two_hop_coloring(n)
    for n in SIZES["orienting_rings"]:
        out[HERE / "orienting_rings" / f"orienting_rings_{n}.csp"] = orienting_rings(n)
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
