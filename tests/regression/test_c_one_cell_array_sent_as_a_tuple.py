"""Regression: the C engine sent and named a whole array of one cell (``c!o``, ``f.o``
with ``var o[1]``) as the tuple of its cell, ``(3,)``, where the Python engine (the
reference) reads such an array whole as its cell, 3: its searches took steps the Python
semantics does not have (each check fell back to a Python replay of its trace, so no
verdict was wrong, but the C search was not the model's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c.build import find_compiler
from bridge.ir import Outcome
from tests.conftest import in_ci
from tests.differential.test_engine_c_constructs import _agree

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")


def test_c_one_cell_array_is_its_cell_in_names_and_messages(tmp_path: Path) -> None:
    """An array of one cell read whole is its cell in the Python engine (``e.o`` is
    ``f.3``, ``c!o`` sends 3), a row of one cell too; the C engine sent and named the
    tuple ``(3,)`` (its trace was not a Python step: the check fell back to a Python
    replay, and an LTL event atom ``h.3`` was never true)."""
    text = ("var o[1] = [3];\nvar m[2][1] = [1, 2];\nchannel c 1;\n"
            "R() = f.o -> c!o -> c?y -> h.y -> g.m[1] -> c!m[0] -> c?z -> k.z -> "
            "([o == m[0]] same -> R() [] [o != m[1]] differ -> R());\n"
            "#assert R() deadlockfree;\n#assert R() deterministic;\n"
            "#assert R() |= []<> h.3;\n#assert R() |= [] !f.3;\n")
    (ts,) = _agree(tmp_path, "one_cell.csp", text)
    verdicts = [api.check_property(ts, p, api.CheckOptions(engine="python")).outcome
                for p in ts.properties]
    assert verdicts == [Outcome.HOLDS] * 3 + [Outcome.VIOLATED]
    got = api.check_property(ts, ts.properties[3], api.CheckOptions(engine="c"))
    assert got.outcome is Outcome.VIOLATED and not any("Python" in n for n in got.notes)
