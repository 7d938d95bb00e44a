"""State spaces of lowered CSP# models against counts derived by hand (cspsharp.md 7).

These run the engine (bridge.semantics) on the front-end's IR, so they test that the
lowering gives PAT's transition system: one state per PAT state (no stale locals, no
extra steps for process references or ``Skip ; Q``), joint barriers, rendezvous.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from bridge.frontends.csp import load_csp
from bridge.ir import Fairness, Outcome, PropertyKind, TransitionSystem

explore_mod = importlib.import_module("bridge.semantics.explore")
explore = explore_mod.explore
check_property = explore_mod.check_property

MODELS = Path(__file__).resolve().parents[3] / "models" / "csp"


def load(name: str, text: str | None = None) -> TransitionSystem:
    path = MODELS / name
    return load_csp(str(path), text).systems[0]


def counts(ts: TransitionSystem) -> tuple[int, int]:
    stats = explore(ts)
    return stats.states, stats.transitions


def verdict(ts: TransitionSystem, kind: PropertyKind) -> Outcome:
    prop = next(p for p in ts.properties if p.kind is kind)
    return check_property(ts, prop).outcome


def test_independent_counters_interleave() -> None:
    """a in 0..2 and b in 0..3 step independently: 3 * 4 = 12 states; a can step in the
    2 * 4 states with a < 2, b in the 3 * 3 states with b < 3: 17 steps; (2, 3) has no
    step, so deadlockfree fails and 'full' is reachable."""
    ts = load("counters.csp")
    assert counts(ts) == (12, 17)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.VIOLATED
    assert verdict(ts, PropertyKind.REACHES) is Outcome.HOLDS


def test_synchronising_pair() -> None:
    """P = a -> b -> P, Q = a -> c -> Q under ||: 'a' is a barrier. States (P, Q):
    (0,0) -a-> (1,1); (1,1) -b-> (0,1) and -c-> (1,0); (0,1) -c-> (0,0);
    (1,0) -b-> (0,0). 4 states, 5 steps, deadlock-free."""
    ts = load("sync_pair.csp")
    assert counts(ts) == (4, 5)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS


def test_rendezvous_with_dead_local_reset() -> None:
    """S(1) ||| R over a synchronous channel: (S1,R0) -c.1-> (S2,R1 x=1) -got.1->
    (S2,R0) -c.2-> (S1,R1 x=2) -got.2-> (S1,R0): 4 states, 4 steps. Were the dead
    x not reset, (S2,R0,x=1) and (S1,R0,x=2) would be new states (6 in all)."""
    ts = load("channel_pair.csp")
    assert counts(ts) == (4, 4)


def test_token_ring_demo() -> None:
    """cspsharp.md 7.1. owner/state[] are determined by which node (if any) holds and
    where (after grab or after work): 1 + 3 * 2 = 7 holder situations; the Watcher is
    idle or has seen one of 3 nodes: 4. All 7 * 4 = 28 combinations are reachable.
    Steps: no holder and idle watcher: 3 grabs + 3 handshakes; no holder, busy watcher
    (3 states): 3 grabs + seen = 4 each; a holder (6 situations): its own step plus 2
    handshakes (idle watcher) or seen (3 busy watchers, 2 steps each): 9 per holder.
    6 + 12 + 6 * 9 = 72 steps."""
    ts = load("token_ring.csp")
    assert counts(ts) == (28, 72)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS
    # 'clash' needs owner != -1 with state[owner] == FREE: never (&& short-circuits)
    assert verdict(ts, PropertyKind.REACHES) is Outcome.VIOLATED


def test_sequential_composition_has_no_extra_steps() -> None:
    """P = a -> Skip; b -> Skip: PAT shortcuts 'Skip ; Q' to Q, so the states are
    a->..., after a, after b (Skip), after terminate: 4 states, 3 steps."""
    ts = load_csp("t.csp", "P = (a -> Skip); b -> Skip;\n#assert P deadlockfree;").systems[0]
    assert counts(ts) == (4, 3)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS


def test_interleaving_terminates_jointly() -> None:
    """A = a -> Skip ||| B = b -> Skip: (A0,B0), (A1,B0), (A0,B1), (A1,B1) and the
    joint terminate to (T,T): 5 states, 2 + 2 + 1 = 5 steps."""
    text = "A = a -> Skip;\nB = b -> Skip;\nP = A ||| B;\n#assert P nonterminating;"
    ts = load_csp("t.csp", text).systems[0]
    assert counts(ts) == (5, 5)
    assert verdict(ts, PropertyKind.NONTERMINATING) is Outcome.VIOLATED


def test_initialisation_prefix_then_composition() -> None:
    """Init = x0 in {0,1} then x1 in {0,1}, then Node(0) ||| Node(1), each flipping its
    own bit forever: during Init 1 + 2 states, then 2 * 2 = 4 bit vectors, all
    reachable from each other: 3 + 4 = 7 states; steps 2 + 4 (Init) + 4 * 2 = 14."""
    text = (
        "var x[2];\nInit = (set.0.0{x[0] = 0;} -> Skip [] set.0.1{x[0] = 1;} -> Skip);\n"
        "  (set.1.0{x[1] = 0;} -> Skip [] set.1.1{x[1] = 1;} -> Skip);\n"
        "Node(i) = flip.i{x[i] = 1 - x[i];} -> Node(i);\n"
        "Sys = Init; (||| i:{0..1} @ Node(i));\n#assert Sys deadlockfree;"
    )
    ts = load_csp("t.csp", text).systems[0]
    assert counts(ts) == (7, 14)


def test_interrupt() -> None:
    """(a -> b -> Skip) interrupt (c -> Stop): a, b then terminate, with c possible in
    each of the three states before termination (it discards the left side):
    3 + Stop + terminated = 5 states, 2 + 2 + 2 = 6 steps."""
    text = "P = (a -> b -> Skip) interrupt (c -> Stop);\n#assert P deadlockfree;"
    ts = load_csp("t.csp", text).systems[0]
    assert counts(ts) == (5, 6)


def test_interrupt_then_sequence() -> None:
    """((a -> Skip) interrupt (c -> Stop)); d -> Skip: after a the left side can
    terminate, which hands over to 'd -> Skip' as tau; c leads to 'Stop; ...'. States:
    start, after a, d -> Skip, Stop;..., after d, terminated: 6; steps 2 + 2 + 1 + 1 = 6."""
    text = "P = ((a -> Skip) interrupt (c -> Stop)); d -> Skip;\n#assert P deadlockfree;"
    ts = load_csp("t.csp", text).systems[0]
    assert counts(ts) == (6, 6)


def test_data_operation_with_a_shared_name_interleaves() -> None:
    """A = a -> a{x = 1;} -> A and B = a -> b -> B under ||: the plain 'a' is a barrier,
    the data operation 'a' is not (cspsharp.md 7). From (A0,B0,x) the joint a leads to
    (A1,B1,x); there A's data op gives (A0,B1,1) and B's b gives (A1,B0,x); both lead
    to (A0,B0,1). States with x = 0: (A0,B0), (A1,B1), (A1,B0); with x = 1: (A0,B1),
    (A0,B0), (A1,B1), (A1,B0): 7 states. Steps: one joint a from each (A0,B0), two from
    each (A1,B1), one from each of the others: 1 + 2 + 1 + 1 + 1 + 2 + 1 = 9. Were the
    data operation a barrier, (A1,B0) would have no step."""
    text = ("var x = 0;\nA = a -> a{x = 1;} -> A;\nB = a -> b -> B;\nS = A || B;\n"
            "#assert S deadlockfree;")
    ts = load_csp("t.csp", text).systems[0]
    assert counts(ts) == (7, 9)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS


def test_guarded_receive_checks_the_buffer_head() -> None:
    """S sends 1 then 3 into a 2-place buffer; R = c?[v > 2]v -> ... only accepts a head
    above 2, so it never receives: 3 states, 2 steps, then a deadlock."""
    text = ("channel c 2;\nS = c!1 -> c!3 -> Stop;\nR = c?[v > 2]v -> got.v -> Stop;\n"
            "Sys = S ||| R;\n#assert Sys deadlockfree;")
    ts = load_csp("t.csp", text).systems[0]
    assert counts(ts) == (3, 2)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.VIOLATED


def test_atomic_has_priority_from_its_first_step() -> None:
    """cspsharp.md 9.2, decided as PAT >= 3.4.2: A = atomic{a -> b -> Skip} runs a and
    b before B's c can interleave, so the states are: start, after a, after b, after c,
    terminated (joint terminate of |||): 5 states, 4 steps. Were only the steps after
    the first atomic, c could also come first: 3 more states (8)."""
    text = ("var x = 0;\nA = atomic { a{x = 1;} -> b{x = 2;} -> Skip };\n"
            "B = c{x = 5;} -> Skip;\nSys = A ||| B;\n#assert Sys deadlockfree;")
    ts = load_csp("t.csp", text).systems[0]
    assert counts(ts) == (5, 4)


def test_hidden_variable_is_not_part_of_the_state_identity() -> None:
    """hvar h counts a's; states that differ only in h are one state (PAT): 1 state
    (a self-loop) with hvar, 4 states with var."""
    loop = "P = [h < 3] a{h = h + 1;} -> P;\n#assert P deadlockfree;"
    assert counts(load_csp("t.csp", "hvar h = 0;\n" + loop).systems[0]) == (1, 1)
    assert counts(load_csp("t.csp", "var h = 0;\n" + loop).systems[0]) == (4, 3)


def test_global_arguments_are_read_when_unfolded() -> None:
    """A(p) = [x < 2] a{x = x + 1;} -> b.p -> A(x) started as A(x): PAT evaluates x when
    A(x) is unfolded, i.e. before each a: the run is a, b.0, a, b.1 and then x = 2
    blocks. A(x) written in two places is one location: 5 states, 4 steps."""
    text = ("var x = 0;\nA(p) = [x < 2] a{x = x + 1;} -> b.p -> A(x);\nSys = A(x);\n"
            "#assert Sys deadlockfree;")
    ts = load_csp("t.csp", text).systems[0]
    assert len(ts.processes[0].locations) == 2
    assert counts(ts) == (5, 4)
    space = importlib.import_module("bridge.semantics.statespace").build_state_space(ts)
    state = space.initial_states()[0]
    names = []
    while (succ := space.successors(state)):
        step, state = succ[0]
        names.append(step.event)
    assert names == ["a", "b.0", "a", "b.1"]


def test_states_keep_only_the_bindings_the_term_can_read() -> None:
    """S sends 0, 1, 0, ... into a one-place buffer; A(p) = a.p -> ch?w -> A(w) starts
    as A(0). PAT states are (A-term, S-term, buffer): A(0), A(1) or R = 'ch?w -> A(w)'
    (p no longer appears in R), S about to send 0 or 1, buffer empty or one value.
    By hand (BFS): (A0,S0,-) (R,S0,-) (A0,S1,0) (R,S1,0) (A0,S1,-) (R,S1,-) (A0,S0,1)
    (R,S0,1) (A1,S0,-) (A1,S1,0): 10 states, 2+1+1+1+2+1+1+1+2+1 = 13 steps. Keeping
    p in R would split (R,S0,-) and (R,S1,0) by p (12 states); specialising A(0) apart
    from A(w) with w = 0 would add more."""
    text = ("channel ch 1;\nS = ch!0 -> ch!1 -> S;\nA(p) = a.p -> ch?w -> A(w);\n"
            "Sys = A(0) ||| S;\n#assert Sys deadlockfree;")
    assert counts(load_csp("t.csp", text).systems[0]) == (10, 13)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_dining_philosophers_deadlock(n: int) -> None:
    """dp(N) of paper 000 Table 3: every philosopher can take its right fork, then
    nobody can continue: deadlockfree fails."""
    text = re.sub(r"#define N \d+;", f"#define N {n};",
                  (MODELS / "dining_philosophers.csp").read_text())
    ts = load("dining_philosophers.csp", text)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.VIOLATED


def test_dining_philosophers_two() -> None:
    """dp(2): phil i takes get.i.(i+1)%2 first. Forks: Fork(x) offers get.x.x or
    get.(x-1)%2.x. States (by hand): initial; phil 0 holds fork 1 / phil 1 holds fork 0
    / both (deadlock); then each one's eat path: holding both forks (get.i.i), after
    eat, after put.i.(i+1) — 3 states per philosopher, the other idle: 1 + 2 + 1 +
    2 * 3 = 10 states."""
    text = re.sub(r"#define N \d+;", "#define N 2;",
                  (MODELS / "dining_philosophers.csp").read_text())
    ts = load("dining_philosophers.csp", text)
    assert counts(ts)[0] == 10


fairness_mod = importlib.import_module("bridge.fairness.check")


@pytest.mark.parametrize(
    "fairness, outcome",
    [
        (Fairness.NONE, Outcome.VIOLATED),
        (Fairness.WEAK, Outcome.VIOLATED),
        (Fairness.PROCESS_WEAK, Outcome.VIOLATED),
        (Fairness.PROCESS_STRONG, Outcome.VIOLATED),
        (Fairness.STRONG_LOCAL, Outcome.HOLDS),
        (Fairness.STRONG_GLOBAL, Outcome.HOLDS),
    ],
)
def test_token_ring_work_under_each_fairness(fairness: Fairness, outcome: Outcome) -> None:
    """cspsharp.md 7.1: []<> work.1 fails unless strong local or strong global fairness
    is assumed (Node 1 can stay served only through hand.1)."""
    ts = load("token_ring.csp")
    prop = next(p for p in ts.properties if p.text.endswith("[]<> work.1"))
    v = fairness_mod.check_ltl(ts, prop, fairness_mod.LtlOptions(fairness=fairness))
    assert v.outcome is outcome


def test_fig1_case_nodes_drop_out_when_no_rule_applies() -> None:
    """Paper 000 Fig. 1 verbatim: from all-zero bits with guess = true no rule of the
    'case' applies, so each node takes the tau step to Skip (section 9.7) and only the
    detector keeps running: <>[] oneLeader is violated even under strong global
    fairness, by a lasso in which nodes take the 'case default' step."""
    ts = load("leader_election_ring.csp")
    prop = ts.properties[0]
    v = fairness_mod.check_ltl(ts, prop, fairness_mod.LtlOptions(
        fairness=Fairness.STRONG_GLOBAL))
    assert v.outcome is Outcome.VIOLATED and v.lasso is not None
    texts = [step.text for step in v.lasso.prefix.steps + v.lasso.loop]
    assert "case default" in texts
