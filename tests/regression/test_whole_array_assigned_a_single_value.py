"""Regression: ``a = 1`` on a whole array crashed the Python engine (internal
TypeError, 'int' object is not iterable; the C engine refused "storing into a whole
array") and ``x = a`` stored a tuple in an int variable; the CSP# front-end now rejects
both as a type clash at the assignment (found by the audit of the C engine's refusals)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.regression.test_block_array_initialiser_length import assert_csp_error


@pytest.mark.parametrize(("body", "message"),
                         [("a = 1;", "assigning an int to an array"),
                          ("x = a;", "assigning an array to an int variable")])
def test_whole_array_assigned_a_single_value_is_an_error(tmp_path: Path, body: str,
                                                         message: str) -> None:
    assert_csp_error(tmp_path, f"var a[3];\nvar x = 0;\nP() = e{{{body}}} -> Stop;\n"
                     "#assert P() deadlockfree;\n", f"type clash: {message}", 3, 9)
