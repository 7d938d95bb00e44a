"""The C engine on state vectors over 65,535 bytes (issue 12), against the Python engine.

The store kept a 2-byte length before each vector of a dynamic model (Promela: processes
die, ``run`` starts them), so the generator refused every model whose longest vector
(BR_MAXVEC) passed 65,535 bytes: Promela ``int a[20000]`` (80,003 bytes; SPIN runs it
with ``-DVECTORSZ``) went to the Python engine. The length is now 4 bytes when the
model's longest vector needs them and stays 2 otherwise (``templates/c/store.c``,
``br_vlen_t``), and the driver's replay reads vectors of the model's length.

Models of a few states with 80 kB vectors: a dynamic Promela model with ``run`` and
process death (exploration, an assertion violated with its trace), a Promela LTL check
under every fairness notion, and a static CSP# model (fixed-length vectors: the flat
store, and the fair search's tree store from the start).
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

# P fills two cells then starts W, which sets the last cell and dies; Q asserts the last
# cell once x is 2: violated when Q runs before W (the trace reaches past 65,535 bytes).
RUN = """int a[20000];
byte x;
proctype W() {
  a[19999] = 7
}
active proctype P() {
  do
  :: x < 2 -> a[x] = x + 1; x++
  :: x == 2 -> run W(); break
  od
}
active proctype Q() {
  (x == 2);
  assert(a[19999] == 7)
}
"""

# []<> (x == 0) fails without fairness (Q toggles the last cell forever) and holds under
# the process notions (P, always enabled, keeps counting).
LTL = """int a[20000];
byte x;
active proctype P() { do :: x = (x + 1) % 3 od }
active proctype Q() { do :: a[19999] = 1 - a[19999] od }
ltl cycle { []<> (x == 0) }
"""

CSP = """var a[20000];
var x = 0;
P() = inc{x = (x + 1) % 3} -> P();
Q() = flip{a[19999] = 1 - a[19999]} -> Q();
Sys() = P() ||| Q();
#define zero x == 0;
#assert Sys() deadlockfree;
#assert Sys() |= []<> zero;
#assert Sys() reaches zero;
"""


def _system(tmp_path: Path, name: str, text: str) -> TransitionSystem:
    path = tmp_path / name
    path.write_text(text)
    [ts] = api.load_model(str(path)).systems
    return ts


def _vector(ts: TransitionSystem) -> int:
    return driver.compile_model(ts).library.bridge_max_vector()


def test_a_dynamic_vector_over_65535_bytes_runs_in_c(tmp_path: Path) -> None:
    ts = _system(tmp_path, "run.pml", RUN)
    assert driver.supports(ts) == (True, "")
    assert _vector(ts) > 65535
    assert assert_engines_agree(ts) == 2  # exploration and the assertion, trace included
    [safety] = [p for p in ts.properties if p.kind in driver.SUPPORTED_KINDS]
    got = api.check_property(ts, safety, api.CheckOptions(engine="c"))
    assert got.outcome is Outcome.VIOLATED and ("engine", "c") in got.statistics.extra
    assert got.trace is not None and len(got.trace.steps) == 7


def test_an_ltl_check_over_65535_bytes_agrees_under_every_notion(tmp_path: Path) -> None:
    ts = _system(tmp_path, "ltl.pml", LTL)
    assert _vector(ts) > 65535
    assert compare(ts, 1000) == len(Fairness)
    [ltl] = [p for p in ts.properties if p.kind is PropertyKind.LTL]
    none = api.check_property(ts, ltl, api.CheckOptions(engine="c"))
    weak = api.check_property(ts, ltl, api.CheckOptions(engine="c",
                                                         fairness=Fairness.PROCESS_WEAK))
    assert none.outcome is Outcome.VIOLATED and none.lasso
    assert weak.outcome is Outcome.HOLDS and ("engine", "c") in weak.statistics.extra


@pytest.mark.parametrize("flat", [0, -1])  # the fair search's store: flat; trees
def test_a_fixed_vector_over_65535_bytes_agrees(tmp_path: Path, monkeypatch, flat: int) -> None:
    monkeypatch.setattr(driver, "FLAT_STORE_BYTES", flat)
    ts = _system(tmp_path, "big.csp", CSP)
    assert _vector(ts) > 65535
    assert assert_engines_agree(ts) == 3  # exploration, deadlock freedom, reaches
    assert compare(ts, 1000) == len(Fairness)
