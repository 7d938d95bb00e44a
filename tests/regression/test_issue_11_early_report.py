"""Regression (issue 11): the LTL search reported an accepting cycle only once the
Tarjan component holding it was complete, so a violation that SPIN finds after a few
states (Treiber's stack, ``case_studies/stack``: process 0's push retried forever) was
found only after the whole component, 2.86 million product states at N = 9. The search
now reports a fair accepting part as soon as its explored edges contain one
(``bridge/fairness/onthefly.py``). Product states are counted, not seconds; the
complete-component search (``early_report=False``) shows what the bound protects.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bridge.fairness.check import LtlOptions, check_ltl
from bridge.frontends.csp import load_csp
from bridge.ir import Fairness, Outcome, PropertyKind

CASES = Path(__file__).resolve().parents[2] / "case_studies"


def _ltl(case: str, n: int):
    path = CASES / case / f"{case}.csp"
    text = re.sub(r"#define N \d+;", f"#define N {n};", path.read_text())
    model = load_csp(str(path), text)
    return next((s, p) for s, p in model.properties() if p.kind is PropertyKind.LTL)


@pytest.mark.parametrize(("fairness", "bound"), [
    (Fairness.NONE, 200),
    (Fairness.PROCESS_WEAK, 400),
    (Fairness.PROCESS_STRONG, 400),
])
def test_stack_violation_is_reported_after_few_product_states(fairness, bound):
    system, prop = _ltl("stack", 5)
    early = check_ltl(system, prop, LtlOptions(fairness=fairness))
    assert early.outcome is Outcome.VIOLATED
    assert early.lasso is not None
    assert early.statistics.states <= bound
    assert dict(early.statistics.extra)["early_report"] is True
    complete = check_ltl(system, prop, LtlOptions(fairness=fairness, early_report=False))
    assert complete.outcome is Outcome.VIOLATED
    assert complete.statistics.states > 50 * bound  # the whole component: 27906


def test_stack_at_nine_processes_is_violated_within_a_few_hundred_states():
    system, prop = _ltl("stack", 9)
    verdict = check_ltl(system, prop, LtlOptions(max_states=1000))
    assert verdict.outcome is Outcome.VIOLATED
    assert verdict.statistics.states <= 300


def test_deadlock_under_strong_global_fairness_is_reported_on_reaching_it():
    """dp(N) deadlocks; under strong global fairness the deadlock's stutter loop is the
    only fair loop. The round-robin search order reaches it after about N * 10 states
    (the complete-component search needed the whole product: 326 000 states at N = 13)."""
    system, prop = _ltl("dp", 13)
    verdict = check_ltl(system, prop, LtlOptions(fairness=Fairness.STRONG_GLOBAL, max_states=5000))
    assert verdict.outcome is Outcome.VIOLATED
    assert verdict.statistics.states <= 500
    assert all(step.stutter for step in verdict.lasso.loop)
