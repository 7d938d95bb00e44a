"""Regression: ``x = y && 5`` stored 5 in the Python engine (Python's ``and`` gives an
operand); SPIN stores 1, and PAT's C# operators give booleans. Found while writing the
C engine, which mirrored the Python engine. Both engines now store 0 or 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c.build import find_compiler
from bridge.ir import Outcome, PropertyKind

MODEL = """byte x; byte z; byte y = 3;
active proctype P() {
  x = y && 5; assert(x == 1);
  z = 0 || y; assert(z == 1);
  x = (y > 9) || 0; assert(x == 0)
}
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_logical_operators_give_booleans(tmp_path: Path, engine: str) -> None:
    if engine == "c" and find_compiler() is None:
        pytest.skip("no C compiler")
    path = tmp_path / "and.pml"
    path.write_text(MODEL)
    [ts] = api.load_model(str(path)).systems
    safety = next(p for p in ts.properties if p.kind is PropertyKind.SAFETY)
    verdict = api.check_property(ts, safety, api.CheckOptions(engine=engine))
    assert verdict.outcome is Outcome.HOLDS, (verdict.reason, verdict.notes)
