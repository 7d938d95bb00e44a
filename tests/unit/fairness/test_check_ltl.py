"""Unit tests for ``check_ltl`` on IR systems built by hand: annotations (model and
command line, event- and occurrence-level), event atoms, limits, model errors, options."""

from __future__ import annotations

import dataclasses
import importlib

import pytest

from bridge.diagnostics import ConfigurationError
from bridge.fairness.check import LtlOptions, check_ltl
from bridge.ir import Overflow
from bridge.ir.model import FairnessMark
from bridge.ir.property import Fairness, LtlEvent, LtlState, LtlUnary, Property, PropertyKind
from bridge.ir.verdict import Outcome
from tests.irbuild import G, add, assign, edge, eq, int_var, ix, process, system


def _ltl(formula, name="p") -> Property:
    return Property(name, PropertyKind.LTL, name, formula=formula)


def _eventually(expr, text):
    return _ltl(LtlUnary("F", LtlState(expr, text)))


def _detector(mark=None):
    oracle = edge(0, 0, effect=[assign("correct", 1)], event="oracle")
    if mark is not None:
        oracle = dataclasses.replace(oracle, fairness=mark)
    det = process("Detector", [oracle, edge(0, 0, event="guess1"), edge(0, 0, event="guess2")])
    return system([det], globals_=[int_var("correct", 0)])


def test_figure_10_model_annotation():
    prop = _eventually(eq(G("correct"), 1), "correct==1")
    assert check_ltl(_detector(), prop).outcome is Outcome.VIOLATED
    annotated = _detector(FairnessMark.WF)
    verdict = check_ltl(annotated, prop)
    assert verdict.outcome is Outcome.HOLDS
    off = check_ltl(annotated, prop, LtlOptions(model_annotations=False))
    assert off.outcome is Outcome.VIOLATED
    lasso = off.lasso
    assert lasso is not None and lasso.witness is not None
    assert all(s.event in ("guess1", "guess2") for s in lasso.loop)


def test_command_line_annotation():
    prop = _eventually(eq(G("correct"), 1), "correct==1")
    v = check_ltl(_detector(), prop, LtlOptions(annotations=((FairnessMark.WF, "oracle"),)))
    assert v.outcome is Outcome.HOLDS
    assert "wf(oracle)" in v.fairness
    v = check_ltl(_detector(), prop, LtlOptions(annotations=((FairnessMark.SF, "guess1"),)))
    assert v.outcome is Outcome.VIOLATED


def test_event_atoms_and_init():
    prop = _ltl(LtlUnary("G", LtlUnary("F", LtlEvent("oracle"))))
    assert check_ltl(_detector(), prop, LtlOptions(fairness=Fairness.WEAK)).outcome is Outcome.HOLDS
    assert check_ltl(_detector(), prop).outcome is Outcome.VIOLATED
    first = _ltl(LtlEvent("init"))
    assert check_ltl(_detector(), first).outcome is Outcome.HOLDS
    # no prefix matching: "guess" is not "guess1"
    guess = _ltl(LtlUnary("F", LtlEvent("guess")))
    assert check_ltl(_detector(), guess, LtlOptions(fairness=Fairness.WEAK)).outcome is Outcome.VIOLATED


def _occurrence_system(mark):
    a_go = edge(0, 1, effect=[assign("x", 1)], event="go")
    if mark is not None:
        a_go = dataclasses.replace(a_go, fairness=mark)
    a = process("A", [a_go, edge(1, 1, event="idle")])
    b = process("B", [edge(0, 0, event="go")])
    return system([a, b], globals_=[int_var("x", 0)])


@pytest.mark.parametrize(
    "mark, holds",
    [
        (None, False),
        (FairnessMark.WF, False),  # the event go is engaged by B forever
        (FairnessMark.WL, True),  # this very occurrence (A's go) must be taken
        (FairnessMark.SL, True),
    ],
)
def test_occurrence_level_marks(mark, holds):
    prop = _eventually(eq(G("x"), 1), "x==1")
    v = check_ltl(_occurrence_system(mark), prop)
    assert (v.outcome is Outcome.HOLDS) is holds


def test_state_limit_gives_unknown():
    counter = process("C", [edge(0, 0, effect=[assign("n", add(G("n"), 1))])])
    ts = system([counter], globals_=[int_var("n", 0, lo=0, hi=1000)])
    v = check_ltl(ts, _eventually(eq(G("n"), -1), "n==-1"), LtlOptions(max_states=50))
    assert v.outcome is Outcome.UNKNOWN
    assert "limit" in v.reason
    assert v.statistics.states <= 50


def test_model_error_is_a_verdict_with_trace():
    bad = process("P", [edge(0, 0, effect=[assign("i", add(G("i"), 1)), assign(ix("a", G("i")), 1)])])
    ts = system([bad], globals_=[int_var("i", 0), int_var("a", 0, length=2)])
    v = check_ltl(ts, _ltl(LtlUnary("G", LtlUnary("F", LtlEvent("never")))))
    assert v.outcome is Outcome.VIOLATED
    assert v.trace is not None and v.lasso is None
    assert v.reason


def test_holds_says_under_which_fairness():
    v = check_ltl(_detector(), _ltl(LtlUnary("G", LtlUnary("F", LtlEvent("oracle")))), LtlOptions(fairness=Fairness.STRONG_GLOBAL))
    assert v.outcome is Outcome.HOLDS
    assert v.fairness == "strong-global"
    assert v.statistics.states > 0 and dict(v.statistics.extra)["automaton"] in ("TGBA", "BA")


def test_property_fairness_used_when_options_leave_it_open():
    prop = dataclasses.replace(_ltl(LtlUnary("G", LtlUnary("F", LtlEvent("oracle")))), fairness=Fairness.WEAK)
    assert check_ltl(_detector(), prop).outcome is Outcome.HOLDS
    assert check_ltl(_detector(), prop, LtlOptions(fairness=Fairness.NONE)).outcome is Outcome.VIOLATED


def test_bad_options_and_kinds():
    with pytest.raises(ConfigurationError, match="allowed"):
        check_ltl(_detector(), _ltl(LtlEvent("x")), LtlOptions(fairness="weak"))  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="annotation"):
        check_ltl(_detector(), _ltl(LtlEvent("x")), LtlOptions(annotations=(("wf", "x"),)))  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="LTL"):
        check_ltl(_detector(), Property("s", PropertyKind.DEADLOCK_FREE, "s"))


PML_LABEL = """byte x = 0;
active proctype A() { go: x = 1 }
active proctype B() { do :: skip od }
ltl p { <> (x == 1) }
"""


def test_promela_label_annotation():
    promela = importlib.import_module("bridge.frontends.promela")
    model = promela.load_promela("label.pml", PML_LABEL)
    (ts, prop), = [(s, p) for s, p in model.properties() if p.kind is PropertyKind.LTL]
    assert check_ltl(ts, prop).outcome is Outcome.VIOLATED
    v = check_ltl(ts, prop, LtlOptions(annotations=((FairnessMark.WF, "go"),)))
    assert v.outcome is Outcome.HOLDS
    typo = check_ltl(ts, prop, LtlOptions(annotations=((FairnessMark.WF, "og"),)))
    assert typo.outcome is Outcome.VIOLATED
    assert any("og" in note and "matched no event" in note for note in typo.notes)


# ---------------------------------------------------------------------------------
# Lassos of real models, replayed through the semantics and re-checked (item 5b)


def _replay(space, lasso):
    """Return (loop states, loop steps) after replaying ``lasso`` step by step: each
    TraceStep must match a successor (same event, processes and changes)."""
    from bridge.semantics.trace import make_steps

    state = space.initial_states()[0]
    assert tuple(space.valuation(state).items()) == lasso.prefix.initial

    def advance(state, expected):
        if expected.stutter:
            assert not space.successors(state), "stutter step out of a state with steps"
            return state, None
        for step, nxt in space.successors(state):
            (got,) = make_steps(space, state, [(step, nxt)])
            if (got.event, got.processes, got.changes) == (expected.event, expected.processes, expected.changes):
                return nxt, step
        raise AssertionError(f"no successor matches {expected}")

    for ts in lasso.prefix.steps:
        state, _ = advance(state, ts)
    start = state
    states, steps = [], []
    for ts in lasso.loop:
        states.append(state)
        state, step = advance(state, ts)
        steps.append(step)
    assert space.valuation(state) == space.valuation(start), "the loop does not close"
    return states, steps


@pytest.mark.parametrize("fairness", [Fairness.NONE, Fairness.WEAK, Fairness.STRONG_LOCAL, Fairness.PROCESS_WEAK])
def test_le_r_lasso_replays_and_is_fair(fairness):
    from pathlib import Path

    from bridge.frontends import csp

    path = Path(__file__).resolve().parents[3] / "case_studies" / "le_r" / "le_r_3.csp"
    from bridge.semantics.statespace import build_state_space

    model = csp.load_csp(str(path))
    (ts, prop), = [(s, p) for s, p in model.properties() if p.kind is PropertyKind.LTL]
    v = check_ltl(ts, prop, LtlOptions(fairness=fairness))
    assert v.outcome is Outcome.VIOLATED  # 000 Table 2: LE_R 3 fails without strong global
    space = build_state_space(ts)
    states, steps = _replay(space, v.lasso)
    # oneLeader is false somewhere in the loop (the run violates <>[]oneLeader)
    pred = space.predicate(prop.formula.operand.operand.expr)
    assert not all(pred(s) for s in states)
    visible = [{st.event for st, _ in space.successors(s) if not st.tau} for s in states]
    engaged = {st.event for st in steps if st is not None}
    if fairness is Fairness.WEAK:
        assert set.intersection(*visible) <= engaged
    if fairness is Fairness.STRONG_LOCAL:
        assert set.union(*visible) <= engaged
    if fairness is Fairness.PROCESS_WEAK:
        enabled = [{p for st, _ in space.successors(s) for p in st.processes} for s in states]
        moved = {p for st in steps if st is not None for p in st.processes}
        assert set.intersection(*enabled) <= moved


def test_misspelt_event_atom_is_noted():
    v = check_ltl(_detector(), _ltl(LtlUnary("F", LtlEvent("oracel"))))
    assert v.outcome is Outcome.VIOLATED
    assert any("oracel" in note for note in v.notes)
    ok = check_ltl(_detector(), _ltl(LtlUnary("F", LtlEvent("oracle"))), LtlOptions(fairness=Fairness.WEAK))
    assert not any("matched no step" in note for note in ok.notes)
    assert ok.statistics.peak_memory_bytes > 0


def test_weak_fairness_through_a_partial_order_reduction():
    """With a POR wrapper passed as ``space``, fairness is judged on the full enabled
    sets (``full_successors``), not on the ample sets the search explores."""
    por = importlib.import_module("bridge.reductions.por")
    from bridge.semantics.statespace import build_state_space

    a = process("A", [edge(0, 0, effect=[assign("x", add(G("x"), 1))], event="tick")])
    b = process("B", [edge(0, 1, effect=[assign("y", 1)], event="go")], terminal=[1])
    ts = system(
        [a, b],
        globals_=[int_var("x", 0, lo=0, hi=3, overflow=Overflow.WRAP), int_var("y", 0)],
    )
    prop = _eventually(eq(G("y"), 1), "y==1")
    full = check_ltl(ts, prop, LtlOptions(fairness=Fairness.WEAK))
    assert full.outcome is Outcome.HOLDS
    reduced = por.PartialOrderReduction(build_state_space(ts), ts, prop.formula, Fairness.WEAK)
    v = check_ltl(ts, prop, LtlOptions(fairness=Fairness.WEAK), space=reduced)
    assert v.outcome is Outcome.HOLDS
    assert check_ltl(ts, prop, LtlOptions(), space=reduced).outcome is Outcome.VIOLATED
