"""Symmetry reduction of a Promela family whose processes finish: a finished Promela
process dies only when it is the youngest live one, so a permutation of the positions
is not a symmetry of the death steps, and the quotient (with an init phase here) had
violations that the full state space has not ("BUG: the symmetry-reduced search found
a violation that the full search does not"; found by random models against the full
search). Such a family is now refused by name; families that never finish keep it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


_BODIES = ["do :: x[I] < 2 -> x[I]++ :: x[I] == 2 -> x[I] = 0 od",
           "do :: atomic { x[I] = 1; c = 1 }; c = 0; x[I] = 2; x[I] = 0 od",
           "x[I] = 1; do :: c == 0 -> x[I] = 2 :: x[I] == 2 -> c = 1 - c od",
           "atomic { x[I] = 1; c = 1 }; c = 0; x[I] = 2"]  # the last can finish: refused
_ATOMS = ["_nr_pr == 4", "_nr_pr < 4", "s == 2", "s >= 3", "s < 2", "c == 1"]
_FORMS = ["[] (A -> <> B)", "[] (A -> (A U B))", "<> [] A", "[] <> A", "[] !(A && B)"]


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=st.sampled_from(_BODIES), runner=st.booleans(), phase=st.booleans(),
       form=st.sampled_from(_FORMS), a=st.sampled_from(_ATOMS), b=st.sampled_from(_ATOMS))
def test_random_promela_families_keep_the_full_verdict(body, runner, phase, form, a, b):
    # models like these (a family, a runner starting invariant processes, an init
    # phase) found the refusal; the quotient's verdict must be the full search's
    index = "_pid - 1" if runner else "_pid"
    text = ("byte x[3]; byte c;\n#define s (x[0] + x[1] + x[2])\n"
            + ("active proctype R() { do :: _nr_pr < 5 -> run Q() od }\n"
               "proctype Q() { c = 1 - c }\n" if runner else "")
            + f"active [3] proctype P() {{ {body.replace('I', index)} }}\n"
            + ("init { x[0] = 0; c = 1 - c }\n" if phase else "")
            + f"ltl q {{ {form.replace('A', f'({a})').replace('B', f'({b})')} }}\n")
    ts = load_promela("random.pml", text).systems[0]
    for fairness in (Fairness.NONE, Fairness.STRONG_GLOBAL):
        options = api.CheckOptions(engine="python", fairness=fairness)
        full = api.check_property(ts, ts.properties[0], options)
        reduced = api.check_property(ts, ts.properties[0], replace(options, symmetry=True))
        assert reduced.outcome is full.outcome, text
        assert not any("BUG" in n for n in reduced.notes), (text, reduced.notes)
