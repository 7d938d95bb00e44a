"""The native verdict (no fairness) equals Spot's own emptiness check (issue 4, item 5c).

For random small labelled transition systems (hypothesis) and random LTL formulas
(``spot.randltl`` over two state atoms ``a``, ``b`` and one event atom ``ev``, which
holds on steps whose event is ``x``), the system is written as a Spot ``twa_graph``
(one edge per transition labelled with the full valuation it produces: labels of the
target state and the step's event; a pseudo-initial edge for ``init``; deadlocks
stutter), multiplied with ``spot.translate(!phi)`` by ``spot.product`` and tested with
``is_empty()``. This checks the AP binding, the product convention, the automaton view
and the SCC search against code we did not write.
"""

from __future__ import annotations

import importlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.ir.property import Fairness, Ltl, LtlBinary, LtlConst, LtlUnary
from tests.fairness.explicit import ExplicitLts, atom, ev, violated

spot = importlib.import_module("spot")

FORMULAS = [
    str(f)
    for f in spot.randltl(["a", "b", "ev"], 120, seed=4, tree_size=14, ltl_priorities="M=0,xor=0")
] + ["FG a", "GF ev", "G(a -> F ev)", "a U b", "X X !a", "G(ev -> X b)", "F(ev & a)"]


def to_ir(f) -> Ltl:
    """Return the IR formula of Spot formula ``f`` (iteratively small: recursion is
    fine for these tree sizes)."""
    k = f.kind()
    if k == spot.op_tt:
        return LtlConst(True)
    if k == spot.op_ff:
        return LtlConst(False)
    if k == spot.op_ap:
        name = f.ap_name()
        return ev("x") if name == "ev" else atom(name)
    if k == spot.op_Not:
        return LtlUnary("!", to_ir(f[0]))
    unary = {spot.op_X: "X", spot.op_F: "F", spot.op_G: "G"}
    if k in unary:
        return LtlUnary(unary[k], to_ir(f[0]))
    binary = {spot.op_U: "U", spot.op_R: "R", spot.op_W: "W", spot.op_Implies: "->", spot.op_Equiv: "<->"}
    if k in binary:
        return LtlBinary(binary[k], to_ir(f[0]), to_ir(f[1]))
    nary = {spot.op_And: "&&", spot.op_Or: "||"}
    if k in nary:
        out = to_ir(f[0])
        for i in range(1, f.size()):
            out = LtlBinary(nary[k], out, to_ir(f[i]))
        return out
    raise AssertionError(f"unexpected operator in {f}")


def spot_violated(lts: ExplicitLts, text: str) -> bool:
    """Return True if Spot finds a run of ``lts`` violating ``text``."""
    neg = spot.translate(spot.formula.Not(spot.formula(text)), "TGBA")
    bdict = neg.get_dict()
    sysaut = spot.make_twa_graph(bdict)
    aps = {name: sysaut.register_ap(name) for name in ("a", "b", "ev")}

    def minterm(state: int, event: str | None) -> object:
        labels = set(lts.labels.get(state, ()))
        parts = []
        for name in ("a", "b"):
            parts.append(name if name in labels else f"!{name}")
        parts.append("ev" if event == "x" else "!ev")
        return spot.formula_to_bdd(spot.formula(" & ".join(parts)), bdict, sysaut)

    assert aps
    states = sorted(lts.states)
    index = {s: i + 1 for i, s in enumerate(states)}
    sysaut.new_states(len(states) + 1)
    sysaut.set_init_state(0)
    sysaut.set_acceptance(0, spot.acc_code("t"))
    sysaut.new_edge(0, index[lts.initial], minterm(lts.initial, "init"))
    for s in states:
        steps = lts.steps_of(s)
        if not steps:
            sysaut.new_edge(index[s], index[s], minterm(s, None))
        for step, t in steps:
            sysaut.new_edge(index[s], index[t], minterm(t, step.event))
    return not spot.product(sysaut, neg).is_empty()


@st.composite
def lts_strategy(draw) -> ExplicitLts:
    n = draw(st.integers(1, 5))
    transitions = {}
    for s in range(n):
        out = []
        for _ in range(draw(st.integers(0, 3))):
            out.append((draw(st.sampled_from(["x", "y"])), draw(st.integers(0, n - 1))))
        transitions[s] = out
    labels = {s: draw(st.sets(st.sampled_from(["a", "b"]))) for s in range(n)}
    return ExplicitLts(transitions, 0, labels)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lts_strategy(), st.sampled_from(FORMULAS))
def test_native_verdict_equals_spot(lts, text):
    formula = to_ir(spot.formula(text))
    assert violated(lts, formula, Fairness.NONE) == spot_violated(lts, text)


def test_spot_check_is_not_vacuous():
    lts = ExplicitLts({0: [("x", 1)], 1: [("y", 1)]}, labels={1: ["a"]})
    assert spot_violated(lts, "G a")  # a is false in state 0
    assert not spot_violated(lts, "F G a")
    assert spot_violated(lts, "G F ev")  # x happens once
    assert not spot_violated(lts, "X ev")  # the second letter is (L(s1), x)
    assert spot_violated(lts, "ev")  # the first letter carries init
