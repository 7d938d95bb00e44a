"""Constructs a CSP# or Promela source reaches that the C engine refused until the
audit of its refusals (issue 12): each against the Python engine (the reference), every
state and transition count, verdict and trace alike, and the C engine takes the model
(``driver.supports``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.engine_c.build import find_compiler
from bridge.engine_c.gen_base import MAX_LOCAL_ARRAY
from bridge.ir import Outcome
from bridge.semantics import explore as python_engine
from tests.conftest import in_ci
from tests.differential.test_engine_c_constructs import _agree

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")


def test_large_block_array_agrees(tmp_path: Path) -> None:
    """A block array of more cells than the C stack keeps (``var a[5000];`` in an
    event's block: static storage): zeroed each time the block runs, written and read
    at indices computed from the state, by two interleaved processes; ``g`` grows by
    one a step only if every cell read is the block's own (a cell left from an earlier
    run would add more), so the goal and the deadlock trace are the Python engine's."""
    n = MAX_LOCAL_ARRAY + 904
    text = (f"var g = 0;\nvar h = 0;\n"
            f"P() = e{{var a[{n}]; a[g % {n}] = a[g % {n}] + 1; a[{n - 1}] = a[{n - 1}] + 1; "
            f"g = g + a[g % {n}] * a[{n - 1}] + a[(g + 1) % {n}];}} -> ([g < 4] P());\n"
            f"Q() = f{{var b[{n}] = 7; h = h + b[h % {n}] - 6;}} -> ([h < 3] Q());\n"
            "S() = P() ||| Q();\n"
            "#define goal g == 4 && h == 3;\n#assert S() reaches goal;\n#assert S() deadlockfree;\n")
    (ts,) = _agree(tmp_path, "big_block.csp", text)
    assert python_engine.check_property(ts, ts.properties[0]).outcome is Outcome.HOLDS
    assert python_engine.check_property(ts, ts.properties[1]).outcome is Outcome.VIOLATED
