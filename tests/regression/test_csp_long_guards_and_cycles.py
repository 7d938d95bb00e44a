"""Regressions found by the public CSP# survey (issue 15).

- A guard of a few hundred ``||`` terms made the compiled engine fail: Python refuses
  more than 200 nested parentheses (``SyntaxError: too many nested parentheses``).
- ``V(j) = [cap[j] == 0] V((j+1)%N) [] ...`` (a choice that reaches its own process
  through guards) recursed without end in the lowering ("nested too deeply").
- Statistics of a state space holding library values (tuples) raised a TypeError.
"""

from __future__ import annotations

from bridge import api
from bridge.frontends.csp import load_csp
from bridge.ir import Outcome


def check(text: str) -> list[Outcome]:
    model = load_csp("t.csp", text)
    return [api.check_property(s, p, api.CheckOptions()).outcome for s, p in model.properties()]


def test_guard_of_three_hundred_disjuncts() -> None:
    guard = " || ".join(f"x == {i}" for i in range(300))
    assert check(f"var x = 7;\nP = [{guard}] a -> Skip;\n#assert P deadlockfree;") == [
        Outcome.HOLDS]


def test_choice_that_returns_through_guards() -> None:
    text = ("#define N 4;\nvar cap[N] = [0, 0, 2, 0];\n"
            "V(j) = [cap[j] == 0] V((j + 1) % N) [] [cap[j] > 0] take.j{cap[j]--} -> V(j);\n"
            "#define empty cap[2] == 0;\n#assert V(0) reaches empty;\n"
            "#assert V(0) deadlockfree;")
    # After two takes every guard is false: no step (PAT: its unfolding never ends
    # there; the reachable part before is what both explore).
    assert check(text) == [Outcome.HOLDS, Outcome.VIOLATED]


def test_statistics_with_library_values() -> None:
    text = ('#import "PAT.Lib.Set";\nvar<Set> s;\nvar n = 0;\n'
            "P = [n < 40] add{s.Add(n * 1000); n++} -> P;\n#assert P deadlockfree;")
    assert check(text) == [Outcome.VIOLATED]
