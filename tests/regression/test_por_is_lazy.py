"""Regression: partial order reduction built its whole reduced graph before the fair
search started, so ``--por`` lost early termination (``le_or_fixed_5 --fairness weak``:
0.1 s without, over 60 s with). Ample sets are now chosen when the product expands a
node (``bridge/reductions/por.py``, ``bridge/fairness/product.py``), so a counterexample
near the start is found after storing few states. Only state counts are compared.
"""

from __future__ import annotations

from bridge.ir import Fairness, LtlState, LtlUnary
from bridge.reductions.por import PartialOrderReduction
from bridge.semantics.statespace import build_state_space
from tests.irbuild import G, add, assign, edge, eq, int_var, op, process, system
from tests.unit.reductions.fairtools import check, reachable, replay

WORKERS = 5
STEPS = 4


def _model():
    """P0 sets x to 1 at once, then idles; the workers each take STEPS steps on the
    shared y (dependent on each other, so POR reduces little: the reduced graph is
    nearly the whole state space)."""
    p0 = process("P0", [edge(0, 1, effect=[assign("x", 1)]), edge(1, 1)], n_locations=2)
    workers = [
        process(
            f"W{k}",
            [edge(i, i + 1, effect=[assign("y", op("mod", add(G("y"), k + 1), 5))])
             for i in range(STEPS)],
            terminal=[STEPS],
        )
        for k in range(WORKERS)
    ]
    return system([p0, *workers], globals_=[int_var("x", 0), int_var("y", 0)])


def test_por_finds_an_early_counterexample_without_building_the_reduced_graph():
    ts = _model()
    formula = LtlUnary("G", LtlState(eq(G("x"), 0), "x==0"))
    full = build_state_space(ts)
    size = len(reachable(full))
    assert size > 5000  # the whole graph is big
    expected = check(full, formula)
    assert expected.violated
    for fairness in (Fairness.NONE, Fairness.WEAK):
        por = PartialOrderReduction(build_state_space(ts), ts, formula, fairness)
        got = check(por, formula, fairness, full_enabled=fairness is not Fairness.NONE)
        assert got.violated
        replay(full, got.initial, got.prefix + got.loop)
        # The search stopped early: it stored few product states, and the wrapper was
        # asked about as few system states. (The unreduced search now reports even
        # earlier, on the fly: P0's idle loop after x = 1; the ample sets postpone P0's
        # visible step, so the reduced search meets that loop only after the workers.)
        assert got.nodes * 10 < size
        assert por.statistics.states * 10 < size
