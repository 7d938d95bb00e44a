"""Regression: under weak and strong local fairness the on-the-fly search visits a
node's edges rotated by its system state id (``fairness.onthefly.edge_order``,
ORDER_ROTATE), and a node on the DFS path is entered by the first edge to it in that
order. The replay of a C counterexample on the Python semantics (``api._compiled``)
followed the natural order instead, because the fresh replay product numbers system
states differently: where two processes' steps reach the same state (three copies of
one loop), the C counterexample's prefix named another process than the Python
engine's at a step (``P[0]`` for ``P[2]``). The C search now hands over the system
state ids of its DFS path (``LtlResult.path_sys``) and the replay rotates by them."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c.build import find_compiler
from bridge.ir import Fairness, Outcome
from tests.conftest import in_ci

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

MODEL = """byte x, y;
active [3] proctype P() {
  do :: y != 1 -> x = 0 :: x = (x + 1) % 4 :: x == y -> x = (x * 2) % 4 :: x = (x * 2) % 4 od
}
ltl p { [] (x < 3) }
"""


def _prefix(tmp_path: Path, engine: str, fairness: Fairness) -> list[tuple[tuple[str, ...], str]]:
    path = tmp_path / "m.pml"
    path.write_text(MODEL)
    [verdict] = api.check(api.load_model(str(path)), 1,
                          api.CheckOptions(engine=engine, fairness=fairness))
    assert verdict.outcome is Outcome.VIOLATED
    assert verdict.notes == () or not any("Python engine" in n for n in verdict.notes)
    steps = verdict.lasso.prefix.steps if verdict.lasso is not None else verdict.trace.steps
    return [(s.processes, s.text) for s in steps]


@pytest.mark.parametrize("fairness", [Fairness.WEAK, Fairness.STRONG_LOCAL])
def test_c_replay_rotated_search_order(tmp_path: Path, fairness: Fairness) -> None:
    assert _prefix(tmp_path, "c", fairness) == _prefix(tmp_path, "python", fairness)
