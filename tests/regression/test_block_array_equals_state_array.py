"""Regression: CSP#'s ``==``/``!=`` compare arrays by their cells (cspsharp.md, section 4
"Evaluation semantics"), but the Python engine held a block array (``e{var t = [1, 2];
...}``) as a list and read it whole as that list, while an array of the state is read
as the tuple of its cells: ``t == a`` was never true (and ``t != a`` always), so
``if (t == a)`` took the wrong branch and a ``reaches`` goal behind it was VIOLATED.
A block array of one cell (``var t[1]``) was held as a plain int and indexing it
crashed the Python engine (internal TypeError; the C engine's code did not compile),
and a block array put into the state by a send (hand-built IR) was an unhashable list.
A block array now is a list of its cells even of one cell, read whole as the tuple of
its cells, as the state's arrays are."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.ir import (
    UNBOUNDED,
    ArrayType,
    Channel,
    LocalVar,
    Outcome,
    PropertyKind,
    Send,
    SourceLanguage,
    Var,
)
from bridge.semantics import explore as python_engine
from tests.irbuild import C, edge, int_var, process, prop, system

# (declarations of the state, the block, the value of r it must leave)
CASES = {
    "equal": ("var a = [1, 2];", "var t = [1, 2]; if (t == a) { r = 1; } else { r = 2; }", 1),
    "not equal, same cells": ("var a = [1, 2];", "var t = [1, 2]; if (t != a) { r = 2; } "
                              "else { r = 1; }", 1),
    "other cells": ("var a = [1, 2];", "var t = [2, 1]; if (t == a) { r = 2; } "
                    "else { r = 1; }", 1),
    "state on the left": ("var a = [1, 2];", "var t = [1, 2]; if (a == t) { r = 1; }", 1),
    "another length": ("var b[3];", "var t[2]; if (t == b) { r = 2; } "
                       "if (t != b) { r = r + 1; }", 1),
    "a row of two dimensions": ("var m[2][2] = [1, 2, 3, 4];",
                                "var w[2][2] = [3, 4, 1, 2]; if (w[1] == m[0]) { r = 1; } "
                                "if (w == m) { r = 2; }", 1),
    "two dimensions whole": ("var m[2][2] = [1, 2, 3, 4];",
                             "var w[2][2] = [1, 2, 3, 4]; if (w == m) { r = 1; }", 1),
    "one cell": ("var a[1];", "var t[1]; t[0] = 5; a[0] = 5; if (t == a) { r = 1; }", 1),
    "one cell initialised": ("var a[1];", "var t[1] = [7]; r = t[0] - 6;", 1),
    "copied into the state": ("var a = [1, 2]; var b[2];",
                              "var t = [1, 2]; b = t; t[0] = 9; if (b == a) { r = 1; }", 1),
    "a loop until equal": ("var a = [3, 3];",
                           "var t[2]; while (t != a) { t[0] = t[0] + 1; t[1] = t[0]; } "
                           "r = t[1] - 2;", 1),
}


@pytest.mark.parametrize("case", CASES)
def test_a_block_array_compares_by_its_cells(tmp_path: Path, case: str) -> None:
    decls, block, value = CASES[case]
    path = tmp_path / "m.csp"
    path.write_text(f"{decls}\nvar r = 0;\nP() = x{{{block}}} -> Stop;\n"
                    f"#define goal r == {value};\n#assert P() reaches goal;\n", encoding="utf-8")
    (ts,) = api.load_model(str(path)).systems
    verdict = python_engine.check_property(ts, ts.properties[0])
    assert verdict.outcome is Outcome.HOLDS, verdict


def test_a_block_array_sent_is_the_tuple_of_its_cells() -> None:
    """Hand-built IR (CSP# sends no block variable): ``x{var t = [1, 2]; c!t;}`` puts the
    tuple of t's cells into the channel, as ``c!a`` of a state array does (a list in
    the state could not be hashed)."""
    t = Var("t", "block")
    body = [LocalVar("t", ArrayType(UNBOUNDED, 2), (C(1), C(2))),
            Send(Var("c", "global"), (t,))]
    p = process("P", [edge(0, 1, effect=body, event="x")])
    ts = system([p], globals_=[int_var("r", 0)], channels=[Channel("c", 1, (UNBOUNDED,))],
                language=SourceLanguage.CSP, properties=[prop(PropertyKind.DEADLOCK_FREE)])
    stats = python_engine.explore(ts)
    assert (stats.states, stats.transitions) == (2, 1)
