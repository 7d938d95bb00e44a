"""Regression: ``a = 1`` on a whole array crashed the Python engine (internal
TypeError, 'int' object is not iterable; the C engine refused "storing into a whole
array") and ``x = a`` stored a tuple in an int variable; the CSP# front-end now rejects
both as a type clash at the assignment (found by the audit of the C engine's refusals)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.diagnostics import SemanticError


@pytest.mark.parametrize(("body", "message"),
                         [("a = 1;", "assigning an int to an array"),
                          ("x = a;", "assigning an array to an int variable")])
def test_whole_array_assigned_a_single_value_is_an_error(tmp_path: Path, body: str,
                                                         message: str) -> None:
    path = tmp_path / "m.csp"
    path.write_text(f"var a[3];\nvar x = 0;\nP() = e{{{body}}} -> Stop;\n"
                    "#assert P() deadlockfree;\n")
    with pytest.raises(SemanticError) as info:
        api.load_model(str(path))
    assert f"type clash: {message}" in str(info.value)
    span = info.value.diagnostics[0].span
    assert span is not None and (span.line, span.col) == (3, 9)
