"""Regression: ``--timeout`` did not cover compiling the model for the C engine. The
compiler ran to its end (up to ``COMPILE_TIMEOUT``, 300 s, on a model with thousands of
instances of code of their own) and only the search after it was given the time left,
so a run could overshoot its limit by the whole compile time. Now the compiler is
stopped at the run's time limit: UNKNOWN, exit code 3, and nothing half-built in the
cache; the search after a compile gets only what the compile left."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.diagnostics import ResourceLimitReached
from bridge.engine_c.build import find_compiler
from bridge.ir import Fairness, ModelFile, Outcome
from tests.conftest import in_ci

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

# one model text per test: a library built (and loaded) by one test is not compiled again
MODEL = """byte compile_timeout_x = START;
active proctype P() {
  do :: compile_timeout_x < 9 -> compile_timeout_x++ :: compile_timeout_x == 9 -> compile_timeout_x = START od
}
ltl p { []<> (compile_timeout_x == START) }
"""


def _load(tmp_path: Path, start: int) -> ModelFile:
    path = tmp_path / "m.pml"
    path.write_text(MODEL.replace("START", str(start)))
    return api.load_model(str(path))


@pytest.mark.parametrize("assertion", [1, 2])  # the fair search; the safety search
def test_c_compile_within_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  assertion: int) -> None:
    monkeypatch.setenv("BRIDGE_CACHE_DIR", str(tmp_path / f"cache{assertion}"))
    model = _load(tmp_path, assertion)
    [verdict] = api.check(model, assertion, api.CheckOptions(engine="c", timeout=1e-6,
                                                             fairness=Fairness.PROCESS_WEAK))
    assert verdict.outcome is Outcome.UNKNOWN
    assert "compiling the model in C" in verdict.reason
    assert api.outcome_exit_code([verdict]) == 3
    assert not list((tmp_path / f"cache{assertion}").glob("model-*.so"))
    # with time to compile, the same check answers
    [full] = api.check(_load(tmp_path, assertion), assertion, api.CheckOptions(engine="c", timeout=600,
                                                                    fairness=Fairness.PROCESS_WEAK))
    assert full.outcome is Outcome.HOLDS


def test_c_explore_compile_within_timeout(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRIDGE_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(ResourceLimitReached, match="compiling the model in C"):
        api.explore(_load(tmp_path, 3), options=api.CheckOptions(engine="c", timeout=1e-6))
