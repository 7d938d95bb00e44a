"""Regression: a block array whose initialiser has another number of values than its
cells (``var a[3] = [1, 2];`` inside an event's block) crashed the Python engine with an
internal IndexError, and with more values than cells (``var a[2] = [1, 2, 3];``) the
Python engine silently used a 3-cell array; the C engine refused both. The CSP#
front-end now rejects it at the initialiser, as it rejects such a global array."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.diagnostics import SemanticError
from bridge.frontends.csp import load_csp


def assert_csp_error(tmp_path: Path, text: str, message: str, line: int, col: int) -> None:
    """Assert loading the CSP# ``text`` is a ``SemanticError`` with ``message`` at
    ``line``:``col``."""
    path = tmp_path / "m.csp"
    path.write_text(text)
    with pytest.raises(SemanticError) as info:
        api.load_model(str(path))
    assert message in str(info.value)
    span = info.value.diagnostics[0].span
    assert span is not None and (span.line, span.col) == (line, col)


@pytest.mark.parametrize(("decl", "cells", "values"),
                         [("var a[3] = [1, 2];", 3, 2), ("var a[2] = [1, 2, 3];", 2, 3)])
def test_block_array_initialiser_of_another_length_is_an_error(
        tmp_path: Path, decl: str, cells: int, values: int) -> None:
    assert_csp_error(tmp_path, f"var g = 0;\nP() = e{{{decl} g = a[1];}} -> Stop;\n"
                     "#assert P() deadlockfree;\n",
                     f"array 'a' has {cells} elements but its initialiser has {values}", 2, 20)


def test_block_array_initialiser_of_its_length_runs() -> None:
    """The right number of values still loads and runs (``var a[4]`` takes four)."""
    model = load_csp("m.csp", "var g = 0;\nP() = e{var a[4] = [1, 2, 3, 4]; g = a[3];} "
                     "-> ([g == 4] f -> Stop);\n#assert P() deadlockfree;\n")
    [(_, stats)] = api.explore(model, options=api.CheckOptions(engine="python"))
    assert stats.states == 3  # e, then f enabled only because g == a[3] == 4
