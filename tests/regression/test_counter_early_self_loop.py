"""Regression (issue 11 item 4): le_pl N = 10000 with the counter abstraction (cutoff 2,
no fairness) took 12.6 s for a violation that is an accepting self-loop of the initial
state (the Guesser's idle step). With the cutoff the search first built every component
of the abstract product, tried to replay the ω component it met first with exact counts
(17 s of exact search at N = 10000, failing), and then rechecked with exact counts, where
the depth-first search went down the 10000 nodes' start steps before closing the loop
(69999 product states). Now the early report also runs with a cutoff (its part is kept
only when it is a real run: exact, or replayed with exact counts; else the complete
search decides as before), and ``_early_search`` takes the edges that close a cycle at
once first (``_search_order``), so the self-loop is met after a few product states."""

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


@pytest.mark.parametrize("cutoff", [None, 2])
def test_le_self_loop_is_reported_after_a_few_product_states(cutoff):
    ts = load("le_pl/le_pl.csp", 60)
    got = run_counter_abstraction(ts, ts.properties[0], Fairness.NONE, cutoff)
    assert got.outcome is Outcome.VIOLATED
    assert got.lasso_exact
    # before: 7 * N product states (exact counts), or the complete product, a failed
    # replay and then the exact recheck (cutoff 2)
    assert got.product_states <= 10
    if cutoff is not None:
        assert "replayed with exact counts" in got.reason
        assert not any("rechecked" in note for note in got.notes)


@pytest.mark.parametrize("fairness", [Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG])
def test_le_with_a_cutoff_still_holds_under_process_fairness(fairness):
    ts = load("le_pl/le_pl.csp", 60)
    got = run_counter_abstraction(ts, ts.properties[0], fairness, 2)
    assert got.outcome is Outcome.HOLDS
    full = run_counter_abstraction(ts, ts.properties[0], fairness, 2, early=False)
    assert (got.product_states, got.reason) == (full.product_states, full.reason)


@pytest.mark.parametrize("fairness", [Fairness.NONE, Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG])
@pytest.mark.parametrize(("path", "n", "cutoff"), [
    ("le_pl/le_pl.csp", 4, 1), ("le_pl/le_pl.csp", 6, 2), ("kv/kv.csp", 3, 1), ("kv/kv.csp", 4, 2),
    ("ml/ml.csp", 4, 2), ("stack/stack_anon.csp", 3, 1),
])
def test_early_report_with_a_cutoff_gives_the_complete_search_outcome(path, n, cutoff, fairness):
    # an early part is kept only when it is a real run, so the outcome (after the exact
    # recheck an inconclusive ω answer gets) is the complete search's
    ts = load(path, n)
    for prop in ts.properties:
        if prop.formula is None:
            continue
        early = run_counter_abstraction(ts, prop, fairness, cutoff)
        full = run_counter_abstraction(ts, prop, fairness, cutoff, early=False)
        assert early.outcome is full.outcome
