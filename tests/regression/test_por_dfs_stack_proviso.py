"""Regression: the POR cycle proviso read the emptiness check's live nodes (Tarjan's
stack: every node of an unfinished component) instead of the DFS stack, and kept only
the first ample candidate, so on a ring such as Milner's cyclic scheduler nearly every
node was expanded fully: ms_annotated N = 10 stored 56,501 product states with
``--por`` (the full product is not much bigger) and the paper's N = 100 and 200 rows
(paper 000 Table 3, PAT with POR: 5.5 s and 27.4 s) stopped at the time limit. Now the
proviso reads the DFS stack, as SPIN's does, and the product tries every candidate
before expanding fully (``bridge/fairness/product.py``, ``onthefly.py``). Counts of
product states are compared, and the verdict with the full search's.
"""

from __future__ import annotations

import re
from pathlib import Path

from bridge import api
from bridge.frontends.csp import load_csp
from bridge.ir.verdict import Outcome, Verdict

MODEL = Path(__file__).resolve().parents[2] / "case_studies" / "ms" / "ms_annotated.csp"


def _check(n: int, por: bool) -> Verdict:
    text = re.sub(r"#define N \d+;", f"#define N {n};", MODEL.read_text(encoding="utf-8"))
    model = load_csp(str(MODEL), text=text)
    [verdict] = api.check(model, 1, api.CheckOptions(por=por, engine="python"))
    return verdict


def test_por_on_milners_scheduler_stores_few_product_states():
    reduced = _check(10, True)
    assert reduced.outcome is Outcome.HOLDS
    # 368 with the DFS-stack proviso and every candidate tried (56,501 before)
    assert reduced.statistics.states < 1_000


def test_por_on_milners_scheduler_agrees_with_the_full_search():
    for n in (3, 4, 5):
        reduced, full = _check(n, True), _check(n, False)
        assert reduced.outcome is full.outcome is Outcome.HOLDS
        assert reduced.statistics.states < full.statistics.states
