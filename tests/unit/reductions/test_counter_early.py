"""The counter abstraction's early report (``counter._early_search``): with exact counts a
strongly connected part that is already a fair accepting loop is reported before its
component is complete; the verdict is the complete-component search's on every model."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.ir import Fairness, Outcome
from bridge.reductions.counter import run_counter_abstraction
from tests.unit.reductions import test_counter_events as events

csp = importlib.import_module("bridge.frontends.csp")
ROOT = Path(__file__).resolve().parents[3]
FAIRNESS = [Fairness.NONE, Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG]


def load(path: str, n: int | None = None):
    text = (ROOT / "case_studies" / path).read_text()
    if n is not None:
        text = re.sub(r"#define N \d+;", f"#define N {n};", text)
    return csp.load_csp(Path(path).name, text).systems[0]


def both(ts, prop, fairness):
    early = run_counter_abstraction(ts, prop, fairness, None)
    full = run_counter_abstraction(ts, prop, fairness, None, early=False)
    assert (early.outcome, early.reason) == (full.outcome, full.reason)
    assert early.product_states <= full.product_states
    return early, full


@pytest.mark.parametrize("fairness", FAIRNESS)
@pytest.mark.parametrize(("path", "n"), [
    ("stack/stack_anon.csp", 3), ("stack/stack_anon.csp", 4), ("kv/kv.csp", 3),
    ("le_pl/le_pl.csp", 3), ("ml/ml.csp", 3), ("rw/rw.csp", None),
])
def test_case_study_models_agree(path, n, fairness):
    ts = load(path, n)
    for prop in ts.properties:
        if prop.formula is not None:
            both(ts, prop, fairness)


@pytest.mark.parametrize("text", [events.MUTEX, events.ML + events.ML_EXTRA])
@pytest.mark.parametrize("fairness", FAIRNESS)
def test_event_models_agree(text, fairness):
    ts = events.with_n(text, 3)
    for prop in ts.properties:
        both(ts, prop, fairness)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events.family_models(), st.data())
def test_random_families_agree(model, data):
    text, names = model
    template = data.draw(st.sampled_from(events.TEMPLATES))
    formula = template.format(e=data.draw(st.sampled_from(names)), f=data.draw(st.sampled_from(names)))
    ts = csp.load_csp("r.csp", text + f"#assert Sys() |= {formula};\n").systems[0]
    both(ts, ts.properties[0], data.draw(st.sampled_from(FAIRNESS)))


@pytest.mark.parametrize("fairness", [Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG])
def test_stack_violation_is_reported_before_its_component_is_complete(fairness):
    # stack_anon N = 5 (002 table, row Stack 5): the fair accepting part lies in a
    # component the complete search must finish first (12798 product states in the
    # round-robin order of ``_search_order``; 22792 in the order before it); the early
    # report stops at 4931 (15577 before)
    early, full = both(load("stack/stack_anon.csp", 5), load("stack/stack_anon.csp", 5).properties[0],
                       fairness)
    assert early.outcome is Outcome.VIOLATED
    assert early.product_states <= 6_000 < 12_000 <= full.product_states
