"""A fairness mark that names no annotation unit gives the Python engine's search in C
(issue 12 item 4: identical counts; found on a ``wf`` mark given by hand to an
unlabelled statement of a Promela process started by ``run``: 36 explored states in
Python, 89 in C, the same verdict).

A ``wf``/``sf``/``f`` mark on an edge without a label, in a model whose steps have no
event names (Promela), engages no unit (``fairness.check._AnnotationUnits``). The
Python condition is an ``AnnotatedFairness`` all the same, which has items, so the
on-the-fly search rotates each node's edges (``onthefly.ORDER_ROTATE``) and sends
complete accepting components to Fig. 5. The C search turned its items on only when
its unit tables had a unit, so it searched in the successor order: another DFS, other
counts. ``driver._unit_tables`` now gives it one unmarked unit, never engaged.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import Fairness, TransitionSystem
from bridge.ir.model import FairnessMark
from tests.differential.test_engine_c_ltl import compare

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")

# the smallest: W alone in a loop, started by init
STARTED = """
byte x;
proctype W() {
  do
  :: x = (x + 1) % 3
  :: x = 2
  od
}
init {
  run W();
}
ltl { <>[] (x != 2) }
"""

# processes started at run time that finish: pids reused
REUSED = """
byte x, n;
proctype W() {
  do
  :: x = (x + 1) % 3
  :: x == 2 -> break
  od;
  n--
}
init {
  do
  :: n < 2 -> n++; run W()
  od
}
ltl { <>[] (x != 2) }
"""


def mark_edge(ts: TransitionSystem, template: str, k: int, mark: FairnessMark) -> TransitionSystem:
    """Return ``ts`` with edge ``k`` of process ``template`` marked ``mark``."""
    procs = []
    for p in ts.processes:
        if p.name == template:
            p = dataclasses.replace(p, edges=tuple(
                dataclasses.replace(e, fairness=mark) if i == k else e
                for i, e in enumerate(p.edges)))
        procs.append(p)
    return dataclasses.replace(ts, processes=tuple(procs))


def _load(tmp_path: Path, text: str) -> TransitionSystem:
    path = tmp_path / "model.pml"
    path.write_text(text)
    [ts] = api.load_model(str(path)).systems
    return ts


def test_unlabelled_wf_mark_on_a_process_started_by_run(tmp_path: Path) -> None:
    ts = mark_edge(_load(tmp_path, STARTED), "W", 0, FairnessMark.WF)
    assert all(e.label is None for p in ts.processes for e in p.edges)
    assert driver.model_has_marks(ts) and driver.compile_model(ts).space.layout.dynamic
    prop = ts.properties[0]
    counts = []
    for engine in ("python", "c"):
        v = api.check_property(ts, prop, api.CheckOptions(engine=engine))
        counts.append((v.outcome, v.statistics.states, v.statistics.transitions))
    # the rotated order closes the loop x = 2 after five transitions (four in the
    # successor order took seven)
    assert counts[0] == counts[1] and counts[0][1:] == (4, 5)
    assert compare(ts, 20000) == len(driver.LTL_FAIRNESS)


@pytest.mark.parametrize("mark", [FairnessMark.WF, FairnessMark.SF, FairnessMark.F])
def test_marks_without_units_with_pid_reuse(tmp_path: Path, mark: FairnessMark) -> None:
    ts = _load(tmp_path, REUSED)
    for name, n in (("W", 3), (":init:", 3)):
        marked = mark_edge(ts, name, n - 1, mark)
        assert compare(marked, 20000, notions=(Fairness.NONE, Fairness.WEAK,
                                               Fairness.PROCESS_STRONG)) == 3
