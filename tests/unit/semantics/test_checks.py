"""The non-LTL checks of explore.py with shortest traces (cspsharp.md section 6)."""

from __future__ import annotations

import pytest

from bridge.diagnostics import ResourceLimitReached
from bridge.ir import AssertStmt, Outcome, PropertyKind, SourceLanguage
from bridge.semantics.explore import ExploreOptions, check_property, explore, simulate
from tests.irbuild import (
    G,
    add,
    assign,
    counter,
    edge,
    eq,
    int_var,
    ix,
    lt,
    op,
    process,
    prop,
    system,
)


def bounded_counter(limit=3, language=SourceLanguage.CSP):
    """x counts 0..limit with event inc, then no step: limit + 1 states, a deadlock."""
    p = process("P", [edge(0, 0, guard=lt(G("x"), limit), effect=[assign("x", add(G("x"), 1))],
                           event="inc")])
    return system([p], [int_var("x")], language=language)


def test_deadlock_with_shortest_trace():
    v = check_property(bounded_counter(), prop(PropertyKind.DEADLOCK_FREE))
    assert v.outcome is Outcome.VIOLATED and v.reason == "deadlock"
    assert [s.event for s in v.trace.steps] == ["inc"] * 3
    assert v.trace.steps[-1].changes == (("x", 2, 3),)
    assert v.statistics.states == 4


def test_deadlock_free_and_terminated_states():
    ts = system([counter("C", "x", 3)], [int_var("x")])
    assert check_property(ts, prop(PropertyKind.DEADLOCK_FREE)).outcome is Outcome.HOLDS
    done = process("D", [edge(0, 1, event="go")], n_locations=2, terminal=[1])
    ts2 = system([done], language=SourceLanguage.CSP)
    assert check_property(ts2, prop(PropertyKind.DEADLOCK_FREE)).outcome is Outcome.HOLDS
    v = check_property(ts2, prop(PropertyKind.NONTERMINATING))
    assert v.outcome is Outcome.VIOLATED and v.reason == "terminated"


def test_assertion_violation_is_a_verdict():
    p = process("P", [edge(0, 0, guard=lt(G("x"), 5), effect=[
        assign("x", add(G("x"), 1)), AssertStmt(lt(G("x"), 3), "x < 3")])])
    v = check_property(system([p], [int_var("x")], language=SourceLanguage.PROMELA),
                       prop(PropertyKind.SAFETY))
    assert v.outcome is Outcome.VIOLATED and v.reason == "assertion violated"
    assert len(v.trace.steps) == 2  # the failing step itself is not a step of the trace
    assert "x < 3" in v.notes[0]


def test_invalid_end_state_unless_ignored():
    ts = bounded_counter(language=SourceLanguage.PROMELA)
    v = check_property(ts, prop(PropertyKind.SAFETY))
    assert v.outcome is Outcome.VIOLATED and v.reason == "invalid end state"
    v2 = check_property(ts, prop(PropertyKind.SAFETY), ExploreOptions(ignore_end_states=True))
    assert v2.outcome is Outcome.HOLDS


def test_reaches_and_invariant():
    ts = bounded_counter(5)
    v = check_property(ts, prop(PropertyKind.REACHES, eq(G("x"), 4)))
    assert v.outcome is Outcome.HOLDS and len(v.trace.steps) == 4
    v = check_property(ts, prop(PropertyKind.REACHES, eq(G("x"), 9)))
    assert v.outcome is Outcome.VIOLATED
    v = check_property(ts, prop(PropertyKind.INVARIANT, lt(G("x"), 4)))
    assert v.outcome is Outcome.VIOLATED and len(v.trace.steps) == 4
    assert check_property(ts, prop(PropertyKind.INVARIANT, lt(G("x"), 6))).outcome is Outcome.HOLDS


def test_reaches_with_min_and_max():
    ts = bounded_counter(5)
    cond = op(">=", G("x"), 2)
    v = check_property(ts, prop(PropertyKind.REACHES, cond, optimise=("max", G("x"))))
    assert v.outcome is Outcome.HOLDS and v.value == 5 and len(v.trace.steps) == 5
    v = check_property(ts, prop(PropertyKind.REACHES, cond, optimise=("min", G("x"))))
    assert v.value == 2 and len(v.trace.steps) == 2


def test_runtime_error_in_a_predicate_is_a_verdict():
    ts = system([counter("C", "i", 4)], [int_var("i"), int_var("a", length=3)])
    v = check_property(ts, prop(PropertyKind.INVARIANT, eq(ix("a", G("i")), 0)))
    assert v.outcome is Outcome.VIOLATED and v.reason == "index out of range"
    assert len(v.trace.steps) == 3


def test_divergence_is_a_tau_lasso():
    """A visible 'go' then a tau loop of two steps."""
    p = process("P", [edge(0, 1, event="go"), edge(1, 2), edge(2, 1)])
    v = check_property(system([p], language=SourceLanguage.CSP), prop(PropertyKind.DIVERGENCE_FREE))
    assert v.outcome is Outcome.VIOLATED and v.lasso is not None
    assert [s.event for s in v.lasso.prefix.steps] == ["go"]
    assert len(v.lasso.loop) == 2 and all(s.event is None for s in v.lasso.loop)
    q = process("Q", [edge(0, 1, event="go"), edge(1, 0)])
    v2 = check_property(system([q], language=SourceLanguage.CSP), prop(PropertyKind.DIVERGENCE_FREE))
    assert v2.outcome is Outcome.HOLDS


def test_determinism():
    p = process("P", [edge(0, 1, event="a"), edge(0, 2, event="a")], n_locations=3)
    v = check_property(system([p], language=SourceLanguage.CSP), prop(PropertyKind.DETERMINISTIC))
    assert v.outcome is Outcome.VIOLATED and "'a'" in v.reason
    q = process("Q", [edge(0, 1, event="a"), edge(0, 2, event="b")], n_locations=3)
    v2 = check_property(system([q], language=SourceLanguage.CSP), prop(PropertyKind.DETERMINISTIC))
    assert v2.outcome is Outcome.HOLDS


def test_resource_limit_is_unknown():
    ts = system([counter(f"C{i}", f"x{i}", 10) for i in range(3)],
                [int_var(f"x{i}") for i in range(3)])
    v = check_property(ts, prop(PropertyKind.DEADLOCK_FREE), ExploreOptions(max_states=50))
    assert v.outcome is Outcome.UNKNOWN and "state limit" in v.reason
    assert v.statistics.states > 50
    with pytest.raises(ResourceLimitReached):
        explore(ts, ExploreOptions(max_states=50))


def test_progress_callback_and_simulation():
    calls = []
    ts = system([counter(f"C{i}", f"x{i}", 10) for i in range(4)],
                [int_var(f"x{i}") for i in range(4)])
    stats = explore(ts, ExploreOptions(progress=lambda *a: calls.append(a)))
    assert stats.states == 10_000 and stats.transitions == 40_000
    trace = simulate(ts, 20, seed=7)
    assert len(trace.steps) == 20
    assert trace == simulate(ts, 20, seed=7)
    assert all(len(s.changes) == 1 for s in trace.steps)
