"""Regression: the fair search read the clock only every 1024 interned nodes, so a search
whose expansions are slow overran its time limit by a whole batch (LE N = 10000: each
state has 10,000 slots; a 30 s limit stopped after 38-45 s, and in ``bridge regress``
its 240 s rows were killed at the 365 s hard limit instead of ending as a clean limit).
``Product._clock`` now reads it about every ``CLOCK_GAP`` seconds whatever a node costs,
and ``check_ltl`` counts the time spent building the state space against the limit."""

from __future__ import annotations

import time

import pytest

from bridge.automata.buchi import universal_buchi
from bridge.fairness.conditions import make_condition
from bridge.fairness.emptiness import find_fair_lasso
from bridge.fairness.product import LimitReached, Product
from bridge.ir.property import Fairness
from tests.fairness.explicit import ExplicitLts, letters_for

SLEEP = 0.02  # seconds per expansion: a slow state space


class _SlowLts(ExplicitLts):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.expansions = 0

    def successors(self, state):  # type: ignore[no-untyped-def]
        self.expansions += 1
        time.sleep(SLEEP)
        return super().successors(state)


def test_a_slow_search_stops_at_its_deadline_not_after_a_batch_of_nodes() -> None:
    # a chain of 5000 states (an old clock reading came after 1024 nodes: 20 s here)
    lts = _SlowLts({i: [("a", i + 1)] for i in range(5000)})
    sl, el = letters_for(lts, ())
    product = Product(lts, universal_buchi(), sl, el, timeout=0.2)
    with pytest.raises(LimitReached) as limit:
        find_fair_lasso(product, make_condition(product, Fairness.NONE))
    assert limit.value.what == "time"
    # 0.2 s at 0.02 s per expansion: about 10 expansions, whatever the machine's load
    # (sleeping does not compete for the CPU); the old clock allowed 1024
    assert lts.expansions < 60, lts.expansions


def test_the_clock_is_read_less_often_when_nodes_are_cheap() -> None:
    lts = ExplicitLts({i: [("a", i + 1)] for i in range(20000)})
    sl, el = letters_for(lts, ())
    product = Product(lts, universal_buchi(), sl, el, timeout=600)
    readings = 0
    clock = product._clock

    def counted() -> None:
        nonlocal readings
        readings += 1
        clock()

    product._clock = counted  # type: ignore[method-assign]
    find_fair_lasso(product, make_condition(product, Fairness.NONE))
    # 20,001 nodes and as many expansions: one reading per tick would be 40,000
    assert readings < 4000, readings


def test_a_slow_exploration_stops_at_its_deadline() -> None:
    from bridge.diagnostics import ResourceLimitReached
    from bridge.semantics.explore import ExploreOptions, explore
    from bridge.semantics.statespace import build_state_space
    from tests.unit.semantics.test_checks import bounded_counter

    space = build_state_space(bounded_counter(5000))
    calls = 0
    successors = space.successors

    def slow(state):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        time.sleep(SLEEP)
        return successors(state)

    space.successors = slow  # type: ignore[method-assign]
    with pytest.raises(ResourceLimitReached, match="time limit"):
        explore(space, ExploreOptions(timeout=0.2))
    assert calls < 60, calls
