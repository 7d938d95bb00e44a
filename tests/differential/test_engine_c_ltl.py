"""The compiled engine's fair search against the Python engine's (issue 12, items 2 and 4).

On every test model and case-study model with an LTL assertion, under every fairness
notion the C search takes (``driver.LTL_FAIRNESS``), ``bridge.api`` with ``--engine c``
and with ``--engine python`` must give the same verdict: outcome, reason, product
states and transitions (the C search interns product nodes and orders edges as the
Python one, so the counts agree exactly, also when a state limit cuts the search),
notes (a C run that fell back to Python would add one) and, for a model error, the
same trace (a lasso: one exists in both). A counterexample from the C engine is rebuilt on the Python product and
replayed by ``emptiness.build_lasso`` before it is returned (``api._compiled._replay_c_search``);
here its loop is also re-walked on the Python semantics. A notion or construct the C
search does not take must be refused by name (exit 2 with ``--engine c``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bridge.engine_c
from bridge import api
from bridge.automata.ltl import translate_formula
from bridge.diagnostics import ConfigurationError, ModelRuntimeError
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import Fairness, Outcome, PropertyKind, SourceLanguage, TransitionSystem
from bridge.ir.model import FairnessMark
from bridge.ir.property import LtlBinary, LtlState, LtlUnary, Property
from tests.conftest import in_ci
from tests.differential.test_engine_c import (
    CASE_STUDIES,
    TEST_MODELS,
    VARS,
    _needs_unbounded_integers,
    random_systems,
)
from tests.irbuild import G, eq

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

LIMIT = 20000
CASE_STUDY_LIMIT = 6000


def _with_ltl(paths: list[Path]) -> list[Path]:
    return [p for p in paths if "ltl" in p.read_text(errors="replace")
            or "|=" in p.read_text(errors="replace")]


LTL_MODELS = _with_ltl(TEST_MODELS)
LTL_CASE_STUDIES = _with_ltl(CASE_STUDIES)

# The reasons a refusal may give (a refusal must name what is missing).
REFUSALS = ("fair search does not handle", "annotations",
            "does not translate", "too big", "rejects the model")


def _fingerprint(v) -> tuple:
    s = v.statistics
    # The lasso itself may differ: both engines build it with emptiness.build_lasso from
    # the same fair part, but on Python products whose node ids differ (the C report is
    # rebuilt on a fresh one), and a prefix over 200 steps is shortened through other
    # nodes. It is replayed and re-checked there (acceptance, fairness) all the same.
    return (v.outcome, v.reason, s.states, s.transitions, v.notes, v.fairness, v.trace,
            v.lasso is not None and len(v.lasso.loop) > 0)


def _fig5(v) -> tuple:
    extra = dict(v.statistics.extra)
    return extra["subgraphs_checked"], extra["pruned_states"]


# Models where an atom of a formula fails (an index out of range) in a state where pan's
# short-circuit evaluation of the formula does not read it: the C engine evaluates every
# atom, meets the error and hands the search to the Python engine (check._state_letter).
PROPOSITION_ERRORS = {"m90_ltl_guarded_index.pml"}
HANDED_OVER = "met a model error that the Python engine does not"
VALUE_LEFT = "a value left what the C engine represents"


# CSP# models with an event name the C engine cannot render as the Python engine does:
# event-level fairness and event atoms over it fall back to the Python engine, by
# name. None left: every event name computed at run time is rendered and interned in C
# (a value whose kind is known only at run time carries it there: gen_events.kind_code;
# a send or a rendezvous with the kinds of the sender's values: br_chev_sent; a stored
# bool is an int in every search, a library element too), of any length (a name past
# 1024 bytes grows on the heap: tests/differential/test_engine_c_long_names.py).
UNRENDERED_NAMES: set[str] = set()


def compare(system: TransitionSystem, limit: int, handed_over: bool = False,
            annotations: tuple = (), notions: tuple = tuple(Fairness),
            unrendered: bool = False) -> int:
    """Compare the engines on every LTL property of ``system`` under ``notions`` and
    the command-line ``annotations`` (and the model's own); return how many (property,
    notion) pairs the C engine checked. ``handed_over``: the C engine may hand a search
    to the Python engine for a failing atom (``PROPOSITION_ERRORS``); ``unrendered``:
    for an event name it cannot render (``UNRENDERED_NAMES``)."""
    compared = 0
    annotated = bool(annotations) or driver.model_has_marks(system)
    for prop in system.properties:
        if prop.kind is not PropertyKind.LTL:
            continue
        for fairness in notions:
            options = dict(fairness=fairness, max_states=limit, annotations=annotations)
            na = translate_formula(prop.formula)
            ok, why = driver.ltl_supports(system, prop, list(na.binding.atoms), fairness,
                                          na.buchi.num_sets, na.buchi.num_states,
                                          annotations)
            if not ok:
                assert any(r in why for r in REFUSALS), why
                with pytest.raises(ConfigurationError, match="--engine c"):
                    api.check_property(system, prop, api.CheckOptions(engine="c", **options))
                continue
            c = api.check_property(system, prop, api.CheckOptions(engine="c", **options))
            py = api.check_property(system, prop, api.CheckOptions(engine="python", **options))
            if any(driver.COMPUTED_ACTION in n for n in c.notes):
                # event-level fairness over a CSP# step whose event name is computed at
                # run time from a value that may be a bool, or a barrier outside CSP#:
                # the C search cannot name its action; the Python engine answered
                assert fairness in (Fairness.WEAK, Fairness.STRONG_LOCAL)
                assert system.language is not SourceLanguage.PROMELA
                assert unrendered, (prop.text, fairness)
                c = dataclasses.replace(c, notes=tuple(
                    n for n in c.notes if driver.COMPUTED_ACTION not in n))
                assert _fingerprint(c) == _fingerprint(py), (prop.text, fairness)
                continue
            if any(driver.COMPUTED_EVENT in n for n in c.notes):
                # an event atom or an annotation against an event name computed at
                # run time that C cannot render, or met when every event name is an
                # annotation unit (model marks): the Python engine answered
                assert annotated or any(not isinstance(a, LtlState) for a in na.binding.atoms)
                assert unrendered or driver.model_has_marks(system), (prop.text, fairness)
                c = dataclasses.replace(c, notes=tuple(
                    n for n in c.notes if driver.COMPUTED_EVENT not in n))
                assert _fingerprint(c) == _fingerprint(py), (prop.text, fairness)
                continue
            if any(VALUE_LEFT in n for n in c.notes):
                # a value left the C engine's 64-bit arithmetic or a packed slot (random
                # systems with unbounded counters): the one value fallback allowed, only
                # for a model whose values do leave 32 bits; the Python engine answered
                assert _needs_unbounded_integers(system, limit), (prop.text, fairness)
                c = dataclasses.replace(c, notes=tuple(n for n in c.notes if VALUE_LEFT not in n))
                assert _fingerprint(c) == _fingerprint(py), (prop.text, fairness)
                continue
            if handed_over and any(HANDED_OVER in n for n in c.notes):
                c = dataclasses.replace(c, notes=tuple(n for n in c.notes if HANDED_OVER not in n))
                assert _fingerprint(c) == _fingerprint(py), (prop.text, fairness)
                continue
            assert _fingerprint(c) == _fingerprint(py), (prop.text, fairness)
            assert ("engine", "c") in c.statistics.extra
            if c.outcome is not Outcome.VIOLATED:
                # Fig. 5 examined the same subgraphs (its recursion tree does not depend
                # on the order, as long as no fair subgraph stops it)
                assert _fig5(c) == _fig5(py), (prop.text, fairness)
            compared += 1
    return compared


def _systems(path: Path) -> list[TransitionSystem]:
    return list(api.load_model(str(path)).systems)


@pytest.mark.parametrize("path", LTL_MODELS, ids=lambda p: p.name)
def test_test_models_agree(path: Path) -> None:
    for ts in _systems(path):
        compare(ts, LIMIT, handed_over=path.name in PROPOSITION_ERRORS,
                unrendered=path.name in UNRENDERED_NAMES)


@pytest.mark.parametrize("path", LTL_CASE_STUDIES, ids=lambda p: p.name)
def test_case_studies_agree(path: Path) -> None:
    for ts in _systems(path):
        compare(ts, CASE_STUDY_LIMIT)


COUNTERS = """
byte c[3];
active [3] proctype P() {
  do
  :: c[_pid] = (c[_pid] + 1) % 4
  od
}
ltl { []<> (c[0] == 0) }
"""


def test_counters_under_process_weak_fairness(tmp_path: Path) -> None:
    """Fails without fairness (P[0] may stop), holds under process-weak fairness; the
    C counterexample is replayed and the counts are the Python engine's."""
    path = tmp_path / "counters.pml"
    path.write_text(COUNTERS)
    [ts] = _systems(path)
    assert compare(ts, LIMIT) == len(driver.LTL_FAIRNESS)
    prop = next(p for p in ts.properties if p.kind is PropertyKind.LTL)
    none = api.check_property(ts, prop, api.CheckOptions(engine="c", fairness=Fairness.NONE))
    weak = api.check_property(ts, prop, api.CheckOptions(engine="c",
                                                         fairness=Fairness.PROCESS_WEAK))
    assert none.outcome is Outcome.VIOLATED and none.lasso is not None
    assert weak.outcome is Outcome.HOLDS
    assert weak.statistics.states == 112 and weak.statistics.transitions == 464


def test_every_notion_and_annotations_run_in_c(tmp_path: Path) -> None:
    """Every fairness notion is checked by the C search, with annotations too (no note
    of a hand-over with ``auto``; the statistics are the C engine's)."""
    assert set(driver.LTL_FAIRNESS) == set(Fairness)
    path = tmp_path / "counters.pml"
    path.write_text(COUNTERS)
    [ts] = _systems(path)
    prop = next(p for p in ts.properties if p.kind is PropertyKind.LTL)
    marks = ((FairnessMark.SF, "P(0):4 c[_pid] = (c[_pid] + 1) % 4"),)
    c = api.check_property(ts, prop, api.CheckOptions(engine="c", annotations=marks))
    auto = api.check_property(ts, prop, api.CheckOptions(engine="auto", annotations=marks))
    assert ("engine", "c") in c.statistics.extra and ("engine", "c") in auto.statistics.extra
    assert not any("Python engine" in n for n in auto.notes)


def annotation_names(system: TransitionSystem, states: int = 300) -> list[str]:
    """Return the event names and statement labels of the steps of the first
    ``states`` states (breadth first), sorted: names an annotation can use."""
    from bridge.semantics.statespace import build_state_space

    space = build_state_space(system)
    names: set[str] = set()
    seen = {tuple(s) for s in space.initial_states()}
    queue = list(space.initial_states())
    while queue and len(seen) < states:
        state = queue.pop(0)
        try:
            steps = space.successors(state)
        except ModelRuntimeError:  # a model error there: no names (the verdict is it)
            continue
        for step, nxt in steps:
            if step.event is not None:
                names.add(step.event)
            for inst, idx in step.edges:
                e = space.edge(inst, idx, state)
                if e is not None and e.label is not None:
                    names.add(e.label)
            if tuple(nxt) not in seen:
                seen.add(tuple(nxt))
                queue.append(nxt)
    return sorted(names)


def cli_annotations(system: TransitionSystem) -> tuple:
    """Return command-line annotations for ``system``: the first names of its steps
    with f, sf and wf in turn, and a name no step has (its note must agree too)."""
    marks = (FairnessMark.WF, FairnessMark.SF, FairnessMark.F, FairnessMark.SL)
    names = annotation_names(system)
    picked = [names[i] for i in range(0, len(names), max(1, len(names) // 3))][:4]
    return tuple((marks[i % len(marks)], n) for i, n in enumerate(picked)) + (
        (FairnessMark.WF, "no_such_event"),)


@pytest.mark.parametrize("path", LTL_MODELS, ids=lambda p: p.name)
def test_test_models_agree_with_annotations(path: Path) -> None:
    """Paper 000 Fig. 11 per mark in C: the same verdicts, counts and notes as the
    Python engine under every notion conjoined with command-line annotations."""
    for ts in _systems(path):
        compare(ts, 5000, handed_over=path.name in PROPOSITION_ERRORS,
                annotations=cli_annotations(ts), unrendered=path.name in UNRENDERED_NAMES)


@pytest.mark.parametrize("path", LTL_CASE_STUDIES, ids=lambda p: p.name)
def test_case_studies_agree_with_annotations(path: Path) -> None:
    for ts in _systems(path):
        compare(ts, 3000, annotations=cli_annotations(ts),
                notions=(Fairness.NONE, Fairness.STRONG_LOCAL, Fairness.PROCESS_WEAK))


MARKED = """
#define N 3;
var x = 0;
P(i) = wf(go.i) -> (sf(inc.i) -> add.i{x = (x + 1) % 4} -> P(i) [] wl(idle.i) -> P(i));
Q() = tick -> Q() [] sl(tock) -> Q();
R() = reset{x = 0} -> R();
Sys() = (|| i:{0..N - 1}@P(i)) ||| Q() ||| R();
#define zero x == 0;
#define two x == 2;
#define one x == 1;
#assert Sys() |= []<> zero;
#assert Sys() |= []<> two;
#assert Sys() |= []<> tick;
#assert Sys() |= <>[] one;
"""


def test_model_marks_of_every_kind_agree(tmp_path: Path) -> None:
    """wf, sf, wl and sl written in the model (learnt as the search meets them), with
    and without an f annotation from the command line, give the same verdicts and
    counts in C as in Python, under every notion."""
    path = tmp_path / "marked.csp"
    path.write_text(MARKED)
    [ts] = _systems(path)
    kinds = {e.fairness for p in ts.processes for e in p.edges} - {None}
    assert kinds == {FairnessMark.WF, FairnessMark.SF, FairnessMark.WL, FairnessMark.SL}
    assert compare(ts, LIMIT) == 4 * len(Fairness)
    f_tick = ((FairnessMark.F, "tick"),)
    assert compare(ts, LIMIT, annotations=f_tick) == 4 * len(Fairness)
    # f(tick) makes every fair run tick forever: []<> tick holds only with it
    tick = [p for p in ts.properties if p.kind is PropertyKind.LTL][2]
    plain = api.check_property(ts, tick, api.CheckOptions(engine="c"))
    forced = api.check_property(ts, tick, api.CheckOptions(engine="c", annotations=f_tick))
    assert plain.outcome is Outcome.VIOLATED and forced.outcome is Outcome.HOLDS
    assert ("engine", "c") in forced.statistics.extra


@st.composite
def random_annotated_systems(draw):
    ts = draw(random_ltl_systems())
    processes = []
    for p in ts.processes:
        edges = tuple(dataclasses.replace(e, fairness=draw(st.sampled_from(
            [None, None, None, *FairnessMark]))) for e in p.edges)
        processes.append(dataclasses.replace(p, edges=edges))
    names = ["tick", "tock", "own0", "own1", "own2"]
    cli = draw(st.lists(st.tuples(st.sampled_from(list(FairnessMark)), st.sampled_from(names)),
                        max_size=2))
    return dataclasses.replace(ts, processes=tuple(processes)), tuple(cli)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(random_annotated_systems())
def test_random_systems_with_random_annotations_agree(case) -> None:
    ts, cli = case
    ok, why = driver.supports(ts)
    if not ok:
        assert "does not translate" in why or "rejects the model" in why, why
        return
    compare(ts, 3000, annotations=cli)


def test_a_c_report_that_does_not_replay_is_not_reported(tmp_path: Path, monkeypatch) -> None:
    """A fair part the Python product does not confirm (here: one node of it changed)
    is an engine disagreement: the Python engine decides, with a note."""
    path = tmp_path / "counters.pml"
    path.write_text(COUNTERS)
    [ts] = _systems(path)
    prop = next(p for p in ts.properties if p.kind is PropertyKind.LTL)
    real = driver.fair_search_c

    def tampered(*args, **kwargs):
        result = real(*args, **kwargs)
        assert result.outcome == "found"
        (state, q) = result.part[-1]
        result.part[-1] = (state, q + 1)
        return result

    monkeypatch.setattr(bridge.engine_c, "fair_search_c", tampered)
    v = api.check_property(ts, prop, api.CheckOptions(engine="c"))
    assert v.outcome is Outcome.VIOLATED and v.lasso is not None
    assert any("checked by the Python engine" in n and "fair part" in n for n in v.notes)
    assert ("engine", "c") not in v.statistics.extra


def test_a_model_error_is_the_python_engines_verdict(tmp_path: Path) -> None:
    """An index out of range met by the C fair search: the same VIOLATED verdict, kind
    and trace as the Python engine's (the path is replayed, the error re-raised by
    the Python semantics)."""
    path = tmp_path / "error.pml"
    path.write_text("byte a[3];\nbyte i;\nactive proctype P() {\n"
                    "  do\n  :: i < 5 -> a[i] = 1; i++\n  od\n}\nltl { [] (i < 10) }\n")
    [ts] = _systems(path)
    assert compare(ts, LIMIT) == len(driver.LTL_FAIRNESS)
    prop = next(p for p in ts.properties if p.kind is PropertyKind.LTL)
    v = api.check_property(ts, prop, api.CheckOptions(engine="c"))
    assert v.outcome is Outcome.VIOLATED and v.trace is not None and v.lasso is None
    assert "index" in v.reason
    assert ("engine", "c") in v.statistics.extra


# ---------------------------------------------------------------------------------
# Random systems (the generator of test_engine_c.py) with a random LTL property, under
# every notion the C search takes: the same verdicts and counts, C lassos replayed.

FORMULAS = ("GF", "FG", "G->F")


@st.composite
def random_ltl_systems(draw):
    ts = draw(random_systems())
    var = G(draw(st.sampled_from(VARS)))
    atom = LtlState(eq(var, draw(st.integers(0, 3))), "p")
    shape = draw(st.sampled_from(FORMULAS))
    if shape == "GF":
        formula = LtlUnary("G", LtlUnary("F", atom))
    elif shape == "FG":
        formula = LtlUnary("F", LtlUnary("G", LtlUnary("!", atom)))
    else:
        other = LtlState(eq(G(draw(st.sampled_from(VARS))), draw(st.integers(0, 3))), "q")
        formula = LtlUnary("G", LtlBinary("->", atom, LtlUnary("F", other)))
    ltl = Property("random", PropertyKind.LTL, shape, formula=formula)
    return dataclasses.replace(ts, properties=(ltl,))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(random_ltl_systems())
def test_random_systems_agree_under_every_notion(ts: TransitionSystem) -> None:
    ok, why = driver.supports(ts)
    if not ok:
        assert "does not translate" in why or "rejects the model" in why, why
        return
    compare(ts, 3000)


# A model whose strong-fairness checks need the Fig. 5 recursion in C: the two
# processes share a flag; under strong local / process-strong fairness the accepting
# component is pruned down (states where a process is enabled but never moves).
FIG5 = """
byte x;
bool stop;
active proctype A() {
  do
  :: !stop -> x = (x + 1) % 3
  :: x == 2 -> stop = true
  :: stop -> stop = false
  od
}
active proctype B() {
  do
  :: x == 1 -> x = 0
  od
}
ltl { []<> (x == 0) }
"""


def test_strong_notions_use_fig5_in_c(tmp_path: Path) -> None:
    """Strong local fairness judges the complete components by Fig. 5 in C (no early
    report can fire): it holds, with the Python engine's counts and the same subgraphs
    examined and states pruned."""
    path = tmp_path / "fig5.pml"
    path.write_text(FIG5)
    [ts] = _systems(path)
    assert compare(ts, LIMIT) == len(driver.LTL_FAIRNESS)
    prop = next(p for p in ts.properties if p.kind is PropertyKind.LTL)
    c = api.check_property(ts, prop, api.CheckOptions(engine="c",
                                                      fairness=Fairness.STRONG_LOCAL))
    extra = dict(c.statistics.extra)
    assert extra["engine"] == "c" and c.outcome is Outcome.HOLDS
    assert (c.statistics.states, _fig5(c)) == (40, (3, 7))


def test_a_fair_subgraph_found_by_fig5_in_c_is_replayed() -> None:
    """m41 under strong local fairness: the fair subgraph comes from Fig. 5 in C (not an
    early report); the C report (DFS path, path inside the component, subgraph) is
    rebuilt on the Python product and its lasso replayed."""
    [path] = [p for p in LTL_MODELS if p.name == "m41_hidden_show_np.pml"]
    [ts] = _systems(path)
    prop = next(p for p in ts.properties if p.kind is PropertyKind.LTL)
    options = dict(fairness=Fairness.STRONG_LOCAL)
    c = api.check_property(ts, prop, api.CheckOptions(engine="c", **options))
    py = api.check_property(ts, prop, api.CheckOptions(engine="python", **options))
    extra = dict(c.statistics.extra)
    assert extra["engine"] == "c" and extra["early_report"] is False
    assert c.outcome is Outcome.VIOLATED and c.lasso is not None and c.lasso.loop
    assert _fingerprint(c) == _fingerprint(py)


# 10 processes started by run, 7 statements each: 80 actions, more than the one word of
# action bits the C search starts with (from the initial instance, init, and its 11
# statements): the search stops at the 65th and runs again with enough words.
RUN_MANY = """
byte c[10];
proctype P(byte i) {
  do
  :: c[i] = 1
  :: c[i] = 2
  :: c[i] = 3
  :: c[i] = 4
  :: c[i] = 5
  :: c[i] = 6
  :: c[i] = 0
  od
}
init {
  atomic { run P(0); run P(1); run P(2); run P(3); run P(4); run P(5); run P(6); run P(7);
           run P(8); run P(9) }
}
ltl { []<> (c[0] == 0) }
"""


def test_more_actions_than_first_words(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "run_many.pml"
    path.write_text(RUN_MANY)
    [ts] = _systems(path)
    statuses = []
    real = driver._ltl_result

    def spy(model, handle, result, options):
        statuses.append((result.status, result.items))
        return real(model, handle, result, options)

    monkeypatch.setattr(driver, "_ltl_result", spy)
    assert compare(ts, 3000) == len(driver.LTL_FAIRNESS)
    # weak and strong-local met 80 actions, which one word cannot hold: each search
    # ran again with more (a result that ran out of words would say so: status 8)
    assert [(status, items) for status, items in statuses if items] == [(3, 80), (3, 80)]
