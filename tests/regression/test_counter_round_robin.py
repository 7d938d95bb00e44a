"""Regression (issue 11 item 4): stack_anon N = 10 with the counter abstraction under
process-weak and process-strong fairness took 33 s and 48 s: the early report came after
233863 product states, because the depth-first search went down the steps of one unit
(a family local state) first, and a fair loop must engage every unit that stays enabled.
``_search_order`` now takes the steps round robin (the units after the one that moved
last first, as the native checker's ``ORDER_ROUND_ROBIN``): 3798 product states."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from bridge.ir import Fairness, Outcome
from bridge.reductions.counter import run_counter_abstraction

csp = importlib.import_module("bridge.frontends.csp")
ROOT = Path(__file__).resolve().parents[2]


def load(path: str, n: int):
    text = re.sub(r"#define N \d+;", f"#define N {n};", (ROOT / "case_studies" / path).read_text())
    return csp.load_csp(Path(path).name, text).systems[0]


@pytest.mark.parametrize("fairness", [Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG])
def test_stack_10_fair_violation_is_found_round_robin(fairness):
    ts = load("stack/stack_anon.csp", 10)
    got = run_counter_abstraction(ts, ts.properties[0], fairness, None)
    assert got.outcome is Outcome.VIOLATED
    assert got.lasso_exact
    assert got.product_states <= 10_000  # 233863 before
