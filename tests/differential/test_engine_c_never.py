"""The compiled engine's fair search on never claims, non-progress and acceptance cycles
against the Python engine's (issue 12, items 1-2 and 4).

Every test model and case-study model with a never claim or ``progress``/``accept``
labels, and the corner models below, under every fairness notion (and with
command-line annotations): ``bridge.api`` with ``--engine c`` and with ``--engine
python`` must give the same verdict: outcome, reason (``never claim terminated``,
``acceptance cycle``, ``non-progress cycle``, ``accept stutter``), product states and
transitions, notes (a C run handed to the Python engine would add one) and
counterexample. The C search reads the claim's guards as compiled expressions and
``np_`` / "some instance at an accept location" as generated predicates
(``engine_c.LabelAtom``); its counterexample is replayed on the Python semantics
(``api._compiled._replay_c_search``) before it is returned. The SPIN differential tests of these
kinds (``pan -a``, ``pan -l``, ``-f``) run on both engines too
(``test_promela_semantics_spin.py``, ``tests/unit/fairness/test_never_claim.py``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bridge import api
from bridge.diagnostics import UnsupportedError
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.frontends.promela import load_promela
from bridge.ir import Fairness, Outcome, PropertyKind, TransitionSystem
from bridge.ir.expr import ElseGuard
from bridge.ir.property import Property
from tests.conftest import in_ci
from tests.differential.test_engine_c import CASE_STUDIES, TEST_MODELS, VARS, random_systems
from tests.differential.test_engine_c_ltl import cli_annotations
from tests.irbuild import G, edge, eq, process
from tests.unit.fairness.test_never_claim import WITH_ELSE

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

KINDS = (PropertyKind.NEVER, PropertyKind.NON_PROGRESS, PropertyKind.ACCEPTANCE)
LIMIT = 20000
CASE_STUDY_LIMIT = 6000


def _with_labels(paths: list[Path]) -> list[Path]:
    words = ("never", "progress", "accept")
    return [p for p in paths if p.suffix == ".pml"
            and any(w in p.read_text(errors="replace") for w in words)]


LABEL_MODELS = _with_labels(TEST_MODELS)
LABEL_CASE_STUDIES = _with_labels(CASE_STUDIES)


def _fingerprint(v, exact_lasso: bool) -> tuple:  # noqa: ANN001
    s = v.statistics
    # The lasso may differ where several fair parts or loops exist: both engines build
    # it with emptiness.build_lasso, but on Python products whose node ids differ (the
    # C report is rebuilt on a fresh one). The C one is replayed and re-checked there
    # (acceptance, fairness) before it is returned: one that did not replay would add a
    # note of the Python engine, which the notes compared here would show.
    lasso = v.lasso if exact_lasso else (v.lasso is not None and len(v.lasso.loop) > 0)
    return (v.outcome, v.reason, s.states, s.transitions, v.notes, v.fairness, v.trace,
            lasso)


def _has_kinds(system: TransitionSystem) -> bool:
    return any(p.kind in KINDS for p in system.properties)


def compare(system: TransitionSystem, limit: int, annotations: tuple = (),
            notions: tuple = tuple(Fairness), exact_lasso: bool = False) -> list[tuple]:
    """Compare the engines on every never, non-progress and acceptance property of
    ``system`` under ``notions`` and ``annotations``; return the C verdicts'
    fingerprints (one per property and notion). ``exact_lasso``: the counterexamples
    must be equal too (models with one fair loop to find)."""
    found = []
    for prop in system.properties:
        if prop.kind not in KINDS:
            continue
        for fairness in notions:
            options = dict(fairness=fairness, max_states=limit, annotations=annotations)
            c = api.check_property(system, prop, api.CheckOptions(engine="c", **options))
            py = api.check_property(system, prop, api.CheckOptions(engine="python", **options))
            assert _fingerprint(c, exact_lasso) == _fingerprint(py, exact_lasso), (
                prop.name, fairness)
            assert ("engine", "c") in c.statistics.extra, (prop.name, fairness)
            assert ("engine", "c") not in py.statistics.extra
            found.append(_fingerprint(c, exact_lasso))
    return found


def _systems(path: Path) -> list[TransitionSystem]:
    return list(api.load_model(str(path)).systems)


def test_label_models_exist() -> None:
    kinds = {p.kind for path in LABEL_MODELS for ts in _systems(path) for p in ts.properties}
    assert set(KINDS) <= kinds
    assert sum(_has_kinds(ts) for path in LABEL_MODELS for ts in _systems(path)) >= 12
    assert LABEL_CASE_STUDIES


@pytest.mark.parametrize("path", LABEL_MODELS, ids=lambda p: p.name)
def test_test_models_agree(path: Path) -> None:
    for ts in _systems(path):
        compare(ts, LIMIT)


@pytest.mark.parametrize("path", LABEL_MODELS, ids=lambda p: p.name)
def test_test_models_agree_with_annotations(path: Path) -> None:
    for ts in _systems(path):
        if _has_kinds(ts):
            compare(ts, 5000, annotations=cli_annotations(ts))


@pytest.mark.parametrize("path", LABEL_CASE_STUDIES, ids=lambda p: p.name)
def test_case_studies_agree(path: Path) -> None:
    for ts in _systems(path):
        compare(ts, CASE_STUDY_LIMIT)


# ---------------------------------------------------------------------------------
# Corner models: each verdict is derived by hand (and checked against pan in
# test_corners_agree_with_spin); each fails on a mutation of the C search named in its
# comment.

# The claim terminates once x == 3: every fair continuation violates ("never claim
# terminated"). Mutation caught: the C search dropping the claim's terminal true loop
# or reading its guard wrongly (the claim would never terminate: holds).
TERMINATES = """
byte x;
active proctype P() { do :: x < 4 -> x++ :: x == 4 -> x = 0 od }
never { do :: x == 3 -> break :: else od }
"""

# x is 1 only in the initial state: the claim terminates only because it reads s0
# first. Mutation caught: the initial letter not read from the initial state.
READS_INITIAL = """
byte x = 1;
active proctype P() { x = 0; do :: x = 2 :: x = 0 od }
never { do :: x == 1 -> break :: else od }
"""

# else (test_never_claim.WITH_ELSE): the claim accepts "y == 0 until y != 0, then y != 0
# for ever". P cycles y 0, 1, 2, 0 (back at y == 0 the claim blocks in ``stop``) or
# stops at y == 1, where the run stutters and the claim's accept_S loop accepts it:
# violated under every notion (a state without steps stutters fairly), the run ends.
# Mutation caught: the C cubes of an else edge (the claim would block at once).

# The progress label is in W, started by run; init toggles b for ever. Without fairness
# init's loop alone is a non-progress cycle; under every notion W must move and
# passes its progress label on every turn of its loop: holds. Mutation caught: np_
# reading the static instances only (W never at progress: violated).
PROGRESS_IN_RUN = """
byte n;
proctype W() { do :: n < 2 -> n++ :: n == 2 -> progress: n = 0 od }
byte b;
init { run W(); do :: b = 1 - b od }
"""

# A run that ends away from any progress label (the labelled option is never
# enabled) is no non-progress cycle (pan: np_ is false on the stutter step): holds
# under every notion. Mutation caught: np_ true on the stutter step (violated).
ENDS_WITHOUT_PROGRESS = """
active proctype P() {
  byte i;
  do
  :: i < 3 -> i++
  :: i == 9 -> progress: i = 0
  :: i == 3 -> break
  od
}
"""

# The only accept location is where P blocks for ever: the acceptance cycle is the
# stutter of the last state ("accept stutter"). Mutation caught: the accept predicate
# false there (holds), e.g. reading the wrong location slot.
ACCEPT_BY_STUTTER = """
byte i;
active proctype P() { do :: i < 3 -> i++ :: else -> break od; accept: (i == 0) }
"""

# An assert in the claim (SPIN checks it when the claim takes that step): an edge to a
# violation state under the negated condition. Found by the survey (SPIN's
# Examples/werkplaats.pml was refused). Mutation caught: the violation edge dropped
# (holds), or taken under the condition instead of its negation (violated at once).
CLAIM_ASSERT = """
byte x;
active proctype P() { do :: x < 3 -> x++ :: x == 3 -> break od }
never { do :: assert(x < %d) od }
"""

CORNERS = {
    "claim_assert_fails": (CLAIM_ASSERT % 3, PropertyKind.NEVER,
                           {f: "assertion of the never claim violated" for f in Fairness}),
    "claim_assert_holds": (CLAIM_ASSERT % 4, PropertyKind.NEVER, {f: "" for f in Fairness}),
    "terminates": (TERMINATES, PropertyKind.NEVER,
                   {f: "never claim terminated" for f in Fairness}),
    "reads_initial": (READS_INITIAL, PropertyKind.NEVER,
                      {f: "never claim terminated" for f in Fairness}),
    "with_else": (WITH_ELSE, PropertyKind.NEVER,
                  {f: "acceptance cycle (the run ends" for f in Fairness}),
    "progress_in_run": (PROGRESS_IN_RUN, PropertyKind.NON_PROGRESS,
                        {f: "non-progress cycle" if f is Fairness.NONE else ""
                         for f in Fairness}),
    "ends_without_progress": (ENDS_WITHOUT_PROGRESS, PropertyKind.NON_PROGRESS,
                              {f: "" for f in Fairness}),
    "accept_by_stutter": (ACCEPT_BY_STUTTER, PropertyKind.ACCEPTANCE,
                          {f: "accept stutter" for f in Fairness}),
}


def _corner(name: str) -> tuple[TransitionSystem, object]:
    text, kind, _ = CORNERS[name]
    system = load_promela(f"{name}.pml", text).systems[0]
    return system, next(p for p in system.properties if p.kind is kind)


@pytest.mark.parametrize("name", sorted(CORNERS))
def test_corner_models(name: str) -> None:
    """The C engine's verdict (reason, hence outcome) under every notion is the one
    derived by hand, and the Python engine's, with the same counts and counterexample."""
    system, prop = _corner(name)
    expected = CORNERS[name][2]
    for fairness in Fairness:
        c = api.check_property(system, prop, api.CheckOptions(engine="c", fairness=fairness))
        assert ("engine", "c") in c.statistics.extra
        want = expected[fairness]
        assert c.outcome is (Outcome.VIOLATED if want else Outcome.HOLDS), (fairness, c.reason)
        assert c.reason.startswith(want), (fairness, c.reason)
        if want:
            assert c.lasso is not None and c.lasso.loop
    compare(system, LIMIT, exact_lasso=True)


@pytest.mark.spin
@pytest.mark.parametrize("name", sorted(CORNERS))
def test_corners_agree_with_spin(name: str) -> None:
    """pan agrees with the corners' verdicts without fairness and with -f (process-weak)."""
    import shutil

    from tests.differential.test_promela_semantics_spin import _errors

    if shutil.which("spin") is None or find_compiler() is None:
        pytest.skip("spin and a C compiler are needed")
    text, kind, expected = CORNERS[name]
    system, prop = _corner(name)
    defines = {PropertyKind.NEVER: ("-DNOREDUCE", "-DNFAIR=4"),
               PropertyKind.NON_PROGRESS: ("-DNOREDUCE", "-DNP", "-DNOCLAIM", "-DNFAIR=4"),
               PropertyKind.ACCEPTANCE: ("-DNOREDUCE", "-DNOCLAIM", "-DNFAIR=4")}[kind]
    flag = "-l" if kind is PropertyKind.NON_PROGRESS else "-a"
    import tempfile

    with tempfile.TemporaryDirectory() as work:
        model = Path(work) / f"{name}.pml"
        model.write_text(text)
        for fairness, extra in ((Fairness.NONE, ()), (Fairness.PROCESS_WEAK, ("-f",))):
            errors, message = _errors(model, defines, (flag, "-n", *extra))
            c = api.check_property(system, prop, api.CheckOptions(engine="c", fairness=fairness))
            assert (c.outcome is Outcome.VIOLATED) == (errors > 0), (fairness, message, c.reason)
            assert bool(expected[fairness]) == (errors > 0)


def test_auto_uses_the_c_engine_for_these_kinds() -> None:
    """With the library built, ``auto`` runs these kinds in C (no note of the Python
    engine, the C engine's statistics)."""
    for name in ("terminates", "progress_in_run", "accept_by_stutter"):
        system, prop = _corner(name)
        api.check_property(system, prop, api.CheckOptions(engine="c"))
        auto = api.check_property(system, prop, api.CheckOptions(engine="auto"))
        assert ("engine", "c") in auto.statistics.extra, name
        assert not any("Python engine" in n for n in auto.notes), auto.notes


def test_claims_the_python_engine_refuses_stay_refused() -> None:
    """A claim with side effects is refused with the Python engine's message, on every
    engine."""
    text = "byte x; active proctype P() { x = 1 }\nnever { do :: x == 1 -> printf(\"hi\") od }"
    system = load_promela("m.pml", text).systems[0]
    prop = next(p for p in system.properties if p.kind is PropertyKind.NEVER)
    for engine in ("c", "auto", "python"):
        with pytest.raises(UnsupportedError, match="never claim statement 'printf"):
            api.check_property(system, prop, api.CheckOptions(engine=engine))


# ---------------------------------------------------------------------------------
# Random systems (the generator of test_engine_c.py) with random progress and accept
# locations and a random never claim, under every notion: the same verdicts, counts
# and notes on both engines.


@st.composite
def random_labelled_systems(draw):  # noqa: ANN201
    ts = draw(random_systems())
    assume(ts.composition is None)  # Promela-like: np_ and never claims are Promela's
    processes = []
    for p in ts.processes:
        locations = tuple(dataclasses.replace(loc, progress=draw(st.integers(0, 2)) == 0,
                                              accept=draw(st.integers(0, 2)) == 0)
                          for loc in p.locations)
        processes.append(dataclasses.replace(p, locations=locations))
    atom = eq(G(draw(st.sampled_from(VARS))), draw(st.integers(0, 3)))
    if draw(st.booleans()):  # "eventually always atom": an accepting loop
        claim = process("never", [edge(0, 0), edge(0, 1, guard=atom), edge(1, 1, guard=atom)])
        claim = dataclasses.replace(claim, locations=(
            claim.locations[0], dataclasses.replace(claim.locations[1], accept=True)))
    else:  # "atom some time": the claim terminates
        claim = process("never", [edge(0, 1, guard=atom), edge(0, 0, guard=ElseGuard())],
                        terminal=[1])
    properties = (Property("never", PropertyKind.NEVER, "never claim"),
                  Property("non-progress-cycles", PropertyKind.NON_PROGRESS,
                           "non-progress cycles"),
                  Property("acceptance-cycles", PropertyKind.ACCEPTANCE, "acceptance cycles"))
    return dataclasses.replace(ts, processes=tuple(processes), never=claim,
                               properties=properties)


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(random_labelled_systems())
def test_random_systems_agree_under_every_notion(ts: TransitionSystem) -> None:
    ok, why = driver.supports(ts)
    if not ok:
        assert "does not translate" in why or "rejects the model" in why, why
        return
    compare(ts, 3000)
