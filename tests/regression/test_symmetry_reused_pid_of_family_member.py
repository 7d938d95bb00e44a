"""A dead family member's pid, taken by a process that ``run`` started, was still
permuted as a member by the symmetry plan of that runtime layout: the slots of a
foreign segment (here ``Q``'s location and ``x[2]``) were sorted with the members',
which made states that no run reaches (206 quotient states, 203 in the full space).
The plan (``SymmetryReduction._plan``, and ``sym_canon_dynamic`` in C) now leaves a
family alone unless every member's pid holds its own template. Detection refuses such
a family anyway now (its members can finish, test_symmetry_dying_promela_family.py),
so the plan is given the family by hand here."""

from __future__ import annotations

import pytest

from bridge.diagnostics import ConfigurationError
from bridge.frontends.promela import load_promela
from bridge.ir import Fairness
from bridge.reductions.symmetry import (
    Family,
    SymmetryReduction,
    SymmetrySpec,
    detect_symmetry,
)
from bridge.semantics.statespace import build_state_space
from tests.unit.reductions.fairtools import reachable

MODEL = """
byte x[3]; byte n;
active proctype R() {
  do
  :: _nr_pr < 4 -> run Q()
  od
}
active [3] proctype P() {
  x[_pid - 1] = 1;
  x[_pid - 1] = 2
}
proctype Q() { n = 1 - n }
ltl bound { [] <> (x[0] + x[1] + x[2] <= 6) }
"""


def test_quotient_states_are_reachable_states() -> None:
    ts = load_promela("m.pml", MODEL).systems[0]
    with pytest.raises(ConfigurationError, match="can finish"):
        detect_symmetry(ts, ts.properties[0].formula, Fairness.NONE)
    space = build_state_space(ts)
    full = reachable(space)
    # Q runs on pid 3, a dead member's, while the members on pids 1 and 2 live
    assert any([space.process_of(k, s).process.name for k in range(4)] == ["R", "P", "P", "Q"]
               for s in full if space.layout_of(s).n == 4)
    spec = SymmetrySpec((Family("P", (1, 2, 3), ("x",), "full"),), ())
    quotient = reachable(SymmetryReduction(build_state_space(ts), ts, spec))
    assert quotient <= full
    assert len(quotient) < len(full)
