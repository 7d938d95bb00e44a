"""A large strong globally fair part is checked as a whole, not through its lasso (issue 13).

The orienting rings N = 4 rows: the C engine found a fair accepting part of 374,706
quotient nodes, then the Python replay built a lasso taking every step of it (millions
of steps, each replayed) and the violation found in the quotient started a blind
search of the full state space; neither ended in 25 minutes nor watched --timeout.
Now a part larger than ``api.LOOP_PRINT_NODES`` is checked in one pass, by the C engine
that found it (``bridge_ltl_check_part``, the C twin of ``fairness.terminal``: closed
under steps, strongly connected, accepting; paper 001 Lemma 2; the two are compared in
``tests/differential/test_engine_c_part_check.py``), the path into it is replayed on
the Python semantics, the verdict prints that path, and in a quotient the path is
lifted to a run of the model (Lemma 1, ``Verdict.lifted``) instead of searching the
full state space. The threshold is lowered here so that small models take that path.
"""

from __future__ import annotations

import dataclasses

import pytest

from bridge import api
from bridge.cli import main
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import Fairness, Outcome, PropertyKind
from bridge.semantics.statespace import build_state_space
from tests.conftest import in_ci
from tests.differential.test_engine_c_symmetry import RULES, _with_properties
from tests.unit.reductions.symmodels import node_family

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

GLOBAL = Fairness.STRONG_GLOBAL


def _replays(space, trace) -> bool:
    """Return True when ``trace`` is a run of ``space`` from its initial state: each step
    is a successor with the step's event and the variables' new values."""
    state = space.initial_states()[0]
    shown = {k: v for k, v in space.valuation(state).items() if not k.endswith("@")}
    if shown != {k: v for k, v in trace.initial if not k.endswith("@")}:
        return False
    for step in trace.steps:
        want = dict(shown)
        for name, _old, new in step.changes:
            want[name] = new
        for st, target in space.successors(state):
            after = {k: v for k, v in space.valuation(target).items() if not k.endswith("@")}
            if st.event == step.event and after == want:
                state, shown = target, after
                break
        else:
            return False
    return True


def _violated(ts, symmetry: bool, timeout: float | None = None):
    out = []
    for prop in ts.properties:
        if prop.kind is not PropertyKind.LTL:
            continue
        v = api.check_property(ts, prop, api.CheckOptions(engine="c", fairness=GLOBAL,
                                                          symmetry=symmetry, timeout=timeout))
        if v.outcome is Outcome.VIOLATED:
            out.append((prop, v))
    return out


def test_a_large_fair_part_is_certified_and_its_path_printed(monkeypatch):
    monkeypatch.setattr(api._compiled, "LOOP_PRINT_NODES", 2)
    ts = _with_properties(node_family(3, RULES, False), 3)
    violated = _violated(ts, symmetry=False)
    assert violated
    space = build_state_space(ts)
    for prop, v in violated:
        assert "terminal accepting component" in v.reason, v.reason
        assert "checked by the C engine" in v.reason
        assert "the path into it replayed on the Python semantics" in v.reason
        assert dict(v.statistics.extra)["part_check_seconds"] >= 0
        assert v.lasso is None and v.trace is not None
        assert _replays(space, v.trace)
        assert not any("checked by the Python engine" in n for n in v.notes), v.notes
        py = api.check_property(ts, prop, api.CheckOptions(engine="python", fairness=GLOBAL))
        assert py.outcome is Outcome.VIOLATED


def test_a_part_that_is_not_closed_is_refused_and_the_python_engine_answers(monkeypatch):
    monkeypatch.setattr(api._compiled, "LOOP_PRINT_NODES", 2)
    real = driver._check_part
    dropped: list[int] = []

    def one_node_short(lib, handle, params, nodes, timeout):
        # a C part with a node missing: some step of the part leaves what is left
        dropped.append(nodes[-1])
        return real(lib, handle, params, nodes[:-1], timeout)

    monkeypatch.setattr(driver, "_check_part", one_node_short)
    ts = _with_properties(node_family(3, RULES, False), 3)
    violated = _violated(ts, symmetry=False, timeout=600)  # the fallback gets the rest
    assert violated and dropped
    for _prop, v in violated:
        assert any("checked by the Python engine: the C engine's fair part" in n
                   for n in v.notes), v.notes
        assert v.lasso is not None  # the Python engine's own counterexample


@pytest.mark.parametrize("n", [4, 5])
def test_a_quotient_violation_is_lifted_to_a_run_of_the_model(monkeypatch, n):
    monkeypatch.setattr(api._compiled, "LOOP_PRINT_NODES", 2)
    ts = _with_properties(node_family(n, RULES, "undirected"), n)
    violated = _violated(ts, symmetry=True)
    lifted = [(p, v) for p, v in violated if v.lifted]
    assert lifted, [v.reason for _p, v in violated]
    space = build_state_space(ts)
    for prop, v in lifted:
        assert _replays(space, v.trace), v.reason
        assert not any("full search" in note for note in v.notes), v.notes
        full = api.check_property(ts, prop, api.CheckOptions(engine="c", fairness=GLOBAL))
        assert full.outcome is Outcome.VIOLATED


def test_a_quotient_part_closed_only_per_state_is_not_lifted(monkeypatch):
    # the lift needs every node to take all its steps inside the part; without that
    # the counterexample comes from the search of the full state space
    monkeypatch.setattr(api._compiled, "LOOP_PRINT_NODES", 2)
    real = driver._check_part

    def per_state_only(*args):
        return dataclasses.replace(real(*args), node_closed=False)

    monkeypatch.setattr(driver, "_check_part", per_state_only)
    ts = _with_properties(node_family(4, RULES, "undirected"), 4)
    violated = _violated(ts, symmetry=True)
    assert violated
    for _prop, v in violated:
        assert not v.lifted
        assert "lifted from the symmetry quotient" not in v.reason
        assert any("counterexample comes from a search of the full state space" in n
                   for n in v.notes), v.notes


def test_the_part_check_stops_at_the_deadline_with_a_clean_limit(monkeypatch, tmp_path,
                                                                 capsys):
    # the C part check gets (almost) no time: it ends as a limit, checked in C
    real = driver._check_part

    def late(lib, handle, params, nodes, timeout):
        assert timeout is not None and 0 < timeout <= 600
        return real(lib, handle, params, nodes, 1e-9)

    monkeypatch.setattr(api._compiled, "LOOP_PRINT_NODES", 2)
    monkeypatch.setattr(driver, "_check_part", late)
    model = tmp_path / "spin.csp"
    model.write_text(SPIN)
    code = main(["check", str(model), "--fairness", "strong-global", "--engine", "c",
                 "--timeout", "600"])
    out = capsys.readouterr().out
    assert code == 3, out
    assert "time limit reached before a verdict" in out
    assert "states" in out


SPIN = """
var x = 0;
P() = up{x = (x + 1) % 40} -> P() [] down{x = (x + 39) % 40} -> P();
#define zero (x == 0);
#assert P() |= <>[] zero;
"""


def test_terminal_part_check_counts_a_whole_cycle(monkeypatch, tmp_path, capsys):
    # 40 states, each with two steps, all in one terminal component: the verdict names
    # every product state and edge of it
    monkeypatch.setattr(api._compiled, "LOOP_PRINT_NODES", 2)
    model = tmp_path / "spin.csp"
    model.write_text(SPIN)
    code = main(["check", str(model), "--fairness", "strong-global", "--engine", "c"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "terminal accepting component (40 product states, 40 system states, 80 edges" in out
