"""The automaton table of the C fair search (issue 12 item 2): conditions as cubes."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.automata.buchi import evaluate_condition
from bridge.engine_c.driver import _cubes

APS = 4


def _conditions(depth: int) -> st.SearchStrategy:
    leaf = st.booleans()
    if depth == 0:
        return leaf
    return st.one_of(leaf, st.tuples(st.integers(0, APS - 1), _conditions(depth - 1),
                                      _conditions(depth - 1)))


# No deadline: nested conditions of depth 4 make a few examples slow on a loaded machine
# (the test flaked with hypothesis' 200 ms deadline).
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_conditions(4))
def test_cubes_hold_exactly_where_the_condition_does(condition) -> None:
    cubes = _cubes(condition)
    for bits in itertools.product((0, 1), repeat=APS):
        letter = sum(b << i for i, b in enumerate(bits))
        expected = evaluate_condition(condition, letter)
        assert any(letter & m == v for m, v in cubes) == expected, (condition, letter)


def test_constant_conditions() -> None:
    assert _cubes(True) == [(0, 0)]
    assert _cubes(False) == []
    assert _cubes((1, True, False)) == [(2, 2)]
