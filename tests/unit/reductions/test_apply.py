"""apply_reductions: wraps only with sound reductions and says why otherwise."""

from __future__ import annotations

from bridge.ir import Fairness, LtlState, LtlUnary, Property, PropertyKind
from bridge.reductions import ReductionOptions, apply_reductions
from bridge.reductions.por import PartialOrderReduction
from bridge.reductions.symmetry import SymmetryReduction
from bridge.semantics.statespace import build_state_space
from tests.irbuild import G, eq
from tests.unit.reductions.symmodels import count_atom, node_family

RULES = [("me", 0, "me", 1, "nb", 2), ("nb", 2, "nb", 0, "x", 1)]


def _prop(formula) -> Property:
    return Property("p", PropertyKind.LTL, "p", formula=formula)


def test_symmetry_and_por_applied_when_sound():
    ts = node_family(3, RULES, ring=False)
    prop = _prop(LtlUnary("F", LtlUnary("G", count_atom(3, 1, 1))))
    space, notes = apply_reductions(build_state_space(ts), ts, prop,
                                    ReductionOptions(por=True, symmetry=True))
    assert isinstance(space, SymmetryReduction)
    assert any(n.startswith("symmetry: 3 instances") for n in notes)
    assert "por: not applied together with symmetry reduction" in notes
    space, notes = apply_reductions(build_state_space(ts), ts, prop, ReductionOptions(por=True))
    assert isinstance(space, PartialOrderReduction)
    assert any(n.startswith("por: partial order reduction applied") for n in notes)


def test_refusals_are_notes_not_errors():
    ts = node_family(3, RULES, ring=False)
    prop = _prop(LtlUnary("F", LtlState(eq(G("x"), 1), "x==1")))
    space, notes = apply_reductions(
        build_state_space(ts), ts, prop,
        ReductionOptions(por=True, symmetry=True, fairness=Fairness.STRONG_LOCAL),
    )
    assert not isinstance(space, PartialOrderReduction | SymmetryReduction)
    assert any("symmetry: not applied" in n for n in notes)
    assert any(n.startswith("por:") and "unsound" in n for n in notes)


def test_weak_fairness_por_needs_full_enabled_sets():
    ts = node_family(3, RULES, ring=True)
    prop = _prop(LtlUnary("F", LtlState(eq(G("x"), 1), "x==1")))
    _space, notes = apply_reductions(build_state_space(ts), ts, prop,
                                     ReductionOptions(por=True, fairness=Fairness.WEAK))
    assert any("enabled_actions" in n for n in notes)
    space, _ = apply_reductions(build_state_space(ts), ts, prop,
                                ReductionOptions(por=True, fairness=Fairness.WEAK,
                                                 full_enabled_sets=True))
    assert isinstance(space, PartialOrderReduction)
