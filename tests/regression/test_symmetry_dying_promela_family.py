"""Symmetry reduction of a Promela family whose processes finish: a finished Promela
process dies only when it is the youngest live one, so a permutation of the positions
is not a symmetry of the death steps, and the quotient (with an init phase here) had
violations that the full state space has not ("BUG: the symmetry-reduced search found
a violation that the full search does not"; found by random models against the full
search). Such a family is now refused by name; families that never finish keep it."""

from __future__ import annotations

import pytest

from bridge import api
from bridge.diagnostics import ConfigurationError
from bridge.frontends.promela import load_promela
from bridge.ir import Fairness, Outcome
from bridge.reductions.symmetry import detect_symmetry

FINISHING = """
byte x[3]; byte c;
active [3] proctype P() { atomic { x[_pid] = 1; c++ }; c--; x[_pid] = 2 }
init { x[0] = 0; c = 1 - c }
ltl q { [] !((_nr_pr == 2) && (x[0] + x[1] + x[2] < 2)) }
"""

LOOPING = """
byte x[3]; byte c;
active [3] proctype P() {
  do :: atomic { x[_pid] = 1; c++ }; c--; x[_pid] = 2; x[_pid] = 0 od
}
init { x[0] = 0; c = 1 - c }
ltl q { [] !((_nr_pr == 2) && (x[0] + x[1] + x[2] < 2)) }
"""


@pytest.mark.parametrize("fairness", [Fairness.NONE, Fairness.STRONG_GLOBAL])
def test_a_family_that_can_finish_is_refused(fairness: Fairness) -> None:
    ts = load_promela("m.pml", FINISHING).systems[0]
    prop = ts.properties[0]
    with pytest.raises(ConfigurationError, match="processes of P can finish"):
        detect_symmetry(ts, prop.formula, fairness)
    v = api.check_property(ts, prop, api.CheckOptions(engine="python", symmetry=True,
                                                      fairness=fairness))
    assert v.outcome is Outcome.HOLDS
    assert not any("BUG" in n for n in v.notes), v.notes


def test_a_family_that_loops_keeps_its_symmetry() -> None:
    ts = load_promela("m.pml", LOOPING).systems[0]
    spec = detect_symmetry(ts, ts.properties[0].formula, Fairness.NONE)
    assert [f.template for f in spec.families] == ["P"]
