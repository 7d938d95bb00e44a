"""le_pl N = 10,000 without fairness took 15 s of CPU on the C engine against 5 s on the
Python engine (issue 13): the C search takes half a second, but its report was replayed
on a Python state space built a second time, and each of the initial state's 20,003
successors (10,000 slots each) was unpacked and copied twice to be compared with the C
engine's path and part (``api._compiled._replay_keys`` now compares packed bytes; ``_fair_on_c``
reuses the generator's state space).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.frontends.csp import load_csp
from bridge.ir import Fairness, TransitionSystem
from bridge.semantics import statespace
from tests.conftest import in_ci

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

LE = Path(__file__).resolve().parents[2] / "case_studies" / "le_pl" / "le_pl.csp"


def _le(n: int) -> TransitionSystem:
    text = re.sub(r"#define N \d+;", f"#define N {n};", LE.read_text())
    return load_csp(f"le_pl_{n}.csp", text).systems[0]


def test_c_check_builds_the_state_space_once(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []
    init = statespace.CompiledStateSpace.__init__

    def counting(self: statespace.CompiledStateSpace, *args: object, **kw: object) -> None:
        built.append(self)
        init(self, *args, **kw)

    monkeypatch.setattr(statespace.CompiledStateSpace, "__init__", counting)
    ts = _le(6)
    [prop] = [p for p in ts.properties if p.formula is not None]
    verdict = api.check_property(ts, prop, api.CheckOptions(engine="c", fairness=Fairness.NONE))
    assert verdict.outcome.value == "violated" and verdict.lasso is not None
    assert ("engine", "c") in verdict.statistics.extra
    assert len(built) == 1  # the generator's, reused by the replay


def test_replay_keys_are_packed_bytes_and_match_the_slow_keys() -> None:
    # the fast keys (static layout, no library value, no hidden variable) name the same
    # product nodes as the canonical tuples of the general path
    ts = _le(4)
    [prop] = [p for p in ts.properties if p.formula is not None]
    fast = api.check_property(ts, prop, api.CheckOptions(engine="c", fairness=Fairness.NONE))
    assert driver.generate_model(ts).packed.dynamic is False
    py = api.check_property(ts, prop, api.CheckOptions(engine="python", fairness=Fairness.NONE))
    assert fast.outcome == py.outcome
    assert fast.lasso is not None and py.lasso is not None
    assert len(fast.lasso.prefix.steps) == len(py.lasso.prefix.steps)
    assert len(fast.lasso.loop) == len(py.lasso.loop) >= 1
