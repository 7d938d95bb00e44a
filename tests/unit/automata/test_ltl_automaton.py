"""Unit tests for ``bridge.automata``: AP binding, translation of the negation, and the
frozen automaton view (compiled BDD conditions, acceptance masks)."""

from __future__ import annotations

import importlib

import pytest

from bridge.automata.buchi import (
    Buchi,
    BuchiEdge,
    buchi_from_spot,
    evaluate_condition,
    format_condition,
    universal_buchi,
)
from bridge.automata.ltl import bind_atoms, translate_formula
from bridge.diagnostics import ConfigurationError
from bridge.ir.expr import Const
from bridge.ir.property import LtlBinary, LtlConst, LtlEvent, LtlState, LtlUnary

spot = importlib.import_module("spot")


def st(text: str) -> LtlState:
    return LtlState(Const(True), text)


def test_bind_atoms_numbers_in_order_and_deduplicates():
    f = LtlBinary("U", st("x>1"), LtlBinary("&&", LtlEvent("go"), st("x>1")))
    text, binding = bind_atoms(f)
    assert binding.ap_names == ("p0", "p1")
    assert binding.atoms[0].text == "x>1" and binding.atoms[1].name == "go"
    assert spot.formula(text) == spot.formula("p0 U (p1 & p0)")
    assert binding.describe() == ["p0 = x>1", "p1 = event go"]


def test_state_and_event_atoms_with_same_name_are_different():
    f = LtlBinary("&&", st("go"), LtlEvent("go"))
    _text, binding = bind_atoms(f)
    assert len(binding.atoms) == 2


def test_bind_atoms_is_iterative_on_deep_formulas():
    f = st("p")
    for _ in range(5000):
        f = LtlUnary("X", f)
    text, binding = bind_atoms(f)
    assert text.count("X") == 5000
    assert len(binding.atoms) == 1


def test_unknown_operator_is_rejected():
    with pytest.raises(ConfigurationError, match="unknown LTL operator"):
        bind_atoms(LtlUnary("Y", st("p")))


def test_translate_negation_of_response():
    neg = translate_formula(LtlUnary("G", LtlBinary("->", st("req"), LtlUnary("F", LtlEvent("ack")))))
    b = neg.buchi
    assert neg.kind == "TGBA"
    assert b.num_sets == 1
    # !G(req -> F ack): after a letter with req and no ack, no ack forever is accepting
    req, ack = 1, 2
    # walk: read req (no ack) then loop on "nothing" forever: must reach an accepting loop
    states = {q for q, _ in b.successors(b.initial, req)}
    assert any(acc for q in states for _q2, acc in b.successors(q, 0))
    # a letter with ack never makes an accepting edge out of the "waiting" state
    waiting = [q for q in states if any(acc for _q2, acc in b.successors(q, 0))]
    assert all(acc == 0 for q in waiting for _q2, acc in b.successors(q, ack))


def test_translate_without_negation_and_constants():
    assert translate_formula(LtlConst(True), negate=False).buchi.num_edges == 1
    false_aut = translate_formula(LtlConst(True)).buchi  # !true: no run accepted
    assert false_aut.num_edges == 0


def test_generalized_acceptance_is_kept():
    f = LtlUnary("!", LtlBinary("&&", LtlUnary("G", LtlUnary("F", st("a"))), LtlUnary("G", LtlUnary("F", st("b")))))
    neg = translate_formula(f)  # G F a && G F b
    assert neg.buchi.num_sets == 2 and neg.buchi.all_sets == 0b11
    masks = {acc for out in neg.buchi.edges for e in out for acc in [e.acceptance]}
    assert 0b11 in masks or {0b01, 0b10} <= masks


def test_conditions_evaluate_like_spot():
    aut = spot.translate("(p0 & !p1) U (p2 | G p1)", "TGBA")
    b = buchi_from_spot(aut, ("p0", "p1", "p2"))
    bdict = aut.get_dict()
    for q in range(aut.num_states()):
        for spot_edge, ours in zip(aut.out(q), b.edges[q], strict=True):
            for letter in range(8):
                cube = " & ".join(
                    (f"p{i}" if (letter >> i) & 1 else f"!p{i}") for i in range(3)
                )
                minterm = spot.formula_to_bdd(spot.formula(cube), bdict, aut)
                import buddy

                expected = (spot_edge.cond & minterm) != buddy.bddfalse
                assert evaluate_condition(ours.condition, letter) is expected
    assert "p0" in b.describe()


def test_unbound_ap_is_rejected():
    aut = spot.translate("G F q", "TGBA")
    with pytest.raises(ValueError, match="not bound"):
        buchi_from_spot(aut, ("p0",))


def test_non_buchi_acceptance_is_rejected():
    aut = spot.translate("F G a", "parity", "deterministic")
    if aut.acc().is_generalized_buchi() or aut.acc().is_t():
        pytest.skip("Spot produced a Büchi automaton for this formula")
    with pytest.raises(ValueError, match="generalized Büchi"):
        buchi_from_spot(aut, ("a",))


def test_format_and_universal():
    assert format_condition(True, ()) == "1"
    assert format_condition(False, ()) == "0"
    assert format_condition((0, True, (1, False, True)), ("a", "b")) in ("a | !a & !b", "!a & !b | a")
    u = universal_buchi()
    assert u.successors(0, 0) == ((0, 0),)
    hand = Buchi(1, 0, ((BuchiEdge(0, 0, (0, True, False), 1),),), 1, ("p0",))
    assert hand.successors(0, 1) == ((0, 1),) and hand.successors(0, 0) == ()
