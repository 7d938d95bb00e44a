"""A large strongly globally fair part that the C engine found and checked in a
symmetry quotient of a Promela model is lifted to a run of the model
(``api._compiled._lift_quotient_part``, ``SymmetryReduction.concretize``), which needs the
representative to be a function of the orbit. With an init phase that had died the
plan stopped canonicalising, so it was not, and ``concretize`` raised "quotient step
without a concrete counterpart" as a traceback. A phase that has died is now done (the
plan canonicalises as before its death), and the lifted trace replays on the
semantics."""

from __future__ import annotations

import pytest

from bridge import api
from bridge.engine_c.build import find_compiler
from bridge.frontends.promela import load_promela
from bridge.ir import Fairness, Outcome
from bridge.ir.verdict import Lasso
from bridge.semantics.statespace import build_state_space
from tests.conftest import in_ci
from tests.unit.fairness.test_check_ltl import _replay

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

MODEL = """
byte x[3];
active [3] proctype P() {
  do
  :: x[_pid] < 2 -> x[_pid]++
  :: x[_pid] == 2 -> x[_pid] = 0
  od
}
init { x[0] = 0 }
ltl low { <> [] (x[0] + x[1] + x[2] < 6) }
"""


def test_a_checked_part_of_a_dynamic_quotient_is_lifted_to_a_run(monkeypatch) -> None:
    monkeypatch.setattr(api._compiled, "LOOP_PRINT_NODES", 1)  # every part is checked in C
    ts = load_promela("m.pml", MODEL).systems[0]
    options = api.CheckOptions(engine="c", symmetry=True, fairness=Fairness.STRONG_GLOBAL)
    v = api.check_property(ts, ts.properties[0], options)
    assert v.outcome is Outcome.VIOLATED
    assert "lifted from the symmetry quotient" in v.reason
    assert v.trace is not None and v.trace.steps
    _replay(build_state_space(ts), Lasso(v.trace, ()))
