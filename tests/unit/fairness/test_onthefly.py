"""Unit tests for the on-the-fly emptiness check (``onthefly.py``), the lean product
(``product.py``) and packed system states (``packed.py``)."""

from __future__ import annotations

import pytest

from bridge.automata.buchi import Buchi, BuchiEdge, universal_buchi
from bridge.fairness.components import SearchStatistics
from bridge.fairness.emptiness import find_fair_lasso
from bridge.fairness.packed import PackedStates, pack_state, pack_state_signed, unpack_state
from bridge.ir.model import FairnessMark
from bridge.ir.property import Fairness
from tests.fairness.explicit import ExplicitLts, F, G, atom, build

# Two accepting automaton states that move to each other on every letter: every system
# loop has two product copies, so a part can be fair before its SCC is complete.
TWIN = Buchi(2, 0, tuple(
    (BuchiEdge(q, 0, True, 1), BuchiEdge(q, 1, True, 1)) for q in range(2)), 1, ())


def _search(lts, fairness, marks=None, buchi=None, early=True, formula=None):
    product, cond = build(lts, fairness, formula, marks=marks, buchi=buchi)
    stats = SearchStatistics()
    return product, find_fair_lasso(product, cond, stats, early=early), stats


# 0 loops on a; a tail of a-steps leads back to 0: one SCC of 11 states, and {0} alone
# is already fair (every action it enables, a, is engaged on its loop).
TAIL = ExplicitLts({0: [("a", 0, (0,)), ("a", 1, (0,))],
                    **{i: [("a", (i + 1) % 11, (0,))] for i in range(1, 11)}})


@pytest.mark.parametrize("fairness", [f for f in Fairness if f is not Fairness.STRONG_GLOBAL])
def test_a_fair_part_is_reported_before_its_component_is_complete(fairness):
    product, lasso, stats = _search(TAIL, fairness)
    assert lasso is not None and stats.early_report
    assert sum(product.is_expanded(n) for n in range(product.num_nodes)) == 1
    assert stats.sccs == 0  # no component was completed
    _, complete, complete_stats = _search(TAIL, fairness, early=False)
    assert complete is not None and not complete_stats.early_report
    assert complete_stats.sccs >= 1


@pytest.mark.parametrize("mark", list(FairnessMark))
def test_annotations_report_early(mark):
    _product, lasso, stats = _search(TAIL, Fairness.NONE, marks={"a": mark})
    assert lasso is not None and stats.early_report


def test_strong_global_reports_a_closed_part_early():
    """Under strong global fairness a part must take every system step of each of its
    nodes: node (0, q0) takes its only step a -> 0 on its self-loop."""
    lts = ExplicitLts({0: [("a", 0, (0,))]})
    product, lasso, stats = _search(lts, Fairness.STRONG_GLOBAL, buchi=TWIN)
    assert lasso is not None and stats.early_report
    assert product.num_nodes == 2 and sum(product.is_expanded(n) for n in range(2)) == 1


def test_strong_global_needs_every_step_of_a_node():
    # 0 -a-> 0 and 0 -b-> 1 (1 deadlocks): {0} is not closed, the deadlock's stutter is.
    lts = ExplicitLts({0: [("a", 0, (0,)), ("b", 1, (0,))], 1: []})
    product, lasso, stats = _search(lts, Fairness.STRONG_GLOBAL)
    assert lasso is not None
    assert {product.sys_states[product.node_sys[u]][0] for u, _k, _v in lasso.loop} == {1}


@pytest.mark.parametrize(("fairness", "marks"), [
    (Fairness.STRONG_LOCAL, None),
    (Fairness.PROCESS_STRONG, None),
    (Fairness.NONE, {"x": FairnessMark.SF}),
])
def test_a_fair_subcomponent_of_an_unfair_component_is_found(fairness, marks):
    """Against !FG p: the SCC {0, 1, 2} enables x at 0 and never takes it, so it is not
    strongly fair; {1, 2} is (state 3, where x leads, satisfies p forever). The back
    edge 1 -> 0 merges 0 into the part before {1, 2} closes a cycle, so no early report
    fires, and the complete SCC must go to Fig. 5 (a strong requirement is not
    all-or-nothing, unlike a weak one)."""
    lts = ExplicitLts({0: [("a", 1, (0,)), ("x", 3, (1,))],
                       1: [("c", 2, (0,)), ("c", 0, (0,))],
                       2: [("c", 1, (0,))],
                       3: [("y", 3, (1,))]},
                      labels={3: ["p"]})
    product, lasso, stats = _search(lts, fairness, marks, formula=F(G(atom("p"))))
    assert lasso is not None
    loop_states = {product.sys_states[product.node_sys[u]][0] for u, _k, _v in lasso.loop}
    assert loop_states == {1, 2}
    assert stats.subgraphs >= 1 and not stats.early_report


def test_weak_failure_of_a_complete_component_skips_fig5():
    """An always-enabled action never engaged fails every subgraph (Fig. 7): the
    complete component is not handed to Fig. 5."""
    lts = ExplicitLts({0: [("a", 1, (0,)), ("b", 0, (1,))], 1: [("a", 0, (0,)), ("b", 1, (1,))]})
    _product, lasso, stats = _search(lts, Fairness.WEAK, buchi=Buchi(
        1, 0, ((BuchiEdge(0, 0, True, 1),),), 1, ()))
    assert lasso is not None  # a and b are both engaged on the loop
    lts2 = ExplicitLts({0: [("a", 1, (0,)), ("z", 2, (1,))], 1: [("a", 0, (0,)), ("z", 2, (1,))],
                        2: [("w", 2, (1,))]})
    product, lasso, stats = _search(lts2, Fairness.WEAK, buchi=universal_buchi())
    # {0, 1} always enables z and never takes it: no fair subgraph there; {2} is fair
    assert lasso is not None
    assert {product.sys_states[product.node_sys[u]][0] for u, _k, _v in lasso.loop} == {2}
    assert stats.subgraphs == 0


def test_lasso_prefix_is_a_path_from_the_initial_state():
    product, lasso, _stats = _search(TAIL, Fairness.WEAK)
    assert lasso.initial in product.initial_nodes()
    node = lasso.initial
    for u, k, v in lasso.prefix + lasso.loop:
        assert u == node and (v, k) in {(w, kk) for w, kk, _a in product.edges(u)}
        node = v
    assert node == lasso.loop_start


# ---------------------------------------------------------------------------------
# The lean product


def test_edges_are_recomputed_identically():
    product, _cond = build(TAIL, Fairness.NONE, buchi=TWIN)
    first = {}
    todo = list(product.initial_nodes())
    while todo:
        n = todo.pop()
        if n in first:
            continue
        e = product.expand(n)
        first[n] = list(zip(e.targets, e.steps, e.accs, strict=True))
        todo.extend(e.targets)
    assert all(product.edges(n) == first[n] for n in first)
    assert not hasattr(product, "_out_dst")  # no edge lists kept
    with pytest.raises(AssertionError):
        product.expand(product.initial_nodes()[0])


@pytest.mark.parametrize("state", [
    (), (0, 1, 2), (-1, 0, 127), (-128, 5), (128, 255, 0), (256,), (-1, 200), (1 << 31,),
    (-(1 << 40), 3), (1 << 70,), ("a", 1), (None,),
])
def test_packing_round_trips(state):
    assert unpack_state(pack_state(state)) == state


@pytest.mark.parametrize("state", [(0, 1, 2), (-1, 0, 127), (200, 1), (-1, 200), (1 << 40,), ("a",)])
def test_both_packers_agree(state):
    assert pack_state(state) == pack_state_signed(state)


def test_packing_is_canonical():
    # equal states, one packing; different widths never collide
    states = [(1, 2), (1, 2, 0), (258,), (2, 1), (-1,), (255,), (0, 255), (65535,)]
    packed = [pack_state(s) for s in states]
    assert len(set(packed)) == len(states)
    assert pack_state((1, 2)) == pack_state(tuple([1, 2]))


def test_hidden_variables_share_an_id_and_keep_the_first_state():
    store = PackedStates(key_of=lambda s: s[1:])
    assert store.add((7, 1)) == 0
    assert store.add((8, 1)) == 0  # same key: the first state met stands for both
    assert store.add((7, 2)) == 1
    assert store[0] == (7, 1) and store.find((9, 2)) == 1 and store.find((9, 3)) is None
