"""Regression: with a cutoff, ``ω - 1 ∈ {ω, K}`` let a finite family grow past its size
(KV N = 4, cutoff 2: 3 readers, but abstract states with 7 readers, and more than 1.2
million abstract states: the rows stopped at the time limit). Counts whose least
concretisation needs more members than the family has are now dropped
(``CounterSpace._within_population``); the abstraction of every concrete state stays
reachable (the abstract system still simulates the concrete one)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from bridge.ir import Fairness, Outcome
from bridge.reductions._interp import OMEGA
from bridge.reductions.counter import CounterSpace, analyse_counter_model, run_counter_abstraction

csp = importlib.import_module("bridge.frontends.csp")
ROOT = Path(__file__).resolve().parents[2]


def load(path: str, n: int):
    text = re.sub(r"#define N \d+;", f"#define N {n};", (ROOT / "case_studies" / path).read_text())
    return csp.load_csp(Path(path).name, text).systems[0]


def reachable(space: CounterSpace) -> set:
    seen = {space.initial_state()}
    stack = list(seen)
    while stack:
        for _step, target in space.successors(stack.pop()):
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


def test_kv_abstraction_stays_within_the_readers():
    ts = load("kv/kv.csp", 4)
    model = analyse_counter_model(ts, ts.properties[0].formula)
    states = reachable(CounterSpace(model, 2))
    assert len(states) <= 5000
    for _g, _o, counts in states:
        assert sum(3 if c is OMEGA else c for _i, c in counts) <= 3
    got = run_counter_abstraction(ts, ts.properties[0], Fairness.PROCESS_WEAK, 2)
    assert got.outcome is Outcome.HOLDS


@pytest.mark.parametrize(("path", "n", "cutoff"), [
    ("kv/kv.csp", 4, 1), ("kv/kv.csp", 4, 2), ("kv/kv.csp", 5, 2), ("le_pl/le_pl.csp", 4, 1),
    ("le_pl/le_pl.csp", 4, 2), ("ml/ml.csp", 3, 1), ("ml/ml.csp", 4, 2),
])
def test_every_concrete_state_is_abstracted(path, n, cutoff):
    ts = load(path, n)
    model = analyse_counter_model(ts, ts.properties[0].formula)
    abstract = CounterSpace(model, cutoff)
    exact = CounterSpace(model, None, share=abstract)
    states = reachable(abstract)
    concrete = reachable(exact)
    assert {abstract.abstract(s) for s in concrete} <= states
