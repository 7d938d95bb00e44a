"""fairness/conditions.py: a lasso's witness says where in the loop each action (or
process) is enabled and engaged (``enabled_at``/``engaged_at``), consistently with the
sets it already gave and with the loop's own steps (the report's fairness table)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api

ROOT = Path(__file__).resolve().parents[3]

CASES = [
    ("case_studies/rw/rw.csp", 2, "none"),
    ("case_studies/rw/rw.csp", 2, "weak"),
    ("case_studies/rw/rw.csp", 2, "process-weak"),
    ("case_studies/tc_r/tc_r_4.csp", 1, "weak"),
    ("case_studies/tc_r/tc_r_4.csp", 1, "strong-local"),
    ("tests/models/report/channels_and_barrier.csp", 2, "weak"),
    ("tests/models/report/pingpong.pml", 1, "process-weak"),
]


@pytest.mark.parametrize(("path", "assertion", "fairness"), CASES)
def test_positions_agree_with_the_sets_and_the_loop(path: str, assertion: int,
                                                    fairness: str) -> None:
    options = api.CheckOptions(fairness=api.parse_fairness(fairness))
    [verdict] = api.check(api.load_model(str(ROOT / path)), assertion, options)
    assert verdict.lasso is not None and verdict.lasso.witness is not None
    loop, witness = verdict.lasso.loop, verdict.lasso.witness
    assert len(witness.enabled_at) == len(witness.engaged_at) == len(loop)
    enabled = [{witness.enabled_somewhere[u] for u in units} for units in witness.enabled_at]
    engaged = [{witness.engaged[u] for u in units} for units in witness.engaged_at]
    assert set().union(*enabled) == set(witness.enabled_somewhere)
    assert set.intersection(*enabled) == set(witness.enabled_everywhere)
    assert set().union(*engaged) == set(witness.engaged)
    for step, names in zip(loop, engaged, strict=True):
        if fairness.startswith("process"):
            assert names == set(step.processes)
        elif step.event is not None and not step.stutter:
            assert names == {step.event}
    if fairness in ("weak", "process-weak"):
        # the loop is fair: whatever is enabled all along is engaged somewhere in it
        assert set(witness.enabled_everywhere) <= set(witness.engaged)
    if fairness == "strong-local":
        assert set(witness.enabled_somewhere) <= set(witness.engaged)
