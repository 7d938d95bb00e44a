"""Regression: a whole array used as a number or a boolean (``a + 1``, ``a > 1``, ``-a``,
``!a``, ``a && b``, a guard ``[a]``, ``a == 1``) passed the CSP# front-end and crashed the
Python engine (internal TypeError: a tuple added to an int) or read a tuple as true; it
is now a type clash at the array: a whole array is a value of ``==``/``!=`` with
another array, of an assignment to an array, of a message and of an event name only.
And a block array of two dimensions had the type of its cells in the front-end, so
``w[1][0]`` was "indexing a value that is not an array" and ``w[1] == m[0]`` compared
an int: its rows are arrays now."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.frontends.csp import load_csp
from bridge.ir import Outcome
from bridge.semantics import explore as python_engine
from tests.regression.test_block_array_initialiser_length import assert_csp_error

HEAD = "var a = [1, 2];\nvar r = 0;\n"


@pytest.mark.parametrize(("use", "message", "col"), [
    ("x{r = a + 1;}", "'+' needs integers, this is an array", 13),
    ("x{r = 2 * a;}", "'*' needs integers, this is an array", 17),
    ("[a > 1] x", "'>' needs integers, this is an array", 8),
    ("[a] x", "a guard must be a boolean expression, not an array", 8),
    ("[a == 1] x", "'==' compares an array with an integer", 8),
    ("[r != a] x", "'!=' compares an array with an integer", 13),
    ("[a != true] x", "'!=' compares an array with a boolean", 8),
    ("[a && true] x", "'&&' needs booleans, this is an array", 8),
    ("[!a] x", "'!' applied to an array", 8),
    ("x{r = -a;}", "'-' applied to an array", 13),
    ("x{var t = a; r = t + 1;}", "'+' needs integers, this is an array", 24),
    ("x{if (a) { r = 1; }}", "an if condition must be a boolean expression, not an array", 13),
])
def test_whole_array_as_a_number_is_a_type_clash(tmp_path: Path, use: str, message: str,
                                                 col: int) -> None:
    assert_csp_error(tmp_path, f"{HEAD}P() = {use} -> Stop;\n#assert P() deadlockfree;\n",
                     message if "must be" in message else f"type clash: {message}", 3, col)


def test_whole_array_received_compares_with_an_array() -> None:
    """A variable that received a whole array holds its cells' tuple: ``==`` with an
    array stays legal (equal contents, equal), as with a library value."""
    model = load_csp("m.csp", "var a = [1, 2];\nchannel c 1;\n"
                     "P() = c!a -> c?x -> ([x == a] same -> Stop [] [x != a] differ -> Stop);\n"
                     "#define goal false;\n#assert P() deadlockfree;\n")
    (ts,) = model.systems
    stats = python_engine.explore(ts)
    assert (stats.states, stats.transitions) == (4, 3)  # c!, c?, then same only


def test_rows_of_a_block_array_are_arrays() -> None:
    model = load_csp("m.csp", "var m[2][2] = [3, 4, 1, 2];\nvar r = 0;\n"
                     "P() = x{var w[2][2] = [1, 2, 3, 4]; r = w[1][0];"
                     " if (w[1] == m[0]) { r = r + 10; }} -> Stop;\n"
                     "#define goal r == 13;\n#assert P() reaches goal;\n")
    (ts,) = model.systems
    assert python_engine.check_property(ts, ts.properties[0]).outcome is Outcome.HOLDS
