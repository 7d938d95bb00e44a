"""Parallel compositions nested under a prefix or followed by ';' (cspsharp.md 7).

The lowering unfolds such a composition, when it is reached at most once in any run,
into static instances that start dormant. These tests pin the IR shape, and the state
and step counts, verdicts and refusals against answers worked out by hand from PAT's
rules: a process reference or the start of a composition is no step; ``P ||| Q`` and
``P || Q`` terminate jointly (one ``terminate`` step); ``P ; Q`` is ``Q`` at once when
``P`` is Skip or a composition whose operands are all Skip (PAT's ``Sequence`` asks
``IsSkip()``, true for an interleaving/parallel of Skips), so a composition followed
by ';' hands over with no step of its own.
"""

from __future__ import annotations

import importlib

import pytest

from bridge.diagnostics import UnsupportedError
from bridge.frontends.csp import load_csp
from bridge.ir import (
    Fairness,
    InstanceRef,
    Interleave,
    Outcome,
    Parallel,
    PropertyKind,
    TransitionSystem,
)

explore_mod = importlib.import_module("bridge.semantics.explore")
fairness_mod = importlib.import_module("bridge.fairness.check")


def system(text: str) -> TransitionSystem:
    return load_csp("nested.csp", text).systems[0]


def counts(ts: TransitionSystem) -> tuple[int, int]:
    stats = explore_mod.explore(ts)
    return stats.states, stats.transitions


def verdict(ts: TransitionSystem, kind: PropertyKind) -> Outcome:
    prop = next(p for p in ts.properties if p.kind is kind)
    return explore_mod.check_property(ts, prop).outcome


def ltl(ts: TransitionSystem, fairness: Fairness) -> Outcome:
    prop = next(p for p in ts.properties if p.kind is PropertyKind.LTL)
    options = fairness_mod.LtlOptions(fairness=fairness)
    return fairness_mod.check_ltl(ts, prop, options).outcome


# ---------------------------------------------------------------------------------
# IR shape


def test_prefix_then_interleaving_ir() -> None:
    """init -> (b -> Skip ||| c -> Skip): the operands are two more instances whose
    first edges wait for the flag the parent's 'a' step sets; the parent's only step
    afterwards is a terminate that is a barrier with the operands' joint terminate."""
    ts = system("P = a -> (b -> Skip ||| c -> Skip);\n#assert P deadlockfree;")
    assert [i.name for i in ts.instances] == ["P()", "P.1", "P.2"]
    flag = next(g for g in ts.globals if g.name.startswith("_started"))
    parent = ts.process("P()")
    start = parent.edges[0]
    assert start.event is not None and start.event.base == "a"
    assert any(getattr(st.target, "name", None) == flag.name for st in start.effect)
    [tail] = [e for e in parent.edges if e.source == start.target]
    assert tail.event is not None and tail.event.base == "terminate"
    for name in ("P.1", "P.2"):
        first = [e for e in ts.process(name).edges if e.source == 0]
        assert first and all(flag.name in repr(e.guard) for e in first)
    comp = ts.composition
    assert isinstance(comp, Parallel) and comp.children[0] == InstanceRef(0)
    assert comp.alphabets == (frozenset({"terminate"}), frozenset({"terminate"}))
    assert isinstance(comp.children[1], Parallel)  # two terminating operands


def test_sequential_continuation_ir() -> None:
    """(a -> Skip ||| b -> Skip); c -> Skip: operands park at Skip (no terminate edge),
    each counting a global down from 2; the parent's waiting location has c's edge,
    enabled at 0 (no tau edge)."""
    ts = system("P = (a -> Skip ||| b -> Skip); c -> Skip;\n#assert P deadlockfree;")
    join = next(g for g in ts.globals if g.name.startswith("_joined"))
    assert getattr(join.init, "value", None) == 2
    parent = ts.process("P()")
    wait = parent.edges[0]
    assert wait.event is not None and wait.event.base == "c"
    assert join.name in repr(wait.guard)
    assert all(e.event is not None for e in parent.edges)
    for name in ("P.1", "P.2"):
        p = ts.process(name)
        assert all(e.event is None or e.event.base != "terminate" for e in p.edges)
        assert [loc.terminal for loc in p.locations] == [False, True]
    assert isinstance(ts.composition, Interleave)


# ---------------------------------------------------------------------------------
# State spaces against hand counts


def test_prefix_then_interleaving_counts() -> None:
    """P0 -a-> (b,c) with 2 * 2 operand states, then the joint terminate: 1 + 4 + 1 = 6
    states; steps a, b, c, c, b, terminate = 6. It terminates: no deadlock."""
    ts = system("P = a -> (b -> Skip ||| c -> Skip);\n#assert P deadlockfree;\n"
                "#assert P nonterminating;")
    assert counts(ts) == (6, 6)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS
    assert verdict(ts, PropertyKind.NONTERMINATING) is Outcome.VIOLATED


def test_interleaving_then_continuation_is_deadlock_free() -> None:
    """(a -> Skip ||| b -> Skip); c -> Skip: (a,b), (Skip,b), (a,Skip), then both Skip,
    which is 'c -> Skip' itself, then Skip and the terminated state: 6 states; steps
    a, b, b, a, c, terminate = 6."""
    ts = system("P = (a -> Skip ||| b -> Skip); c -> Skip;\n#assert P deadlockfree;\n"
                "#assert P divergencefree;")
    assert counts(ts) == (6, 6)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS
    assert verdict(ts, PropertyKind.DIVERGENCE_FREE) is Outcome.HOLDS


def test_barrier_between_dormant_operands() -> None:
    """start -> (a -> b -> Skip || a -> c -> Skip); done -> Skip, alphabets {a, b} and
    {a, c}: a is one joint step. States: start, (a,a), (b,c), (S,c), (b,S), (S,S) =
    'done -> Skip', Skip, terminated = 8; steps start, a, b, c, c, b, done, terminate
    = 8."""
    ts = system("Sys = start -> (a -> b -> Skip || a -> c -> Skip); done -> Skip;\n"
                "#assert Sys deadlockfree;")
    assert counts(ts) == (8, 8)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS


def test_barrier_deadlock_inside_nested_composition() -> None:
    """(a -> b -> Skip || b -> a -> Skip) blocks at once on both barriers: start, then
    a deadlock (2 states, 1 step), and 'done' is never reached."""
    ts = system("Sys = start -> (a -> b -> Skip || b -> a -> Skip); done -> Skip;\n"
                "#assert Sys deadlockfree;")
    assert counts(ts) == (2, 1)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.VIOLATED


def test_nested_operands_synchronise_with_a_top_level_sibling() -> None:
    """X || Y, X = a -> (b -> Skip ||| c -> Skip), Y = b -> c -> Skip: X's alphabet is
    {a, b, c} (its operands' events count), so b and c are barriers with Y:
    (X0,Y0) -a-> (bc,Y0) -b-> (Sc,Y1) -c-> (SS,Skip) -terminate->: 5 states, 4 steps."""
    ts = system("Sys = X || Y;\nX = a -> (b -> Skip ||| c -> Skip);\nY = b -> c -> Skip;\n"
                "#assert Sys deadlockfree;")
    assert counts(ts) == (5, 4)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS


def test_two_compositions_in_sequence() -> None:
    """(a -> Skip ||| b -> Skip); (c -> Skip ||| d -> Skip): 3 states, then (c,d) when
    a and b are Skip, 4 states, the joint terminate: 8 states; 4 + 4 + 1 = 9 steps."""
    ts = system("Sys = (a -> Skip ||| b -> Skip); (c -> Skip ||| d -> Skip);\n"
                "#assert Sys deadlockfree;")
    assert counts(ts) == (8, 9)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS


def test_composition_nested_in_an_operand_under_sequence() -> None:
    """(go -> (a -> Skip ||| b -> Skip) ||| c -> Skip); d -> Skip: the left operand has
    1 + 4 configurations, the right 2: 10 states, the last being 'd -> Skip', then
    Skip and terminated: 12 states; steps 5 * 2 (left) + 5 (c) + d + terminate = 17."""
    ts = system("Sys = (go -> (a -> Skip ||| b -> Skip) ||| c -> Skip); d -> Skip;\n"
                "#assert Sys deadlockfree;")
    assert counts(ts) == (12, 17)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS


def test_terminating_sibling_waits_for_the_nested_operands() -> None:
    """X ||| Z, X = init -> (p -> Skip ||| q -> Skip), Z = z -> Skip: X has 1 + 4
    configurations, Z 2: 10 states and the joint terminate of all: 11 states;
    steps 5 * 2 + 5 + 1 = 16."""
    ts = system("Sys = X ||| Z;\nX = init -> (P() ||| Q());\nP() = p -> Skip;\n"
                "Q() = q -> Skip;\nZ = z -> Skip;\n#assert Sys deadlockfree;")
    assert counts(ts) == (11, 16)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS


def test_declared_alphabet_is_the_owners_not_the_inline_operands() -> None:
    """#alphabet X {a, b}; X = a -> (b -> Skip || c -> Skip) || Y = a -> b -> Skip:
    the inner '||' has alphabets {b} and {c} (inline operands do not take X's), and X
    counts {a, b} outside, so c is free: (X0,Y0) -a-> (bc,Y1); b is joint with Y and c
    is X's own: (Sc,Skip), (bS,Y1), (SS,Skip), then terminate: 6 states; steps a, b,
    c, c, b, terminate = 6."""
    ts = system("#alphabet X {a, b};\nSys = X || Y;\nX = a -> (b -> Skip || c -> Skip);\n"
                "Y = a -> b -> Skip;\n#assert Sys deadlockfree;")
    comp = ts.composition
    assert isinstance(comp, Parallel)
    assert comp.alphabets[0] == frozenset({"a", "b", "terminate"})
    assert counts(ts) == (6, 6)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS


def test_compositions_one_after_another_in_a_process() -> None:
    """(a,b); (c,d); e -> Skip as one process: 3 states, (c,d) and 2 more, then
    'e -> Skip', Skip, terminated: 9 states, 4 + 4 + 1 + 1 = 10 steps. With the second
    composition at the end after a prefix h (go first): start, (a,b) and 3 more (the
    last is 'h -> ...'), (c,d) and 3 more, terminated: 10 states; go, 4, h, 4,
    terminate = 11 steps, and it terminates."""
    ts = system("Sys = (a -> Skip ||| b -> Skip); (c -> Skip ||| d -> Skip); e -> Skip;\n"
                "#assert Sys deadlockfree;")
    assert counts(ts) == (9, 10)
    ts = system("Sys = go -> (a -> Skip ||| b -> Skip); h -> (c -> Skip ||| d -> Skip);\n"
                "#assert Sys deadlockfree;\n#assert Sys nonterminating;")
    assert counts(ts) == (10, 11)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS
    assert verdict(ts, PropertyKind.NONTERMINATING) is Outcome.VIOLATED


def test_operand_that_is_skip_from_the_start() -> None:
    """(Skip ||| a -> Skip); c -> Skip: only the second operand is waited for:
    a (to 'c -> Skip'), c, terminate: 4 states, 3 steps."""
    ts = system("Sys = (Skip ||| a -> Skip); c -> Skip;\n#assert Sys deadlockfree;")
    assert counts(ts) == (4, 3)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS


def test_prefix_ending_in_a_choice_with_skip_hands_over() -> None:
    """(a -> Skip [] Skip); (b -> Skip ||| c -> Skip): both a and Skip's terminate (a
    tau under ';') lead to the composition's first state; then 4 states and the joint
    terminate: 6 states, 2 + 4 + 1 = 7 steps."""
    ts = system("Sys = (a -> Skip [] Skip); (b -> Skip ||| c -> Skip);\n"
                "#assert Sys deadlockfree;")
    assert counts(ts) == (6, 7)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS


def test_skip_prefix_hands_over_at_once() -> None:
    """Skip; (a -> Skip ||| b -> Skip) is the composition itself: 4 states of it and
    the terminated state, 5 steps (no step for the prefix)."""
    ts = system("Sys = Skip; (a -> Skip ||| b -> Skip);\n#assert Sys deadlockfree;")
    assert counts(ts) == (5, 5)


def test_composition_then_composition_then_more() -> None:
    """go -> (((Skip || e0 -> Skip); (e1 -> Skip ||| Skip)); e2 -> Skip): go, then
    e0 (after which the first composition is all Skip, so the second runs), e1 (all
    Skip again: this is 'e2 -> Skip'), e2, terminate: 6 states, 5 steps."""
    ts = system("Sys = go -> (((Skip || e0 -> Skip); (e1 -> Skip ||| Skip)); e2 -> Skip);\n"
                "#assert Sys deadlockfree;")
    assert counts(ts) == (6, 5)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS


def test_one_composition_reached_by_two_calls_in_sequence() -> None:
    """Round(0); Round(1), Round(r) = start.r -> (||| i:{0..1} @ Worker(i)); finish.r ->
    Skip: the composition is written once but reached twice, one after the other, so
    it is two sets of operands. start.0, 4 states (the last offers finish.0), start.1,
    4 states, Skip, terminated: 12 states; 1 + 4 + 1 + 1 + 4 + 1 + 1 = 13 steps; done
    reaches 4."""
    ts = system("var done = 0;\nWorker(i) = work.i{done = done + 1;} -> Skip;\n"
                "Round(r) = start.r -> (||| i:{0..1} @ Worker(i)); finish.r -> Skip;\n"
                "Sys = Round(0); Round(1);\n#define all done == 4;\n"
                "#assert Sys deadlockfree;\n#assert Sys reaches all;")
    assert len(ts.instances) == 5
    assert counts(ts) == (12, 13)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS
    assert verdict(ts, PropertyKind.REACHES) is Outcome.HOLDS


def test_copies_of_a_process_get_their_own_operands() -> None:
    """||| {2} @ X(), X() = a -> (b -> Skip ||| c -> Skip): each copy has 1 + 4
    configurations and its own operands and flag: 25 states and the joint terminate,
    26; steps 5 * 5 * 2 + 1 = 51."""
    ts = system("Sys = ||| {2} @ X();\nX() = a -> (b -> Skip ||| c -> Skip);\n"
                "#assert Sys deadlockfree;")
    assert len(ts.instances) == 6
    assert len([g for g in ts.globals if g.name.startswith("_started")]) == 2
    assert counts(ts) == (26, 51)


def test_non_terminating_operand_keeps_the_composition_alive() -> None:
    """init -> (P() ||| Q()), P() = p -> P(), Q() = q -> Skip: start, then P's one
    state times Q's two: 3 states; steps init, p, p, q = 4. Q at Skip cannot terminate
    alone, so the system never terminates and never deadlocks."""
    ts = system("Sys = init -> (P() ||| Q());\nP() = p -> P();\nQ() = q -> Skip;\n"
                "#assert Sys deadlockfree;\n#assert Sys nonterminating;")
    assert counts(ts) == (3, 4)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS
    assert verdict(ts, PropertyKind.NONTERMINATING) is Outcome.HOLDS


def test_data_written_by_operands_is_seen_after_the_join() -> None:
    """Two operands add 1 and 2 to x; the continuation is guarded by x == 3, so it
    always runs: states x=0, x=1, x=2, x=3 (both done: the guarded 'done'), Skip,
    terminated: 6 states; steps inc, add, add, inc, done, terminate = 6."""
    ts = system("var x = 0;\nSys = (inc{x = x + 1;} -> Skip ||| add{x = x + 2;} -> Skip);"
                " [x == 3] done -> Skip;\n#define three x == 3;\n"
                "#assert Sys deadlockfree;\n#assert Sys reaches three;")
    assert counts(ts) == (6, 6)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS
    assert verdict(ts, PropertyKind.REACHES) is Outcome.HOLDS


def test_rendezvous_between_dormant_operands() -> None:
    """go -> (c!1 -> Skip ||| c?x -> got.x -> Skip); done -> Skip over a synchronous
    channel: go, the handshake c.1, got.1, done, terminate: 6 states, 5 steps; over a
    one-place buffer c!1 and c?1 are two steps: 7 states, 6 steps."""
    body = "Sys = go -> (c!1 -> Skip ||| c?x -> got.x -> Skip); done -> Skip;\n"
    body += "#assert Sys deadlockfree;"
    assert counts(system("channel c 0;\n" + body)) == (6, 5)
    assert counts(system("channel c 1;\n" + body)) == (7, 6)


def test_continuation_that_loops_is_one_state() -> None:
    """(a -> Skip ||| b -> Skip); Loop, Loop = c -> Loop: when both are Skip the
    process is Loop, and c returns to that same state: 4 states, a, b, b, a, c = 5."""
    ts = system("Loop = c -> Loop;\nSys = (a -> Skip ||| b -> Skip); Loop;\n"
                "#assert Sys deadlockfree;")
    assert counts(ts) == (4, 5)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS


def test_loop_before_the_composition() -> None:
    """P = a -> (b -> Skip ||| c -> Skip) [] d -> P: reached at most once (d loops
    before it): P, 4 operand states, terminated: 6 states; d, a, b, c, c, b,
    terminate = 7 steps."""
    ts = system("P = a -> (b -> Skip ||| c -> Skip) [] d -> P;\n#assert P deadlockfree;")
    assert counts(ts) == (6, 7)
    assert verdict(ts, PropertyKind.DEADLOCK_FREE) is Outcome.HOLDS


def test_atomic_continuation_has_priority_after_the_join() -> None:
    """((a ||| b); atomic {c -> d -> Skip}) ||| e -> Skip: the left side has 6
    configurations (the 4th is the atomic block), the right 2; e is blocked while the
    atomic block runs (2 states): steps 6 * 2 + (6 - 2) + terminate = 17, 13 states."""
    ts = system("Sys = (a -> Skip ||| b -> Skip); atomic { c -> d -> Skip } ||| e -> Skip;\n"
                "#assert Sys deadlockfree;")
    assert counts(ts) == (13, 17)


def test_bookkeeping_names_avoid_user_declarations() -> None:
    """A user variable called like a bookkeeping global keeps its name and value."""
    ts = system("var _started0 = 5;\n#define p _started0 == 5;\n"
                "Sys = go -> (a -> Skip ||| b -> Skip); c -> Skip;\n#assert Sys |= [] p;")
    names = [g.name for g in ts.globals]
    assert len(names) == len(set(names)) == 3
    assert ltl(ts, Fairness.NONE) is Outcome.HOLDS


def test_bookkeeping_globals_do_not_split_states() -> None:
    """The same composition at top level and after a prefix: the prefixed system has
    exactly one state more (before 'start') and one step more."""
    top = system("Sys = (a -> b -> Skip || a -> c -> Skip);\n#assert Sys deadlockfree;")
    nested = system("Sys = start -> (a -> b -> Skip || a -> c -> Skip);\n"
                    "#assert Sys deadlockfree;")
    s, t = counts(top)
    assert counts(nested) == (s + 1, t + 1)


@pytest.mark.parametrize(
    "fairness, outcome",
    [(Fairness.NONE, Outcome.VIOLATED), (Fairness.WEAK, Outcome.HOLDS)],
)
def test_ltl_on_nested_operands(fairness: Fairness, outcome: Outcome) -> None:
    """start -> (a -> Skip ||| Loop), Loop = l -> Loop: <> a fails when l runs forever,
    and holds under weak fairness (a stays enabled)."""
    ts = system("Loop = l -> Loop;\nSys = start -> (a -> Skip ||| Loop);\n"
                "#assert Sys |= <> a;")
    assert ltl(ts, fairness) is outcome


# ---------------------------------------------------------------------------------
# What stays refused


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("P = a -> (b -> Skip || c -> Skip); P;", "nested under recursion, a loop"),
        ("P = (b -> Skip || c -> Skip); d -> P;", "nested under recursion, a loop"),
        ("P = x -> Loop [] y -> ((b -> Skip || c -> Skip); Loop);\nLoop = l -> Loop;",
         "what follows it is also reached without it"),
        ("P = a -> ((b -> Skip || c -> Skip); d -> Q) [] x -> Q;\nQ = q -> Q;",
         "reached both before and after"),
        ("P = a -> (P || b -> Skip);", "nested under recursion \\(a process call cycle"),
        ("P = Q(0);\nQ(i) = [i < 2] a.i -> (b -> Skip || Q(i + 1));",
         "nested under recursion \\(a process call cycle"),
        ("P = a -> (b -> Skip || c -> Skip) [] d -> Skip;", "nested under a choice"),
        ("P = (b -> Skip || c -> Skip) [] d -> Skip;", "nested under a choice, guard"),
        ("P = [true] (b -> Skip || c -> Skip);", "nested under a choice, guard"),
        ("P = atomic { a -> (b -> Skip || c -> Skip) };", "nested under a choice, guard"),
        ("A = a -> A;\nP = a -> ((A || A) \\ {a});", "nested under a choice, guard"),
        ("channel ch 1;\nP = ch?x -> (Q(x) || c -> Skip);\nQ(y) = e.y -> Skip;",
         "operands depend on a run-time value"),
        ("P = (b -> Skip ||| (c -> Skip [] Skip)); d -> Skip;",
         "may terminate other than by becoming Skip"),
        ("P = (b -> Skip ||| ((s -> Skip); (Skip ||| Skip))); d -> Skip;",
         "a sequential prefix before operands that are Skip"),
    ],
)
def test_refused_nested_compositions(text: str, fragment: str) -> None:
    with pytest.raises(UnsupportedError, match=fragment) as info:
        system(text + "\n#assert P deadlockfree;")
    span = info.value.diagnostics[0].span
    assert span is not None and span.file == "nested.csp" and span.line >= 1
