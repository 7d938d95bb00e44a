"""A large strongly globally fair part that the C engine found and checked in a
symmetry quotient of a Promela model was lifted to a run of the model
(``api._lift_quotient_part``), which assumes that the representative is a function
of the orbit and that every permutation is an automorphism. In a dynamic layout
neither holds once a phase or a family member has died (the plan leaves the family
alone; members die youngest first), and ``concretize`` raised "quotient step without a
concrete counterpart" as a traceback. A dynamic quotient's violation now gets its
counterexample from the full search, as a small part's does."""

from __future__ import annotations

import pytest

from bridge import api
from bridge.engine_c.build import find_compiler
from bridge.frontends.promela import load_promela
from bridge.ir import Fairness, Outcome
from tests.conftest import in_ci

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


def test_a_checked_part_of_a_dynamic_quotient_is_not_lifted(monkeypatch) -> None:
    monkeypatch.setattr(api, "LOOP_PRINT_NODES", 1)  # every part is checked in C
    ts = load_promela("m.pml", MODEL).systems[0]
    options = api.CheckOptions(engine="c", symmetry=True, fairness=Fairness.STRONG_GLOBAL)
    v = api.check_property(ts, ts.properties[0], options)
    assert v.outcome is Outcome.VIOLATED
    assert any("violated in the symmetry quotient" in n for n in v.notes), v.notes
    assert "lifted from the symmetry quotient" not in v.reason
