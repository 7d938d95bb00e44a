"""The compiled engine never crashes and never answers differently (issue 12, item 6).

A model error met by the C engine (division by zero, index out of range, a failed
assert, a send to a full channel inside d_step, a range violation) is a VIOLATED
verdict with the Python engine's kind, message and trace; a value the C
representation cannot hold falls back to the Python engine with a note; the memory
and time limits stop cleanly with statistics (exit code 3).

Regressions found by the differential tests are kept here too:
``test_unmatched_barrier_guard_still_fails``: a barrier edge that no synchronisation
vector completes is never taken, but the Python engine evaluates its guard (to offer
it), so a division by zero in that guard is a model error; the C engine skipped it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bridge import api
from bridge.diagnostics import ConfigurationError
from bridge.engine_c.build import find_compiler
from bridge.ir import Channel, Fairness, IntType, Outcome, Overflow, PropertyKind, Send, Var
from bridge.ir.model import FairnessMark
from tests.cli.conftest import run_bridge
from tests.irbuild import C, edge, int_var, op, parallel, process, prop, system

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")


def _both(ts, p, **options):
    """Return the (C, Python) verdicts of property ``p``."""
    c = api.check_property(ts, p, api.CheckOptions(engine="c", **options))
    py = api.check_property(ts, p, api.CheckOptions(engine="python", **options))
    return c, py


def _same(c, py) -> None:
    assert (c.outcome, c.reason, c.notes, c.trace) == (py.outcome, py.reason, py.notes, py.trace)
    assert (c.statistics.states, c.statistics.transitions) == (
        py.statistics.states, py.statistics.transitions)
    assert dict(c.statistics.extra)["engine"] == "c"


def _promela(tmp_path: Path, text: str):
    path = tmp_path / "m.pml"
    path.write_text(text)
    [ts] = api.load_model(str(path)).systems
    return ts, next(p for p in ts.properties if p.kind is PropertyKind.SAFETY)


@pytest.mark.parametrize(("text", "kind"), [
    ("byte a[3]; byte i;\nactive proctype P() { do :: i < 5 -> a[i] = 1; i++ od }",
     "index out of range"),
    ("int x = 2;\nactive proctype P() { do :: x > -1 -> x = 10 / x; x-- od }",
     "division by zero"),
    ("chan q = [1] of { byte };\nactive proctype P() { d_step { q!1; q!2 } }",
     "block in d_step"),
    ("byte x;\nactive [2] proctype P() { x++; assert(x < 2) }", "assertion violated"),
])
def test_model_errors_are_verdicts_with_the_python_message(tmp_path: Path, text: str,
                                                           kind: str) -> None:
    ts, safety = _promela(tmp_path, text)
    c, py = _both(ts, safety)
    assert c.outcome is Outcome.VIOLATED and c.reason == kind
    _same(c, py)


def test_csp_range_violation(tmp_path: Path) -> None:
    path = tmp_path / "r.csp"
    path.write_text("var x : {0..3} = 0;\nP() = inc{x = x + 1;} -> P();\n"
                    "#assert P() deadlockfree;\n")
    [ts] = api.load_model(str(path)).systems
    c, py = _both(ts, ts.properties[0])
    assert c.reason == "range violation"
    _same(c, py)


def test_unmatched_barrier_guard_still_fails() -> None:
    tick = edge(0, 0, guard=op("/", C(0), C(0)), event="tick")
    ts = system([process("A", [edge(0, 0, event="own")]), process("B", [tick, edge(0, 0)])],
                globals_=[int_var("x", 0)],
                composition=parallel([0, 1], [{"tick", "own"}, {"tick"}]),
                properties=[prop(PropertyKind.DEADLOCK_FREE)])
    c, py = _both(ts, ts.properties[0])
    assert c.reason == "division by zero"
    _same(c, py)


def test_range_error_before_an_unrepresentable_value_is_the_error() -> None:
    """Found by the random differential tests: a send of -2 into a channel field of
    type 0..4 is a range violation (Python); the C engine also saw -2 not fitting the
    packed field and fell back. The first of the two wins: here, the error."""
    ranged = IntType(0, 4, Overflow.ERROR, "int")
    send = edge(0, 0, comm=Send(Var("q"), (C(-2),)))
    ts = system([process("P", [send])], channels=[Channel("q", 2, (ranged,))],
                properties=[prop(PropertyKind.DEADLOCK_FREE)])
    c, py = _both(ts, ts.properties[0])
    assert c.reason == "range violation"
    _same(c, py)


def test_a_value_beyond_the_c_representation_falls_back(tmp_path: Path) -> None:
    path = tmp_path / "big.csp"
    path.write_text("var x = 1;\nP() = [x < 10000000000] dbl{x = x * 2;} -> P();\n"
                    "#define big x > 5000000000;\n#assert P() reaches big;\n")
    [ts] = api.load_model(str(path)).systems
    verdict = api.check_property(ts, ts.properties[0], api.CheckOptions(engine="c"))
    python = api.check_property(ts, ts.properties[0], api.CheckOptions(engine="python"))
    assert verdict.outcome is python.outcome is Outcome.HOLDS
    assert any("the Python engine" in n and "C engine represents" in n for n in verdict.notes)
    assert dict(verdict.statistics.extra)["engine"] == "python"


def test_memory_limit_stops_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "counters.pml"
    path.write_text("byte c[4];\nactive [4] proctype P() { do :: c[_pid] = (c[_pid] + 1) % 30 od }\n")
    result = run_bridge("check", "--engine", "c", "--max-memory", "2", str(path))
    assert result.code == 3, result.err
    assert "memory limit 2097152 bytes reached" in result.out
    explored = run_bridge("explore", "--engine", "c", "--max-memory", "2", str(path))
    assert explored.code == 3 and "statistics so far" in explored.out


def test_state_limit_stops_at_the_same_state_in_both_engines(tmp_path: Path) -> None:
    ts, safety = _promela(tmp_path, "byte c[3];\nactive [3] proctype P() { do :: c[_pid] = "
                                    "(c[_pid] + 1) % 9 od }\n")
    c, py = _both(ts, safety, max_states=100)
    assert c.outcome is Outcome.UNKNOWN and c.reason == "state limit 100 reached"
    _same(c, py)


def test_engine_c_refuses_ltl_with_the_reason(tmp_path: Path) -> None:
    """What the C fair search does not take (a reduction) is refused by name; fairness
    annotations, refused before, now run in C."""
    path = tmp_path / "l.pml"
    path.write_text("byte x;\nactive proctype P() { x = 1 }\nltl p { <> (x == 1) }\n")
    [ts] = api.load_model(str(path)).systems
    ltl = next(p for p in ts.properties if p.kind is PropertyKind.LTL)
    strong = Fairness.STRONG_GLOBAL
    marks = ((FairnessMark.WF, "done"),)
    with pytest.raises(ConfigurationError, match="reductions"):
        api.check_property(ts, ltl, api.CheckOptions(engine="c", fairness=strong, por=True))
    c = api.check_property(ts, ltl, api.CheckOptions(engine="c", fairness=strong,
                                                     annotations=marks))
    assert c.outcome is Outcome.HOLDS and ("engine", "c") in c.statistics.extra
    assert c.notes[-1] == ("annotation wf(done) matched no event or statement label of "
                           "the explored steps")
    auto = api.check_property(ts, ltl, api.CheckOptions(engine="auto", fairness=strong,
                                                        por=True))
    assert auto.outcome is Outcome.HOLDS
    assert any("checked by the Python engine" in n for n in auto.notes)
    assert dataclasses.replace(auto, notes=()).outcome is Outcome.HOLDS
