"""SPIN on the strong global premise gives the native verdict (paper 000 Def. 4).

The premise is built from the explicit state graph (``compare.explicit_graph_for``) and
checked by pan with the never claim Spot builds (SPIN's own translator does not finish
on these formulas). The native side is ``check_ltl`` with ``Fairness.STRONG_GLOBAL``.
Paper 000 Fig. 4(a) and 4(b), and a two-process array model, are cases where strong
global fairness changes the verdict: they hold under strong global fairness and are
violated under strong local fairness, by both engines.
"""

from __future__ import annotations

import dataclasses

import pytest

from bridge.automata.never import never_claim_for
from bridge.backends.spin.emit import emit_promela
from bridge.backends.spin.run import run_spin
from bridge.compare import CompareOptions, compare, explicit_graph_for
from bridge.fairness.check import LtlOptions, check_ltl
from bridge.frontends.csp import load_csp
from bridge.ir import Fairness, Outcome, TransitionSystem
from tests.differential._spin_models import ALL

pytestmark = pytest.mark.spin

FIG4A = """\
var s = 0;
P() = [s == 0] a{s = 1} -> P() [] [s == 0] b{s = 2} -> P()
   [] [s == 1] b{s = 0} -> P() [] [s == 2] a{s = 0} -> P();
#define state2 s == 2;
#assert P() |= []<> state2;
"""

FIG4B = """\
P() = a -> P() [] a -> Q();
Q() = b -> P();
#assert P() |= []<> b;
"""

ARRAY = """\
var a[2] = [0, 0];
P(i) = [a[i] == 0] set.i{a[i] = 1} -> P(i) [] [a[i] == 1] clr.i{a[i] = 0} -> P(i);
System = P(0) ||| P(1);
#define both a[0] == 1 && a[1] == 1;
#assert System |= []<> both;
"""

# Two bottom SCCs ({1, 3} and {2}) and a transient initial state: a strongly globally
# fair run may end in {2}, so []<> one is violated; it leaves state 0 for good.
TWO_BOTTOMS = """\
var x = 0;
P() = [x == 0] go1{x = 1} -> P() [] [x == 0] go2{x = 2} -> P()
   [] [x == 1] l1{x = 3} -> P() [] [x == 3] r1{x = 1} -> P() [] [x == 2] l2 -> P();
#define one x == 1;
#define zero x == 0;
#assert P() |= []<> one;
#assert P() |= <>[] !zero;
#assert P() |= []<> zero;
"""

CSP = {"fig4a": FIG4A, "fig4b": FIG4B, "array": ARRAY, "bottoms": TWO_BOTTOMS}

# Promela (a single layout, locals, intermediate locations): x = 2 deadlocks.
PROMELA = """\
byte x;
active proctype A() {
  byte y;
  do
  :: x == 0 -> y = 1; x = 1
  :: x == 1 -> y = 0; x = 0
  :: x == 0 -> x = 2
  od
}
ltl p1 { []<> (x == 2) }
ltl p2 { []<> (A[0]:y == 1) }
"""


def _system(name: str) -> TransitionSystem:
    if name in CSP:
        return load_csp(f"{name}.csp", CSP[name]).systems[0]
    if name == "promela":
        from bridge.frontends.promela import load_promela

        return load_promela("strong_global.pml", PROMELA).systems[0]
    return ALL[name]()


def _spin_strong_global(system: TransitionSystem, number: int, form: str) -> Outcome:
    prop = system.properties[number - 1]
    model = emit_promela(system, "premise", Fairness.STRONG_GLOBAL, prop, ltl_blocks=False,
                         explicit_graph=explicit_graph_for(system), strong_global_form=form)
    emitted = model.properties[0]
    claim, _, _ = never_claim_for(emitted.spot_formula or "")
    options = dataclasses.replace(model.spin_options(emitted, timeout=60),
                                  never_claim=claim, ltl=None)
    result = run_spin(model.text, options)
    assert not result.timed_out and (result.complete or result.errors), model.text
    violated = result.errors > 0
    if emitted.negated:
        violated = not violated
    return Outcome.VIOLATED if violated else Outcome.HOLDS


def _native(system: TransitionSystem, number: int, fairness: Fairness) -> Outcome:
    prop = system.properties[number - 1]
    return check_ltl(system, prop, LtlOptions(fairness=fairness, timeout=60)).outcome


CASES = [
    # (model, property number)
    ("fig4a", 1),
    ("fig4b", 1),
    ("array", 1),
    ("bottoms", 1),
    ("bottoms", 2),
    ("bottoms", 3),
    ("fig2a", 1),
    ("fig3", 1),
    ("once", 1),
    ("once", 2),
    ("starving", 1),
]
# barrier has 12 source states: Spot's translation of the per-step form's 12 Streett
# pairs does not finish in minutes; the bottom-scc form checks it in about a second.
# The Promela model's 7 pairs take Spot about 15 s: bottom-scc only here.
BOTTOM_ONLY = [("barrier", 1), ("barrier", 2), ("promela", 1), ("promela", 2)]


@pytest.mark.parametrize(("name", "number"), CASES)
@pytest.mark.parametrize("form", ["per-step", "bottom-scc"])
def test_spin_strong_global_premise_agrees_with_native(name: str, number: int,
                                                       form: str) -> None:
    system = _system(name)
    assert _spin_strong_global(system, number, form) is _native(
        system, number, Fairness.STRONG_GLOBAL)


@pytest.mark.parametrize(("name", "number"), BOTTOM_ONLY)
def test_bottom_scc_form_scales_past_the_per_step_form(name: str, number: int) -> None:
    system = _system(name)
    assert _spin_strong_global(system, number, "bottom-scc") is _native(
        system, number, Fairness.STRONG_GLOBAL)


def test_violations_are_found_under_strong_global() -> None:
    system = _system("bottoms")
    assert _native(system, 1, Fairness.STRONG_GLOBAL) is Outcome.VIOLATED
    assert _native(system, 3, Fairness.STRONG_GLOBAL) is Outcome.VIOLATED
    for form in ("per-step", "bottom-scc"):
        assert _spin_strong_global(system, 1, form) is Outcome.VIOLATED
        assert _spin_strong_global(system, 2, form) is Outcome.HOLDS


@pytest.mark.parametrize("name", ["fig4a", "fig4b", "array"])
def test_strong_global_changes_the_verdict(name: str) -> None:
    system = _system(name)
    assert _native(system, 1, Fairness.STRONG_LOCAL) is Outcome.VIOLATED
    assert _native(system, 1, Fairness.STRONG_GLOBAL) is Outcome.HOLDS
    for form in ("per-step", "bottom-scc"):
        assert _spin_strong_global(system, 1, form) is Outcome.HOLDS


def test_compare_rows_agree_under_strong_global() -> None:
    system = _system("fig4b")
    comparison = compare(system, system.properties[0], CompareOptions(
        fairness=Fairness.STRONG_GLOBAL, engines=("native", "spin-premise-spot"), timeout=60))
    verdicts = {r.engine: r.verdict for r in comparison.rows}
    assert verdicts == {"native": "holds", "spin-premise-spot": "holds"}
    assert not comparison.disagreement
