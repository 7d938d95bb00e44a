"""Symmetry reduction on the C engine against the Python engine (issue 13).

The C fair search searches the quotient of paper 001 Def. 4 with the Python engine's
representatives (``templates/c/symmetry.c`` from ``SymmetryReduction.group_action``),
so ``bridge.api`` with ``--symmetry`` must give the same verdict on both engines: the
same outcome, the same quotient state and transition counts, the same notes; a
violation found in the quotient comes with a counterexample from the full search,
replayed on the Python semantics. Models: hand-built families (complete network: the
full group, enumerated up to 4 positions and sorted beyond; directed ring: rotations;
undirected ring: rotations and reflections), random ones (hypothesis) and the case
studies' symmetry rows at the sizes the Python engine finishes in a few seconds.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.frontends.promela import load_promela
from bridge.ir import Fairness, Outcome, PropertyKind, TransitionSystem
from bridge.ir.property import LtlUnary, Property
from bridge.reductions.symmetry import SymmetryReduction, detect_symmetry
from bridge.semantics.statespace import build_state_space
from tests.conftest import in_ci
from tests.unit.fairness.test_check_ltl import _replay
from tests.unit.reductions.fairtools import reachable
from tests.unit.reductions.symmodels import count_atom, node_family

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

CASES = Path(__file__).resolve().parents[2] / "case_studies"
RULES = [("me", 0, "me", 1, "nb", 2), ("nb", 2, "nb", 0, "x", 1), ("me", 1, "me", 0, "me", 0)]
NOTIONS = (Fairness.NONE, Fairness.STRONG_GLOBAL)
ENGINE_NOTE = "checked by the Python engine"


def _fg(atom):
    return LtlUnary("F", LtlUnary("G", atom))


def _gf(atom):
    return LtlUnary("G", LtlUnary("F", atom))


def _with_properties(ts: TransitionSystem, n: int) -> TransitionSystem:
    props = tuple(Property(f"p{k}", PropertyKind.LTL, f"p{k}", formula=f(count_atom(n, v, c)))
                  for k, (f, v, c) in enumerate([(_fg, 1, 1), (_gf, 2, 0), (_fg, 0, n)]))
    return type(ts)(**{**{f: getattr(ts, f) for f in ts.__dataclass_fields__},
                       "properties": props})


def _fingerprint(v) -> tuple:
    s = v.statistics
    return (v.outcome, v.reason, s.states, s.transitions, v.notes, v.fairness,
            v.lasso is not None and len(v.lasso.loop) > 0)


def _engine(v) -> str:
    return dict(v.statistics.extra).get("engine", "python")


def compare(system: TransitionSystem, notions=NOTIONS, props=None) -> list:
    """Check every LTL property of ``system`` with --symmetry on both engines; return
    the C verdicts (each asserted equal to the Python one)."""
    out = []
    for prop in props if props is not None else system.properties:
        if prop.kind is not PropertyKind.LTL:
            continue
        for fairness in notions:
            options = dict(fairness=fairness, symmetry=True, max_states=200_000)
            c = api.check_property(system, prop, api.CheckOptions(engine="c", **options))
            py = api.check_property(system, prop, api.CheckOptions(engine="python", **options))
            assert not any(ENGINE_NOTE in n for n in c.notes), c.notes
            assert _fingerprint(c) == _fingerprint(py), (prop.text, fairness)
            quotient = any("symmetry:" in n and "not applied" not in n for n in c.notes)
            if quotient and c.outcome is not Outcome.VIOLATED:
                assert _engine(c) == "c", c.statistics.extra
            if c.outcome is Outcome.VIOLATED:
                assert c.lasso is not None and c.lasso.loop  # replayed on the full space
            out.append(c)
    return out


@pytest.mark.parametrize("ring,n", [(False, 3), (False, 5), (True, 4), ("undirected", 5)])
def test_quotient_counts_and_verdicts_agree(ring, n):
    # n = 5 in a complete network: the full group sorted, not enumerated (_Sorter)
    ts = _with_properties(node_family(n, RULES, ring), n)
    verdicts = compare(ts)
    quotients = [v for v in verdicts if any("symmetry:" in note and "not applied" not in note
                                            for note in v.notes)]
    assert quotients, [v.notes for v in verdicts]


def test_a_violation_in_the_quotient_gets_a_replayed_counterexample_from_the_full_search():
    ts = _with_properties(node_family(3, RULES, False), 3)
    verdicts = compare(ts)
    violated = [v for v in verdicts if v.outcome is Outcome.VIOLATED]
    assert violated
    assert all(any("violated in the symmetry quotient" in n for n in v.notes) for v in violated)


def test_the_c_quotient_has_the_python_quotient_states():
    # no fairness, a formula that holds (no cell is ever 3): every quotient state is
    # expanded once, so the C search interns exactly the Python quotient's states
    ts = node_family(4, RULES, "undirected")
    prop = Property("p", PropertyKind.LTL, "p", formula=_fg(count_atom(4, 3, 0)))
    ts = type(ts)(**{**{f: getattr(ts, f) for f in ts.__dataclass_fields__},
                     "properties": (prop,)})
    spec = detect_symmetry(ts, prop.formula, Fairness.NONE)
    quotient = SymmetryReduction(build_state_space(ts), ts, spec)
    seen = reachable(quotient)
    c = api.check_property(ts, prop, api.CheckOptions(engine="c", symmetry=True))
    assert c.outcome is Outcome.HOLDS and _engine(c) == "c"
    assert dict(c.statistics.extra)["system_states"] == len(seen) < len(
        reachable(build_state_space(ts)))


@pytest.mark.parametrize("path", ["le_r/le_r_4.csp", "le_c/le_c_4.csp"])
def test_case_study_symmetry_rows_agree(path):
    ts = api.load_model(str(CASES / path)).systems[0]
    compare(ts, notions=(Fairness.STRONG_GLOBAL,), props=ts.properties[-1:])


def test_weak_fairness_runs_the_c_engine_unreduced_with_the_reason():
    ts = _with_properties(node_family(3, RULES, True), 3)
    prop = ts.properties[0]
    options = dict(fairness=Fairness.WEAK, symmetry=True)
    c = api.check_property(ts, prop, api.CheckOptions(engine="c", **options))
    py = api.check_property(ts, prop, api.CheckOptions(engine="python", **options))
    assert _fingerprint(c) == _fingerprint(py)
    assert any("symmetry: not applied" in n and "weak" in n for n in c.notes), c.notes


PROMELA_RING = """
byte a[3];
active [3] proctype Node() {
    do
    :: a[_pid] == 0 -> a[_pid] = 1
    :: a[_pid] == 1 -> a[_pid] = 0
    od
}
ltl p { <>[] (a[0] + a[1] + a[2] >= 0) }
"""


MUTEX = """
bool lock; byte cs;
active [3] proctype P() {
  do
  :: atomic { !lock -> lock = true }; cs++; cs--; lock = false
  od
}
ltl safe { [] (cs <= 1) }
ltl often { [] <> (cs == 1) }
"""

# the family can finish: a Promela process dies only when it is the youngest, so the
# symmetry is refused (by name, on both engines)
DYING = """
byte x[3];
active [3] proctype P() {
  x[_pid] = 1;
  x[_pid] = 2
}
ltl ends { <> (x[0] + x[1] + x[2] == 6) }
ltl never6 { [] (x[0] + x[1] + x[2] < 6) }
"""

# R (pid 0) starts Q whenever fewer than 5 processes live: each Q takes pid 4, dies,
# and its pid goes to the next (a Q is invariant: it is not permuted)
STARTED = """
byte x[3]; byte n;
active proctype R() {
  do
  :: _nr_pr < 5 -> run Q()
  od
}
active [3] proctype P() {
  do
  :: x[_pid - 1] < 2 -> x[_pid - 1]++
  :: x[_pid - 1] == 2 -> x[_pid - 1] = 0
  od
}
proctype Q() { n = 1 - n }
ltl bound { [] (x[0] + x[1] + x[2] <= 6) }
ltl flips { [] <> (n == 1) }
"""

# init (pid 3, not invariant: it writes x[0]) is a phase: no canonicalisation while it
# runs; once it is done, at its end or dead (its pid gone), states are canonicalised
PHASE = """
byte x[3];
active [3] proctype P() {
  do
  :: x[_pid] < 2 -> x[_pid]++
  :: x[_pid] == 2 -> x[_pid] = 0
  od
}
init { x[0] = 0 }
ltl some { [] <> (x[0] + x[1] + x[2] > 0) }
"""

# a pid-valued variable: the renaming does not permute values, so the Python engine
# refuses the symmetry; both engines say why and search the full space
PID_VALUED = """
byte turn; byte cs;
active [2] proctype P() {
  do
  :: turn == _pid -> cs++; cs--; turn = 1 - _pid
  od
}
ltl safe { [] (cs <= 1) }
"""

PROMELA = {"ring": PROMELA_RING, "mutex": MUTEX, "dying": DYING, "started": STARTED,
           "phase": PHASE, "pid_valued": PID_VALUED}


def _promela(name: str) -> TransitionSystem:
    return load_promela(f"{name}.pml", PROMELA[name]).systems[0]


@pytest.mark.parametrize("name", sorted(PROMELA))
def test_promela_quotients_agree(name):
    # dynamic layouts: the C engine finds the plan of each state's runtime layout
    ts = _promela(name)
    verdicts = compare(ts)
    space = build_state_space(ts)
    for v in verdicts:
        if v.outcome is Outcome.VIOLATED:
            _replay(space, v.lasso)  # the full search's counterexample, on the semantics
    reduced = [v for v in verdicts if any("symmetry: " in n and "not applied" not in n
                                          for n in v.notes)]
    assert bool(reduced) == (name not in ("pid_valued", "dying")), [v.notes for v in verdicts]
    if name == "dying":
        assert all(any("can finish" in n for n in v.notes) for v in verdicts)


@pytest.mark.parametrize("name", ["ring", "mutex", "started", "phase"])
def test_the_c_promela_quotient_has_the_python_quotient_states(name):
    # the formula never fails, so with no fairness every quotient state is expanded once:
    # the C search interns exactly the Python quotient's states
    ts = load_promela(f"{name}.pml", PROMELA[name] + "ltl t { [] <> (_nr_pr >= 0) }\n").systems[0]
    prop = next(p for p in ts.properties if p.name == "t")
    spec = detect_symmetry(ts, prop.formula, Fairness.NONE)
    seen = reachable(SymmetryReduction(build_state_space(ts), ts, spec))
    c = api.check_property(ts, prop, api.CheckOptions(engine="c", symmetry=True))
    assert c.outcome is Outcome.HOLDS and _engine(c) == "c"
    assert dict(c.statistics.extra)["system_states"] == len(seen)
    assert len(seen) < len(reachable(build_state_space(ts)))


def test_promela_symmetry_runs_on_the_c_engine_without_the_note():
    ts = load_promela("ring.pml", PROMELA_RING).systems[0]
    prop = ts.properties[0]
    spec = detect_symmetry(ts, prop.formula, Fairness.NONE)
    quotient = SymmetryReduction(build_state_space(ts), ts, spec)
    assert driver.symmetry_supports(ts, quotient.group_action()) == (True, "")
    auto = api.check_property(ts, prop, api.CheckOptions(engine="auto", symmetry=True))
    py = api.check_property(ts, prop, api.CheckOptions(engine="python", symmetry=True))
    assert auto.outcome is py.outcome and auto.statistics.states == py.statistics.states
    assert not any(ENGINE_NOTE in n for n in auto.notes), auto.notes
    assert any("symmetry: 3 instances of Node" in n for n in auto.notes), auto.notes


_rule = st.tuples(st.sampled_from(["me", "nb", "x"]), st.integers(0, 2),
                  st.sampled_from(["me", "nb", "x"]), st.integers(0, 2),
                  st.sampled_from(["me", "nb", "x"]), st.integers(0, 2))


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(rules=st.lists(_rule, min_size=1, max_size=3),
       ring=st.sampled_from([False, True, "undirected"]), n=st.integers(3, 4))
def test_random_families_agree(rules, ring, n):
    ts = _with_properties(node_family(n, rules, ring), n)
    compare(ts, props=ts.properties[:1])
