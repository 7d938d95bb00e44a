"""Regression (found by the random CSP# models): recursion inside ``atomic``
(``P0(i) = a -> b.i -> atomic { P0((i + 1) % 2) };``) nested one more ``atomic`` per
round, so the process term grew without end and loading never answered (past
``--timeout``). ``atomic { atomic { P } }`` is ``atomic { P }`` (being atomic is one
mark of the process, cspsharp.md section 7): the nesting is collapsed, and the model
is the one whose atomic body recurses without the inner ``atomic``."""

from __future__ import annotations

import pytest

from bridge import api
from bridge.frontends.csp import load_csp
from tests.csp_deadline import load_within

NESTED = "P0(i) = a -> b.i -> atomic { P0((i + 1) % 2) };\n"
FLAT = ("P0(i) = a -> b.i -> atomic { R((i + 1) % 2) };\n"
        "R(i) = a -> b.i -> R((i + 1) % 2);\n")


def result(defs: str, system: str, engine: str) -> tuple:
    text = f"{defs}Sys() = {system};\n#assert Sys() deadlockfree;\n#assert Sys() |= []<> b.0;\n"
    out = []
    for sys_, prop in load_csp("t.csp", text).properties():
        v = api.check_property(sys_, prop, api.CheckOptions(engine=engine))
        out.append((v.outcome, v.statistics.states, v.statistics.transitions))
    return tuple(out)


@pytest.mark.parametrize("system", ["P0(0)", "P0(0) ||| P0(1)", "P0(0) ||| c -> Stop"])
def test_csp_recursion_inside_atomic(system: str) -> None:
    assert load_within(NESTED + f"Sys() = {system};\n#assert Sys() deadlockfree;\n") == ""
    expected = result(FLAT, system, "python")
    for engine in ("python", "c"):
        assert result(NESTED, system, engine) == expected
