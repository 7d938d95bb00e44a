"""``wl``/``sl`` marks on Promela processes started by ``run``, in the C fair search
against the Python engine's (issue 12, item 4: identical counts, verdicts, lassos).

A ``wl``/``sl`` mark makes a unit per instance and edge index
(``fairness.check._AnnotationUnits``: ``("edge", pid, k)``, engaged by any step at pid
taking its edge ``k``, whatever template runs there). Under ``run`` a pid runs the
templates started there over time (pids are reused once a process dies), so
``driver._unit_tables`` gives the C search a unit per (pid, edge index) for every pid
the model may start, named by the edge ``k`` of every template. (A pid that two
templates may run is refused by both engines: ``semantics.pidshare.shared_pid_marks``; see
tests/regression/test_marks_on_statements_sharing_a_pid.py.) The marks are given by
hand (no front end writes them in Promela); ``compare`` checks both engines' verdicts,
counts, notes and traces under each notion (a C lasso that does not replay on the
Python semantics would add a note), and that the C engine checked them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge import api
from bridge.diagnostics import UnsupportedError
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import Fairness, Outcome, TransitionSystem
from bridge.ir.model import FairnessMark
from bridge.semantics.pidshare import shared_pid_marks
from tests.conftest import in_ci
from tests.differential.test_engine_c_ltl import compare
from tests.regression.test_c_marks_naming_no_unit import mark_edge

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

LIMIT = 20000

# W dies at x == 2 and init starts another at the freed pid: []<> (x == 1) holds only
# when W's x = 1 is strongly fair at each pid (sl), not under wl (W dies, so the edge is
# not enabled continuously) nor under the notions without it (but strong ones)
HOLD = """
byte x;
proctype W() {
  do
  :: x = 1
  :: x = 2
  :: x == 2 -> break
  od
}
init {
  do
  :: _nr_pr < 3 -> run W()
  od
}
ltl { []<> (x == 1) }
"""

# a rendezvous between init and processes started at run time (pids reused): the
# sender's and the receiver's edges engage their units
CHAN = """
chan c = [0] of { byte };
byte x;
proctype R() {
  byte y;
  do
  :: c?y -> x = y
  :: x = 0
  :: x == 2 -> break
  od
}
init {
  do
  :: _nr_pr < 3 -> run R()
  :: c!1
  :: c!2
  od
}
ltl { []<> (x == 2) }
"""

# active instances of W that end, and W started again at their pids
ACTIVE = """
byte x;
active [2] proctype W() {
  do
  :: x = (x + 1) % 3
  :: x == 2 -> break
  od
}
init {
  do
  :: _nr_pr < 3 -> run W()
  od
}
ltl { <>[] (x != 2) }
"""

def _load(tmp_path: Path, text: str) -> TransitionSystem:
    path = tmp_path / "model.pml"
    path.write_text(text)
    [ts] = api.load_model(str(path)).systems
    assert driver.compile_model(ts).space.layout.dynamic
    return ts


def test_sl_on_a_process_started_by_run_decides_in_c(tmp_path: Path) -> None:
    ts = _load(tmp_path, HOLD)
    prop = ts.properties[0]
    verdicts = {}
    for mark in (None, FairnessMark.WL, FairnessMark.SL):
        marked = ts if mark is None else mark_edge(ts, "W", 0, mark)
        v = api.check_property(marked, prop, api.CheckOptions(engine="c"))
        assert ("engine", "c") in v.statistics.extra
        assert not any("Python engine" in n for n in v.notes), v.notes
        verdicts[mark] = v.outcome
        assert compare(marked, LIMIT) == len(driver.LTL_FAIRNESS)
    assert verdicts == {None: Outcome.VIOLATED, FairnessMark.WL: Outcome.VIOLATED,
                        FairnessMark.SL: Outcome.HOLDS}
    # the lasso under wl: W's x = 1 is not enabled in every state of its loop at that pid
    v = api.check_property(mark_edge(ts, "W", 0, FairnessMark.WL), prop,
                           api.CheckOptions(engine="c"))
    assert v.lasso is not None and v.lasso.loop


NOTIONS = (Fairness.NONE, Fairness.WEAK, Fairness.STRONG_LOCAL, Fairness.PROCESS_WEAK,
           Fairness.PROCESS_STRONG)


@pytest.mark.parametrize("mark", [FairnessMark.WL, FairnessMark.SL])
@pytest.mark.parametrize("model,template,edge", [
    (HOLD, "W", 1), (HOLD, ":init:", 0), (CHAN, "R", 0), (CHAN, ":init:", 1), (ACTIVE, "W", 0),
])
def test_local_marks_with_pid_reuse_agree(tmp_path: Path, model: str, template: str,
                                          edge: int, mark: FairnessMark) -> None:
    ts = mark_edge(_load(tmp_path, model), template, edge, mark)
    assert compare(ts, LIMIT, notions=NOTIONS) == len(NOTIONS)


def test_local_marks_under_strong_global_fairness(tmp_path: Path) -> None:
    ts = mark_edge(_load(tmp_path, CHAN), "R", 0, FairnessMark.SL)
    assert compare(ts, LIMIT, notions=(Fairness.STRONG_GLOBAL,)) == 1


# ---------------------------------------------------------------------------------
# Random Promela models with processes started by run that finish (pids reused), each
# edge marked at random, under every notion.

_STATEMENTS = ("x = (x + 1) % 3", "y = (y + x) % 2", "x == y -> x = 0", "y = 1 - y",
               "x > 0 -> y = x % 2", "x = 2")


@st.composite
def random_run_models(draw) -> tuple[TransitionSystem, str]:
    bodies = []
    for name in ("A", "B"):
        options = draw(st.lists(st.sampled_from(_STATEMENTS), min_size=1, max_size=3))
        leave = draw(st.sampled_from(["x == 2", "y == 1", "true"]))
        body = "\n".join(f"  :: {s}" for s in options)
        bodies.append(f"proctype {name}() {{\n  do\n{body}\n  :: {leave} -> break\n"
                      f"  od;\n  n--\n}}\n")
    starts = draw(st.sampled_from(["A", "B", "A", "AB"]))  # AB: marks often refused
    runs = "\n".join(f"  :: n < 2 -> n++; run {t}()" for t in starts)
    formula = draw(st.sampled_from(["[]<> (x == 0)", "<>[] (y == 0)", "[] (x == 2 -> <> (y == 1))"]))
    text = (f"byte x, y, n;\n{''.join(bodies)}init {{\n  do\n{runs}\n  od\n}}\n"
            f"ltl {{ {formula} }}\n")
    return text, draw(st.randoms(use_true_random=False))


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(random_run_models())
def test_random_run_models_with_random_marks_agree(tmp_path: Path, case) -> None:
    text, rnd = case
    ts = _load(tmp_path, text)
    marks = [None, None, *FairnessMark]
    procs = tuple(dataclasses.replace(p, edges=tuple(
        dataclasses.replace(e, fairness=rnd.choice(marks)) for e in p.edges))
        for p in ts.processes)
    ts = dataclasses.replace(ts, processes=procs)
    if shared_pid_marks(ts) is not None:  # A and B at one pid: refused by both engines
        with pytest.raises(UnsupportedError, match="fairness marks"):
            api.check_property(ts, ts.properties[0], api.CheckOptions(engine="python"))
    compare(ts, 3000)
