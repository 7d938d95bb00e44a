"""A fairness mark on a statement of a process started by ``run`` whose pid another
template may run is refused, not ignored (found by the differential test of ``wl``/``sl``
marks in C: 44 explored states in C against 42 in Python, the Python engine wrong).

A step names its statement ``(pid, edge index)``, so A's edge 0 and B's edge 0 run at one
pid are one interned step; ``check._AnnotationUnits`` learnt the marks of a step from
the state where it was first met. Here A (unmarked ``x = 0``) runs at pid 1 and ends, B
(``x = 1`` marked ``sl``) then runs at pid 1 forever: the mark was never learnt and the
Python engine printed a counterexample in which B never sets x to 1 (VIOLATED), which
the mark excludes (C, which learns per statement, said HOLDS). Both engines now refuse
such marks by name (``semantics.pidshare.shared_pid_marks``), with the marked statement's place.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.diagnostics import ConfigurationError, UnsupportedError
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.fairness.check import shared_pid_marks
from bridge.ir import Fairness, Outcome
from bridge.ir.model import FairnessMark
from tests.regression.test_c_marks_naming_no_unit import mark_edge

MODEL = """byte x;
proctype A() {
  x = 0
}
proctype B() {
  do
  :: x = 1
  :: x = 2
  od
}
init {
  run A();
  _nr_pr == 1 -> run B()
}
ltl { []<> (x == 1) }
"""


def _marked(tmp_path: Path, template: str = "B", k: int = 0):
    path = tmp_path / "shared.pml"
    path.write_text(MODEL)
    [ts] = api.load_model(str(path)).systems
    return mark_edge(ts, template, k, FairnessMark.SL)


def test_mark_on_a_statement_another_template_shares_is_refused(tmp_path: Path) -> None:
    ts = _marked(tmp_path)
    with pytest.raises(UnsupportedError, match=r"shared\.pml:7:\d+: fairness marks: a sl mark "
                       r"on edge 0 of B, whose pid A may run"):
        api.check_property(ts, ts.properties[0], api.CheckOptions(engine="python"))
    if find_compiler() is not None:
        with pytest.raises(ConfigurationError, match="--engine c"):
            api.check_property(ts, ts.properties[0], api.CheckOptions(engine="c"))
        assert "fairness marks" in driver.ltl_supports(ts, ts.properties[0], [], Fairness.NONE,
                                                       1, 1)[1]


def test_marks_without_a_shared_statement_are_kept(tmp_path: Path) -> None:
    # B's edge 1 (x = 2): A has no edge 1; init (the first instance) never gives up pid 0
    assert shared_pid_marks(_marked(tmp_path, "B", 1)) is None
    assert shared_pid_marks(_marked(tmp_path, ":init:", 0)) is None
    # without the mark the counterexample is a real one
    path = tmp_path / "plain.pml"
    path.write_text(MODEL)
    [ts] = api.load_model(str(path)).systems
    v = api.check_property(ts, ts.properties[0], api.CheckOptions(engine="python"))
    assert v.outcome is Outcome.VIOLATED
