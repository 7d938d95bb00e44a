"""Regression (found by the random CSP# models): recursion on the left of a ';'
(``P1(j) = c -> (P1(j); a -> Stop);``) grows the process term by one ';' per step. The
leaf builder unfolded it with a cost cubic in the depth (each location's steps
normalise the whole chain at every level) and stopped only at depth 500, minutes later
and past ``--timeout``. It is now refused once ';' nests more than MAX_SEQ_DEPTH deep,
at once; a finite chain below the bound still loads."""

from __future__ import annotations

import pytest

from bridge import api
from bridge.diagnostics import SemanticError
from bridge.frontends.csp import load_csp
from bridge.frontends.csp.configurations import MAX_SEQ_DEPTH
from bridge.ir import Outcome
from tests.csp_deadline import load_within

GROWING = "P1(j) = c -> (P1(j); a -> Stop);\nSys() = P1(0);\n#assert Sys() deadlockfree;\n"


def test_csp_sequential_recursion_without_bound_is_refused_quickly() -> None:
    assert "nested more than" in load_within(GROWING)
    with pytest.raises(SemanticError, match=f"nested more than {MAX_SEQ_DEPTH} deep"):
        load_csp("t.csp", GROWING)


def test_csp_sequential_recursion_with_a_bound_loads() -> None:
    text = ("P1(i) = [i < 90] c -> (P1(i + 1); a -> Skip) [] [i >= 90] Skip;\n"
            "Sys() = P1(0);\n#assert Sys() deadlockfree;\n")
    [(system, prop)] = load_csp("t.csp", text).properties()
    verdict = api.check_property(system, prop, api.CheckOptions(engine="python"))
    assert verdict.outcome is Outcome.HOLDS
    assert (verdict.statistics.states, verdict.statistics.transitions) == (183, 182)


def test_csp_recursion_under_atomic_and_hiding_without_bound_is_refused_quickly() -> None:
    """``atomic`` and hiding alternate (each step nests both once more)."""
    text = ("P0(i) = a.i -> ((atomic { P0((i + 1) % 3) }) \\ {b});\n"
            "Sys() = P0(0);\n#assert Sys() deadlockfree;\n")
    assert "nested more than" in load_within(text)
