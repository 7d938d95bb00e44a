"""Soundness of the fair SCC search against a brute-force oracle (issue 4, item 5a/5b).

hypothesis builds random small labelled transition systems (up to 6 states, 3 actions,
2 processes, some tau steps and deadlocks), random fairness notions and annotations, and
either no automaton (plain feasibility, paper 000 section 3) or a random 1-2 state
generalized Büchi automaton over one state AP and one event AP. The engine's answer must
equal the oracle's (``tests/fairness/oracle.py``: every strongly connected subgraph of
the product is enumerated and tested against the definitions), and every lasso it returns
is replayed and re-checked by an independent checker.
"""

from __future__ import annotations

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bridge.automata.buchi import Buchi, BuchiEdge, universal_buchi
from bridge.fairness.conditions import make_condition
from bridge.fairness.emptiness import find_fair_lasso
from bridge.fairness.product import Product
from bridge.ir.model import FairnessMark
from bridge.ir.property import Fairness
from tests.fairness.explicit import ExplicitLts, event_units
from tests.fairness.oracle import brute_force_fair_exists, check_lasso

ACTIONS = ("a", "b", "c")


@st.composite
def lts_strategy(draw) -> ExplicitLts:
    n = draw(st.integers(1, 6))
    transitions = {}
    for s in range(n):
        k = draw(st.integers(0, 3))
        out = []
        for _ in range(k):
            action = draw(st.sampled_from(ACTIONS))
            target = draw(st.integers(0, n - 1))
            procs = draw(st.sampled_from([(0,), (1,), (0, 1)]))
            tau = draw(st.booleans()) and draw(st.booleans()) and draw(st.booleans())
            out.append((f"t{s}" if tau else action, target, procs, tau))
        transitions[s] = out
    labels = {s: (["p"] if draw(st.booleans()) else []) for s in range(n)}
    return ExplicitLts(transitions, 0, labels)


# Conditions over letter bits: bit 0 = state atom p, bit 1 = event atom "a".
CONDITIONS = [True, (0, True, False), (0, False, True), (1, True, False), (1, False, True)]


@st.composite
def buchi_strategy(draw) -> Buchi:
    if draw(st.integers(0, 4)) == 0:
        return universal_buchi()
    nq = draw(st.integers(1, 2))
    num_sets = draw(st.integers(0, 2))
    edges = []
    for q in range(nq):
        out = []
        for _ in range(draw(st.integers(1, 3))):
            out.append(
                BuchiEdge(
                    q,
                    draw(st.integers(0, nq - 1)),
                    draw(st.sampled_from(CONDITIONS)),
                    draw(st.integers(0, (1 << num_sets) - 1)),
                )
            )
        edges.append(tuple(out))
    return Buchi(nq, 0, tuple(edges), num_sets, ("p0", "p1"))


marks_strategy = st.dictionaries(
    st.sampled_from(ACTIONS),
    st.sampled_from([FairnessMark.F, FairnessMark.WF, FairnessMark.SF]),
    max_size=2,
)


def _letters(lts: ExplicitLts):
    def state_letter(state) -> int:
        s = state[0] if isinstance(state, tuple) else state
        return 1 if "p" in lts.labels.get(s, ()) else 0

    def event_letter(event) -> int:
        return 2 if event == "a" else 0

    return state_letter, event_letter


def _run(lts, buchi, fairness, marks):
    sl, el = _letters(lts)
    product = Product(lts, buchi, sl, el)
    cond = make_condition(product, fairness, dict(marks) or None, event_units(product))
    return product, find_fair_lasso(product, cond)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lts_strategy(), buchi_strategy(), st.sampled_from(list(Fairness)), marks_strategy)
def test_engine_agrees_with_oracle(lts, buchi, fairness, marks):
    product, lasso = _run(lts, buchi, fairness, marks)
    sl, el = _letters(lts)
    expected = brute_force_fair_exists(lts, buchi, sl, el, fairness, marks or None)
    event(f"{fairness.value}: {'fair loop' if expected else 'none'}")
    assert (lasso is not None) == expected
    if lasso is not None:
        # (b) replay the lasso independently
        edges = lasso.prefix + lasso.loop
        run = [(product.sys_states[product.node_sys[lasso.initial]][0], product.node_q[lasso.initial])]
        actions = []
        for _u, k, v in edges:
            run.append((product.sys_states[product.node_sys[v]][0], product.node_q[v]))
            step = product.steps[k]
            actions.append(("<stutter>", ()) if step.stutter else (step.action, step.processes))
        check_lasso(lts, buchi, sl, el, run, actions, len(lasso.prefix), fairness, marks or None)


def test_oracle_can_fail():
    """The oracle is not vacuous: it answers both ways on hand-checked graphs."""
    lts = ExplicitLts({0: [("a", 1, (0,)), ("b", 0, (0,))], 1: [("c", 1, (1,))]})
    sl, el = _letters(lts)
    u = universal_buchi()
    assert brute_force_fair_exists(lts, u, sl, el, Fairness.STRONG_GLOBAL)
    loop_only_b = ExplicitLts({0: [("a", 0, (0,)), ("b", 0, (1,))]})
    sl, el = _letters(loop_only_b)
    assert brute_force_fair_exists(loop_only_b, u, sl, el, Fairness.WEAK)
    assert brute_force_fair_exists(loop_only_b, u, sl, el, Fairness.NONE, {"a": FairnessMark.F})
    never_a = ExplicitLts({0: [("b", 0, (0,)), ("a", 1, (0,))], 1: []})
    sl, el = _letters(never_a)
    # a loop on b alone is unfair under strong local fairness, but the run that takes
    # a and stops is fair: the deadlock stutters
    assert brute_force_fair_exists(never_a, u, sl, el, Fairness.STRONG_LOCAL)
    only_loop = ExplicitLts({0: [("b", 0, (0,)), ("a", 0, (0,))]})
    sl, el = _letters(only_loop)
    acc_on_b_only = Buchi(1, 0, ((BuchiEdge(0, 0, (1, False, True), 1),),), 1, ("p0", "p1"))
    # the automaton accepts only runs without event a; weak fairness forces a
    assert brute_force_fair_exists(only_loop, acc_on_b_only, sl, el, Fairness.NONE)
    assert not brute_force_fair_exists(only_loop, acc_on_b_only, sl, el, Fairness.WEAK)
