"""Reductions preserve verdicts (STYLE.md section 6): hypothesis builds small systems and
formulas; the same fair LTL checker runs on the full and on the reduced space.

- POR (no fairness, weak, process-weak): equal verdicts; a counterexample of the reduced
  space is a run of the full space, fair there (judged on the *full* enabled sets).
- Symmetry (no fairness, strong global): equal verdicts; the reduced lasso maps back to
  a concrete run that replays in the full space.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bridge.ir import Fairness, LtlBinary, LtlState, LtlUnary
from bridge.reductions.por import PartialOrderReduction
from bridge.semantics.statespace import build_state_space
from tests.irbuild import G, add, assign, edge, eq, int_var, op, process, system
from tests.unit.reductions.fairtools import check, replay

VARS = ("x", "y", "z")


@st.composite
def edges_of(draw, n_locations: int, own: str):
    n = draw(st.integers(1, 3))
    out = []
    for _ in range(n):
        src = draw(st.integers(0, n_locations - 1))
        dst = draw(st.integers(0, n_locations - 1))
        # mostly the process's own variable, sometimes a shared one
        var = own if draw(st.integers(0, 3)) else draw(st.sampled_from(VARS))
        guard = None
        if draw(st.booleans()):
            gv = own if draw(st.booleans()) else draw(st.sampled_from(VARS))
            guard = eq(G(gv), draw(st.integers(0, 2)))
            if draw(st.booleans()):
                guard = op("!=", G(gv), draw(st.integers(0, 2)))
        if draw(st.booleans()):
            value = op("mod", add(G(var), draw(st.integers(1, 2))), 3)
        else:
            value = draw(st.integers(0, 2))
        out.append(edge(src, dst, guard=guard, effect=[assign(var, value)]))
    return out


@st.composite
def systems(draw):
    n = draw(st.integers(2, 3))
    procs = []
    for k in range(n):
        locs = draw(st.integers(1, 3))
        procs.append(process(f"P{k}", draw(edges_of(locs, VARS[k])), n_locations=locs))
    return system(procs, globals_=[int_var(v, 0) for v in VARS])


def _atom(draw) -> LtlState:
    v = draw(st.sampled_from(VARS[:2]))
    c = draw(st.integers(0, 2))
    return LtlState(eq(G(v), c), f"{v}=={c}")


@st.composite
def formulas(draw):
    p, q = _atom(draw), _atom(draw)
    assume(p.text != q.text)  # keep clear of tautologies (an empty automaton)
    shape = draw(st.integers(0, 5))
    if shape == 0:
        return LtlUnary("F", p)
    if shape == 1:
        return LtlUnary("G", p)
    if shape == 2:
        return LtlUnary("G", LtlUnary("F", p))
    if shape == 3:
        return LtlUnary("F", LtlUnary("G", p))
    if shape == 4:
        return LtlUnary("G", LtlBinary("->", p, LtlUnary("F", q)))
    return LtlBinary("U", p, q)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ts=systems(), formula=formulas())
def test_por_preserves_verdicts_without_fairness(ts, formula):
    full = build_state_space(ts)
    por = PartialOrderReduction(build_state_space(ts), ts, formula)
    expected = check(full, formula)
    got = check(por, formula)
    assert got.violated == expected.violated
    if got.violated:
        replay(full, got.initial, got.prefix + got.loop)


@pytest.mark.parametrize("fairness", [Fairness.WEAK, Fairness.PROCESS_WEAK])
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ts=systems(), formula=formulas())
def test_por_preserves_weakly_fair_verdicts_with_full_enabled_sets(fairness, ts, formula):
    """With fairness judged on the unreduced enabled sets (``enabled_actions``), POR
    preserves verdicts under weak and process-weak fairness, and every counterexample
    of the reduced space is a fair run of the full space."""
    full = build_state_space(ts)
    por = PartialOrderReduction(build_state_space(ts), ts, formula, fairness)
    expected = check(full, formula, fairness)
    got = check(por, formula, fairness, full_enabled=True)
    assert got.violated == expected.violated
    if got.violated:
        replay(full, got.initial, got.prefix + got.loop)


@pytest.mark.parametrize("fairness", [Fairness.WEAK, Fairness.PROCESS_WEAK])
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ts=systems(), formula=formulas())
def test_por_keeps_every_weakly_fair_counterexample(fairness, ts, formula):
    """No fair counterexample of the full space is lost: a 'holds' on the reduced space
    is a 'holds' on the full space (the direction a wrong verdict would be dangerous).

    The other direction needs the fairness engine to judge enabledness with the full
    enabled sets (``PartialOrderReduction.enabled_actions``): a loop fair with respect to
    the ample sets alone may not be fair (see ``test_por_weak_needs_full_enabled_sets``).
    """
    full = build_state_space(ts)
    por = PartialOrderReduction(build_state_space(ts), ts, formula, fairness)
    expected = check(full, formula, fairness)
    got = check(por, formula, fairness)
    if expected.violated:
        assert got.violated
    if got.violated:
        replay(full, got.initial, got.prefix + got.loop)


# ---------------------------------------------------------------------------------
# POR with barrier events, event atoms and annotations (paper 000 section 4)

EVENTS = ("a", "b", "c")


@st.composite
def barrier_systems(draw):
    """2-3 processes in a CSP parallel: shared events (barriers between the processes
    that have them), private events, data operations on a shared ``x``; some edges
    carry f/wf/sf marks (the mark of an event name covers all its steps)."""
    import dataclasses

    from bridge.ir import FairnessMark
    from tests.irbuild import ev, parallel

    n = draw(st.integers(2, 3))
    procs, alphabets = [], []
    for k in range(n):
        locs = draw(st.integers(1, 3))
        edges = []
        for _ in range(draw(st.integers(1, 4))):
            src, dst = draw(st.integers(0, locs - 1)), draw(st.integers(0, locs - 1))
            kind = draw(st.sampled_from(["shared", "shared", "private", "private", "data"]))
            guard = eq(G("x"), draw(st.integers(0, 1))) if draw(st.integers(0, 3)) == 0 else None
            if kind == "shared":
                e = edge(src, dst, guard=guard, event=draw(st.sampled_from(EVENTS)))
            elif kind == "private":
                e = edge(src, dst, guard=guard, event=ev("p", k))
            else:
                value = draw(st.integers(0, 1))
                e = edge(src, dst, guard=guard, effect=[assign("x", value)], event=ev("w", k, value))
            mark = draw(st.sampled_from([None, None, None, FairnessMark.SF, FairnessMark.SF,
                                         FairnessMark.WF, FairnessMark.F]))
            edges.append(dataclasses.replace(e, fairness=mark))
        procs.append(process(f"P{k}", edges, n_locations=locs))
        alphabets.append({e.event.base for e in edges if e.event is not None
                          and e.event.base in EVENTS})
    return system(procs, globals_=[int_var("x", 0)],
                  composition=parallel(list(range(n)), alphabets))


@st.composite
def enabler_systems(draw):
    """Like ``barrier_systems``, but every process starts with an unannotated step
    into a location that offers an annotated event: the shape where an ample set that
    enables annotated events could lose a fair counterexample."""
    import dataclasses

    from bridge.ir import FairnessMark
    from tests.irbuild import ev, parallel

    base = draw(barrier_systems())
    procs, alphabets = [], []
    for k, proc in enumerate(base.processes):
        n = len(proc.locations)
        shift = [dataclasses.replace(e, source=e.source + 1, target=e.target + 1) for e in proc.edges]
        mark = draw(st.sampled_from([FairnessMark.SF, FairnessMark.WF, FairnessMark.F]))
        target = 1 + draw(st.integers(0, n - 1))
        offered = draw(st.sampled_from([ev("p", k), ev("a")]))
        entry = [edge(0, target, event=ev("u", k)),
                 dataclasses.replace(edge(target, target, event=offered), fairness=mark)]
        procs.append(process(proc.name, entry + shift, n_locations=n + 1))
        alphabets.append({e.event.base for e in entry + shift if e.event is not None
                          and e.event.base in EVENTS})
    return system(procs, globals_=list(base.globals),
                  composition=parallel(list(range(len(procs))), alphabets))


@st.composite
def event_formulas(draw):
    from bridge.ir import LtlEvent

    names = list(EVENTS) + ["p.0", "p.1", "p.2", "w.0.1"]
    e1, e2 = (LtlEvent(draw(st.sampled_from(names))) for _ in range(2))
    x = LtlState(eq(G("x"), draw(st.integers(0, 1))), "x")
    shape = draw(st.integers(0, 6))
    if shape == 0:
        return LtlUnary("G", LtlUnary("F", e1))
    if shape == 1:
        return LtlUnary("G", LtlBinary("->", e1, LtlUnary("F", e2)))
    if shape == 2:
        return LtlUnary("F", LtlUnary("G", LtlUnary("!", e1)))
    if shape == 3:
        return LtlUnary("G", LtlBinary("->", x, LtlUnary("F", e1)))
    if shape == 4:
        return LtlBinary("||", LtlUnary("F", e1), LtlUnary("G", LtlUnary("F", x)))
    if shape == 5:  # order sensitive: POR must refuse it
        return LtlUnary("G", LtlBinary("->", e1, LtlBinary("U", e1, x)))
    return LtlUnary("F", LtlUnary("G", x))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ts=st.one_of(barrier_systems(), enabler_systems()), formula=event_formulas())
def test_por_with_event_atoms_and_annotations_preserves_verdicts(ts, formula):
    """The whole path of ``bridge.api`` (the model's f/wf/sf marks, fairness judged on
    the full enabled sets): the verdict with ``por=True`` is the unreduced one, whether
    POR was applied (ample sets of several instances, events of the formula visible,
    annotated events enabled only where stable and inevitable) or refused."""
    from bridge import api
    from bridge.ir import PropertyKind
    from tests.irbuild import prop

    p = prop(PropertyKind.LTL, formula=formula)
    expected = api.check_property(ts, p, api.CheckOptions())
    got = api.check_property(ts, p, api.CheckOptions(por=True))
    assert got.outcome == expected.outcome, got.notes


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ts=barrier_systems(), formula=event_formulas())
def test_por_counterexamples_with_event_atoms_are_real_runs(ts, formula):
    """With no fairness: a lasso of the reduced space replays in the full space, and a
    violation of the full space is found in the reduced one."""
    import dataclasses

    from bridge.reductions.por import por_refusal

    plain = dataclasses.replace(ts, processes=tuple(
        dataclasses.replace(p, edges=tuple(dataclasses.replace(e, fairness=None) for e in p.edges))
        for p in ts.processes))
    assume(por_refusal(Fairness.NONE, formula, plain) is None)
    full = build_state_space(plain)
    por = PartialOrderReduction(build_state_space(plain), plain, formula)
    expected, got = check(full, formula), check(por, formula)
    assert got.violated == expected.violated
    if got.violated:
        replay(full, got.initial, got.prefix + got.loop)


# ---------------------------------------------------------------------------------
# Symmetry

WHICH = st.sampled_from(["me", "nb", "x"])


@st.composite
def symmetric_systems(draw):
    from tests.unit.reductions.symmodels import node_family

    n = draw(st.integers(3, 4))
    ring = draw(st.sampled_from([False, True, "undirected"]))
    rules = draw(
        st.lists(
            st.tuples(WHICH, st.integers(0, 2), WHICH, st.integers(0, 2), WHICH, st.integers(0, 2)),
            min_size=1,
            max_size=3,
        )
    )
    return n, node_family(n, rules, ring, init=draw(st.integers(0, 1)))


@st.composite
def symmetric_formulas(draw, n: int):
    from tests.unit.reductions.symmodels import count_atom

    p = count_atom(n, draw(st.integers(0, 2)), draw(st.integers(0, n)))
    q = LtlState(eq(G("x"), draw(st.integers(0, 1))), "x")
    shape = draw(st.integers(0, 4))
    if shape == 0:
        return LtlUnary("F", LtlUnary("G", p))
    if shape == 1:
        return LtlUnary("G", LtlUnary("F", p))
    if shape == 2:
        return LtlUnary("G", LtlBinary("->", q, LtlUnary("F", p)))
    if shape == 3:
        return LtlUnary("F", p)
    return LtlBinary("U", q, p)


@pytest.mark.parametrize("fairness", [Fairness.NONE, Fairness.STRONG_GLOBAL])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_symmetry_preserves_verdicts(fairness, data):
    from bridge.reductions.symmetry import SymmetryReduction, detect_symmetry

    n, ts = data.draw(symmetric_systems())
    formula = data.draw(symmetric_formulas(n))
    spec = detect_symmetry(ts, formula, fairness)
    full = build_state_space(ts)
    red = SymmetryReduction(build_state_space(ts), ts, spec)
    expected = check(full, formula, fairness)
    got = check(red, formula, fairness)
    assert got.violated == expected.violated
    if got.violated:
        init, prefix, loop = red.concretize(got.prefix, got.loop)
        replay(full, init, prefix + loop)


# ---------------------------------------------------------------------------------
# Process counter abstraction


@st.composite
def identical_families(draw):
    """``n`` copies of one random process over a process counter ``x`` and a flag ``y``,
    plus an optional toggler of ``y``."""
    from bridge.ir import Instance
    from tests.irbuild import op

    n = draw(st.integers(2, 3))
    locs = draw(st.integers(1, 3))
    edges = []
    for _ in range(draw(st.integers(1, 4))):
        src = draw(st.integers(0, locs - 1))
        dst = draw(st.integers(0, locs - 1))
        guard = draw(st.sampled_from([
            None, eq(G("y"), 0), eq(G("y"), 1), op(">=", G("x"), 1), op("==", G("x"), 0),
            op("<", G("x"), 2),
        ]))
        effect = [assign("y", draw(st.integers(0, 1)))] if draw(st.booleans()) else []
        edges.append(edge(src, dst, guard=guard, effect=effect))
    # x counts the processes at location 0 when every edge keeps it up to date
    fixed = []
    for e in edges:
        delta = (1 if e.target == 0 else 0) - (1 if e.source == 0 else 0)
        extra = []
        if delta:
            extra = [assign("x", add(G("x"), 1) if delta > 0 else op("-", G("x"), 1))]
        fixed.append(edge(e.source, e.target, guard=e.guard, effect=list(e.effect) + extra))
    procs = [process(f"Node({k})", fixed, n_locations=locs) for k in range(n)]
    insts = [Instance(f"Node({k})", (), f"Node({k})") for k in range(n)]
    if draw(st.booleans()):
        procs.append(process("T", [edge(0, 0, effect=[assign("y", 0)]), edge(0, 0, effect=[assign("y", 1)])]))
        insts.append(Instance("T", (), "T"))
    return system(procs, globals_=[int_var("x", n), int_var("y", 0)], instances=insts)


@st.composite
def counter_formulas(draw):
    p = LtlState(eq(G("y"), draw(st.integers(0, 1))), "y")
    q = LtlState(op("==", G("x"), draw(st.integers(0, 1))), "x")
    return draw(st.sampled_from([
        LtlUnary("F", LtlUnary("G", p)), LtlUnary("G", LtlUnary("F", p)),
        LtlUnary("G", LtlUnary("F", q)), LtlUnary("F", LtlUnary("G", q)),
        LtlUnary("G", LtlBinary("->", p, LtlUnary("F", q))),
    ]))


@pytest.mark.parametrize(
    "fairness", [Fairness.NONE, Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG]
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ts=identical_families(), formula=counter_formulas())
def test_counter_abstraction_agrees_with_the_concrete_engine(fairness, ts, formula):
    from bridge.ir import Outcome
    from bridge.reductions.counter import run_counter_abstraction

    concrete = check(build_state_space(ts), formula, fairness).violated
    exact = run_counter_abstraction(ts, formula, fairness, None)
    assert exact.outcome is (Outcome.VIOLATED if concrete else Outcome.HOLDS)
    # with omega the answer may be unknown, never wrong
    omega = run_counter_abstraction(ts, formula, fairness, 1)
    if omega.outcome is Outcome.HOLDS:
        assert not concrete
    if omega.outcome is Outcome.VIOLATED:
        assert concrete
