"""Regression (issue 13, the KV infinity row of paper 002's table): with an unbounded
family the counter abstraction's counterexample through ω may be spurious, so the row
was ``unknown`` where the paper says *false*. A violation by the model's own size (its
declared instances, checked with exact counts: KV with N = 3 has 2 readers) is a
violation by the unbounded family, which includes that size: the verdict is VIOLATED,
and the note says where it comes from. When the own size does not violate, the verdict
stays inconclusive."""

from __future__ import annotations

import re
from pathlib import Path

from bridge import api
from bridge.ir import Fairness, Outcome
from bridge.reductions.counter import check_counter_abstraction

KV = Path(__file__).resolve().parents[2] / "case_studies" / "kv" / "kv.csp"


def _kv(tmp_path: Path, n: int):
    text = re.sub(r"#define N \d+;", f"#define N {n};", KV.read_text(encoding="utf-8"))
    path = tmp_path / "kv.csp"
    path.write_text(text, encoding="utf-8")
    (ts,) = api.load_model(str(path)).systems
    return ts


def test_kv_unbounded_is_violated_by_its_own_size(tmp_path: Path) -> None:
    ts = _kv(tmp_path, 3)
    prop = next(p for p in ts.properties if p.formula is not None)
    verdict = check_counter_abstraction(ts, prop, Fairness.NONE, cutoff=2, unbounded=True)
    assert verdict.outcome is Outcome.VIOLATED
    assert any("may be spurious" in n and "own size (2 processes) violates" in n
               for n in verdict.notes)
    # the same size, bounded, exact: the violation the unbounded verdict rests on
    exact = check_counter_abstraction(ts, prop, Fairness.NONE)
    assert exact.outcome is Outcome.VIOLATED

