"""The C engine with more than 256 process instances (issue 12): process sets sized
from the model (``BR_PWORDS`` = ceil(instances / 64) words), against the Python engine.

``ring(n)``: n processes pass a turn around (only the holder can move) and an idle
process loops alone. ``[]<> first`` fails without fairness (the idle loop) and holds
under the process and event notions only if the turn holder, continuously enabled, is
seen as such: a process set cut at 256 bits would miss the holders 256..n-1 and report
the idle loop as fair. Both engines must give the same verdicts and counts, and the
same exploration.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import Fairness, Outcome, PropertyKind, TransitionSystem
from tests.conftest import in_ci
from tests.differential.test_engine_c import assert_engines_agree
from tests.differential.test_engine_c_ltl import compare

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")


def ring(n: int) -> str:
    return f"""#define N {n};
var turn = 0;
P(i) = [turn == i] go.i{{turn = (turn + 1) % N}} -> P(i);
Idle() = idle -> Idle();
Ring() = Idle() ||| (||| i:{{0..N - 1}}@P(i));
#define first turn == 0;
#assert Ring() |= []<> first;
#assert Ring() deadlockfree;
"""


def _system(tmp_path: Path, n: int) -> TransitionSystem:
    path = tmp_path / f"ring{n}.csp"
    path.write_text(ring(n))
    [ts] = api.load_model(str(path)).systems
    assert len(ts.instances) == n + 1
    return ts


def _ltl(ts: TransitionSystem):
    return next(p for p in ts.properties if p.kind is PropertyKind.LTL)


def test_300_processes_agree_under_every_notion(tmp_path: Path) -> None:
    ts = _system(tmp_path, 300)
    assert driver.supports(ts) == (True, "")
    assert driver.compile_model(ts).library.bridge_process_words() == 5
    assert assert_engines_agree(ts) == 2  # exploration and deadlock freedom
    assert compare(ts, 20000) == len(Fairness)
    none = api.check_property(ts, _ltl(ts), api.CheckOptions(engine="c"))
    weak = api.check_property(ts, _ltl(ts), api.CheckOptions(
        engine="c", fairness=Fairness.PROCESS_WEAK))
    assert none.outcome is Outcome.VIOLATED and weak.outcome is Outcome.HOLDS
    assert (weak.statistics.states, weak.statistics.transitions) == (599, 1795)


def test_1000_processes_agree(tmp_path: Path) -> None:
    ts = _system(tmp_path, 1000)
    assert driver.compile_model(ts).library.bridge_process_words() == 16
    assert compare(ts, 20000, notions=(Fairness.NONE, Fairness.PROCESS_WEAK,
                                       Fairness.STRONG_LOCAL)) == 3
    weak = api.check_property(ts, _ltl(ts), api.CheckOptions(
        engine="c", fairness=Fairness.PROCESS_WEAK))
    assert weak.outcome is Outcome.HOLDS and ("engine", "c") in weak.statistics.extra
    assert (weak.statistics.states, weak.statistics.transitions) == (1999, 5995)
