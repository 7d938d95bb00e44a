"""Symmetry reduction took the quotient of a Promela model whose family arrays a
process started by ``run`` reads asymmetrically, and answered HOLDS for a property
the full search violates: detection checked the static instances only
(``system.instances``), and started processes are not permuted. Now every process
``run`` may start must be invariant under the renaming, and a family's own template
must not be started (its pid may take a dead member's position)."""

from __future__ import annotations

import pytest

from bridge import api
from bridge.diagnostics import ConfigurationError
from bridge.frontends.promela import load_promela
from bridge.ir import Fairness, Outcome
from bridge.reductions.symmetry import detect_symmetry

ASYMMETRIC_STARTED = """
byte x[2]; bool bad;
active [2] proctype P() {
  x[_pid] = 1;
  do :: skip od
}
proctype Q() { atomic { x[0] == 1 && x[1] == 0 -> bad = true } }
init { run Q() }
ltl p { [] !bad }
"""

STARTED_MEMBER = """
byte x[2];
active [2] proctype P() { x[_pid] = 1 }
init { run P() }
ltl p { [] (x[0] + x[1] <= 2) }
"""

SYMMETRIC_STARTED = """
byte x[2]; byte done;
active [2] proctype P() {
  do
  :: x[_pid] == 0 -> x[_pid] = 1; done++
  :: x[_pid] == 1 -> x[_pid] = 0
  od
}
proctype Q() { done == 2 -> done = 0 }
init { run Q() }
ltl p { [] (x[0] + x[1] <= 2) }
"""


def _system(text: str):
    return load_promela("m.pml", text).systems[0]


def test_an_asymmetric_started_process_refuses_the_symmetry() -> None:
    ts = _system(ASYMMETRIC_STARTED)
    with pytest.raises(ConfigurationError, match="Q, started by run, is not invariant"):
        detect_symmetry(ts, ts.properties[0].formula, Fairness.NONE)
    for engine in ("python", "auto"):
        v = api.check_property(ts, ts.properties[0],
                               api.CheckOptions(engine=engine, symmetry=True))
        assert v.outcome is Outcome.VIOLATED
        assert any("symmetry: not applied" in n for n in v.notes), v.notes


def test_starting_a_family_template_refuses_the_symmetry() -> None:
    ts = _system(STARTED_MEMBER)
    with pytest.raises(ConfigurationError, match="run starts P, the template of the family"):
        detect_symmetry(ts, ts.properties[0].formula, Fairness.NONE)


def test_an_invariant_started_process_keeps_the_symmetry() -> None:
    ts = _system(SYMMETRIC_STARTED)
    spec = detect_symmetry(ts, ts.properties[0].formula, Fairness.NONE)
    assert [f.template for f in spec.families] == ["P"]
