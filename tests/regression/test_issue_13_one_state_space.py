"""Issue 13 item 1: a check on the C engine built the model's Python state space twice,
once for the C generator (its layout and initial state) and once more for the fair
checker that replays the C search's report; it now searches the C generator's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.ir.property import Fairness
from bridge.ir.verdict import Outcome

MODEL = """#define N 3;
var x = 0;
Up() = [x < N] up{x = x + 1;} -> Up() [] [x == N] reset{x = 0;} -> Up();
#define top x == N;
#assert Up() |= []<> top;
#assert Up() |= [] top;
"""


@pytest.mark.parametrize(("assertion", "outcome"), [(1, Outcome.HOLDS),
                                                    (2, Outcome.VIOLATED)])
def test_a_c_check_builds_one_state_space(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          assertion: int, outcome: Outcome) -> None:
    import bridge.engine_c
    import bridge.engine_c.driver as driver
    import bridge.semantics.statespace as statespace

    if bridge.engine_c.find_compiler() is None:
        pytest.skip("no C compiler")
    path = tmp_path / "up.csp"
    path.write_text(MODEL)
    model = api.load_model(str(path))
    built = []
    original = statespace.build_state_space
    def counted(*args: object, **kwargs: object) -> object:
        built.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(statespace, "build_state_space", counted)
    monkeypatch.setattr(driver, "build_state_space", counted)
    (verdict,) = api.check(model, assertion, api.CheckOptions(
        fairness=Fairness.WEAK, engine="c"))
    assert verdict.outcome is outcome
    assert len(built) == 1
    if outcome is Outcome.VIOLATED:
        assert verdict.lasso is not None  # replayed on the shared state space
