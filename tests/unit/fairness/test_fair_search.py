"""Unit tests for the prunes (``conditions.py``), the Fig. 5 search and lasso building
(``emptiness.py``) and the product (``product.py``) on explicit graphs."""

from __future__ import annotations

import pytest

from bridge.fairness.conditions import Subgraph
from bridge.fairness.emptiness import SearchStatistics, find_fair_lasso, find_fair_subgraph
from bridge.fairness.product import STUTTER_STEP, LimitReached, Product
from bridge.ir.model import FairnessMark
from bridge.ir.property import Fairness
from tests.fairness.explicit import ExplicitLts, F, G, atom, build, ev, feasible, violated


def _sub(product, nodes):
    nodes = set(nodes)
    edges = [(u, v, k, a) for u in nodes for v, k, a in product.edges(u) if v in nodes]
    return Subgraph(nodes, edges)


def _expand_all(product):
    todo = list(product.initial_nodes())
    seen = set(todo)
    while todo:
        for w in product.successors(todo.pop()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return sorted(seen)


FIG6 = ExplicitLts(
    {
        0: [("a", 1), ("b", 2)],
        1: [("e", 1)],
        2: [("d", 3)],
        3: [("b", 2), ("c", 0), ("c", 1)],
    },
    initial=2,
)


def _node_of(product, state):
    return next(n for n in range(product.num_nodes) if product.sys_states[product.node_sys[n]][0] == state)


@pytest.mark.parametrize(
    "fairness, pruned",
    [
        (Fairness.NONE, set()),
        (Fairness.WEAK, set()),
        (Fairness.STRONG_LOCAL, {0, 3}),  # a (at 0) and c (at 3)... c is engaged: only 0
        (Fairness.STRONG_GLOBAL, {0, 2, 3}),
    ],
)
def test_prune_on_figure_6_scc(fairness, pruned):
    product, cond = build(FIG6, fairness)
    _expand_all(product)
    scc = {_node_of(product, s) for s in (0, 2, 3)}
    removed = {product.sys_states[product.node_sys[n]][0] for n in cond.prune(_sub(product, scc))}
    if fairness is Fairness.STRONG_LOCAL:
        pruned = {0}  # c is engaged inside {0, 2, 3} (3 -c-> 0); a is not
    assert removed == pruned


def test_strong_local_redecomposes_figure_6():
    labelled = ExplicitLts(dict(FIG6.transitions), initial=2, labels={1: ["s1"]})
    product, cond = build(labelled, Fairness.STRONG_LOCAL, G(F(atom("s1"))))
    stats = SearchStatistics()
    assert find_fair_subgraph(product, cond, stats) is None
    # 000 section 3.2 walk-through: 0 is pruned, then 3; 2 is left a trivial subgraph
    assert stats.pruned == 2
    assert stats.subgraphs >= 2  # the SCC, then {2, 3} after pruning 0
    product, cond = build(labelled, Fairness.WEAK, G(F(atom("s1"))))
    assert find_fair_subgraph(product, cond) is not None


def test_stutter_loop_for_deadlock():
    lts = ExplicitLts({0: [("go", 1)], 1: []})
    product, _cond = build(lts)
    _expand_all(product)
    n1 = _node_of(product, 1)
    (target, k, _acc), = product.edges(n1)
    assert target == n1 and product.steps[k] is STUTTER_STEP or product.steps[k] == STUTTER_STEP


def test_weak_fairness_needs_every_state_in_loop():
    # 0 -b-> 1 -b-> 0 and 0 -c-> 0; a enabled at 0 and 1 only via 0 -a-> 2 (dead end
    # where only 'z' loops). A weak-fair loop avoiding a must leave 0/1 sometimes... it
    # can't: a is enabled at 0 and 1, so only the loop at 2 is weak fair.
    lts = ExplicitLts({0: [("a", 2), ("b", 1), ("c", 0)], 1: [("a", 2), ("b", 0)], 2: [("z", 2)]})
    lasso = feasible(lts, Fairness.WEAK)
    assert lasso is not None
    product, cond = build(lts, Fairness.WEAK)
    lasso = find_fair_lasso(product, cond)
    states = {product.sys_states[product.node_sys[u]][0] for u, _k, _v in lasso.loop}
    assert states == {2}


def test_lasso_loop_covers_strong_global_steps():
    lts = ExplicitLts({0: [("a", 0), ("a", 1)], 1: [("b", 0)]})
    product, cond = build(lts, Fairness.STRONG_GLOBAL, G(F(ev("b"))) if False else None)
    lasso = find_fair_lasso(product, cond)
    taken = {(product.node_sys[u], k, product.node_sys[v]) for u, k, v in lasso.loop}
    assert len(taken) == 3  # 0 -a-> 0, 0 -a-> 1, 1 -b-> 0
    assert lasso.loop[0][0] == lasso.loop[-1][2]
    assert not lasso.prefix


def test_annotation_f_makes_terminating_runs_unfair():
    lts = ExplicitLts({0: [("tick", 0), ("stop", 1)], 1: []})
    assert feasible(lts, Fairness.NONE, {"tick": FairnessMark.F}) is not None  # tick forever
    lasso_prop = violated(lts, F(ev("stop")), Fairness.NONE, {"tick": FairnessMark.F})
    assert lasso_prop  # the tick loop avoids stop
    only_stop = ExplicitLts({0: [("stop", 1)], 1: []})
    assert feasible(only_stop, Fairness.NONE, {"tick": FairnessMark.F}) is None


def test_tau_counts_as_engaged():
    lts = ExplicitLts({0: [("t", 0, (0,), True), ("a", 1, (0,))], 1: [("z", 1, (0,))]}, labels={1: ["done"]})
    # without the tau rule, the tau self-loop would be unfair under weak fairness
    # because a is always enabled; a is still required, so F done holds
    assert not violated(lts, F(atom("done")), Fairness.WEAK)
    only_tau = ExplicitLts({0: [("t", 0, (0,), True)]})
    assert feasible(only_tau, Fairness.STRONG_LOCAL) is not None


def test_limits_raise():
    lts = ExplicitLts({i: [("a", i + 1)] for i in range(100)})
    from bridge.automata.buchi import universal_buchi
    from bridge.fairness.conditions import make_condition
    from tests.fairness.explicit import letters_for

    sl, el = letters_for(lts, ())
    product = Product(lts, universal_buchi(), sl, el, max_states=10)
    with pytest.raises(LimitReached):
        find_fair_lasso(product, make_condition(product, Fairness.NONE))


def test_witness_names_actions():
    lts = ExplicitLts({0: [("a", 0, (0,)), ("b", 0, (1,))]})
    product, cond = build(lts, Fairness.WEAK)
    lasso = find_fair_lasso(product, cond)
    w = cond.witness(lasso.loop)
    assert w.fairness == "weak"
    assert w.enabled_everywhere == ("a", "b") and w.engaged == ("a", "b")
    product, cond = build(lts, Fairness.PROCESS_WEAK)
    w = cond.witness(find_fair_lasso(product, cond).loop)
    assert w.engaged == ("process 0", "process 1")


@pytest.mark.parametrize("rounds", [0, 16])
@pytest.mark.parametrize("fairness", list(Fairness))
def test_lasso_is_fair_with_and_without_refinement(monkeypatch, rounds, fairness):
    """The refined loop and the cover-everything fallback both give fair lassos."""
    import bridge.fairness.emptiness as emptiness
    from bridge.automata.buchi import universal_buchi
    from tests.fairness.oracle import check_lasso

    monkeypatch.setattr(emptiness, "REFINEMENT_ROUNDS", rounds)
    lts = ExplicitLts(
        {
            0: [("a", 1, (0,)), ("b", 2, (1,)), ("c", 0, (1,))],
            1: [("b", 0, (1,)), ("a", 3, (0,))],
            2: [("a", 0, (0,)), ("c", 3, (1,))],
            3: [("d", 0, (0,)), ("c", 2, (1,))],
        }
    )
    product, cond = build(lts, fairness)
    lasso = find_fair_lasso(product, cond)
    assert lasso is not None
    run = [(product.sys_states[product.node_sys[lasso.initial]][0], product.node_q[lasso.initial])]
    actions = []
    for _u, k, v in lasso.prefix + lasso.loop:
        run.append((product.sys_states[product.node_sys[v]][0], product.node_q[v]))
        step = product.steps[k]
        actions.append((step.action, step.processes))
    check_lasso(lts, universal_buchi(), lambda s: 0, lambda e: 0, run, actions, len(lasso.prefix), fairness)
    if rounds == 0 and cond.needs_all_states:
        # The fallback covers the whole fair subgraph (a part of the product when it
        # was reported early, before its component was complete).
        assert len({u for u, _k, _v in lasso.loop}) == lasso.subgraph_size
