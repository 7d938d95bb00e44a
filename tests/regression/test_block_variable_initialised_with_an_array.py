"""Regression: a block variable initialised with a whole array (``x{var x = a; ...}``)
was a scalar holding the tuple of a's cells in the Python engine: ``x[1]`` was
"indexing a value that is not an array", ``r = x + 1`` crashed with an internal
TypeError, and the C engine refused the model. It is now a block array of a's shape
(a global or block array, a row of one), a copy of its cells as the assignment
``bak = slots`` copies: writing ``x`` leaves ``a`` as it was; ``var k[n] = a`` copies
too, an error when the numbers of cells differ."""

from __future__ import annotations

from pathlib import Path

from bridge.frontends.csp import load_csp
from bridge.ir import Outcome
from bridge.semantics import explore as python_engine
from tests.regression.test_block_array_initialiser_length import assert_csp_error

MODEL = ("var a = [1, 2];\nvar m[2][2] = [1, 2, 3, 4];\nvar o[1] = [6];\nvar r = 0;\n"
         "P() = x{var t = [1, 2]; var x = a; var y = t; var z = m[1]; var q = m; var p = o;"
         " var k[2] = a; x[0] = 9;"
         " if (x != a && y == t && k == a && a[0] == 1) { r = r + 1; }"
         " if (z[1] == 4 && q[1][0] == 3 && q == m) { r = r + 2; }"
         " if (p[0] == 6 && p == o && x[1] == 2) { r = r + 4; }} -> Stop;\n"
         "#define goal r == 7;\n#assert P() reaches goal;\n")


def test_block_variable_initialised_with_an_array_is_a_copy() -> None:
    (ts,) = load_csp("m.csp", MODEL).systems
    assert python_engine.check_property(ts, ts.properties[0]).outcome is Outcome.HOLDS


def test_block_array_initialised_with_an_array_of_another_length(tmp_path: Path) -> None:
    assert_csp_error(tmp_path, "var a = [1, 2];\nvar r = 0;\nP() = e{var k[3] = a; r = k[0];}"
                     " -> Stop;\n#assert P() deadlockfree;\n",
                     "array 'k' has 3 elements but its initialiser has 2", 3, 20)
