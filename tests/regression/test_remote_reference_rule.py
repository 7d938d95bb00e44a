"""Regression (issue 15): remote references followed SPIN's rule only half way.

* ``P@L`` with two running instances of P was a model error ("invalid remote
  reference: 'P' has 2 live instances"), so ``ltl q { [] !(P@CS) }`` was VIOLATED
  even when pan says it holds. SPIN (pan.c ``f_pid``) names the running instance of
  P with the lowest pid: m77 holds (pan -a: errors 0), m78 is violated (errors 1).
* A reference to an instance that is not running yet (``BS[a_id]@progress`` before
  ``init`` has run the BS processes) was a model error at 0 states; pan reads a zeroed
  process (label false, variables 0), and m79's formulas hold in pan -a and -a -f.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.fairness.check import LtlOptions, check_ltl
from bridge.frontends.promela import load_promela
from bridge.ir import Fairness, Outcome

MODELS = Path(__file__).resolve().parents[1] / "models" / "promela"


@pytest.mark.parametrize("model,name,expected", [
    ("m77_remote_single_pid1", "q", Outcome.HOLDS),
    ("m78_remote_single_pid0", "q", Outcome.VIOLATED),
    ("m79_remote_not_running", "ok", Outcome.HOLDS),
    ("m79_remote_not_running", "zero_before", Outcome.HOLDS),
    ("m79_remote_not_running", "starts_at_3", Outcome.HOLDS),
])
@pytest.mark.parametrize("fairness", [Fairness.NONE, Fairness.PROCESS_WEAK])
def test_remote_references_as_pan_reads_them(model: str, name: str, expected: Outcome,
                                              fairness: Fairness) -> None:
    system = load_promela(str(MODELS / f"{model}.pml")).systems[0]
    prop = next(p for p in system.properties if p.name == name)
    verdict = check_ltl(system, prop, LtlOptions(fairness=fairness))
    assert verdict.outcome is expected, verdict.reason
    assert verdict.trace is None  # never a model error any more
    assert verdict.statistics.states > 0
