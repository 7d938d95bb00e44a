"""Never claims: our parser of SPIN's claims agrees with Spot on random formulas, and
the claims we write from Spot are read back to the same language."""

from __future__ import annotations

import importlib

import pytest

from bridge.automata.never import (
    NeverClaimError,
    never_claim_for,
    parse_never_claim,
    to_hoa,
)
from bridge.backends.spin.run import run_limited

spot = importlib.import_module("spot")


def _spin_claim(formula_spin: str) -> str | None:
    done = run_limited(["spin", "-f", formula_spin], "/tmp", timeout=10, memory_mb=1024)
    if done.timed_out or done.returncode != 0:
        return None
    return done.stdout


def _random_formulas(count: int, seed: int) -> list:
    gen = spot.randltl(["p", "q", "r"], seed=seed, tree_size=(4, 12),
                       ltl_priorities="X=0,W=0,M=0,R=1,xor=0,equiv=1")
    out = []
    for f in gen:
        out.append(f)
        if len(out) == count:
            break
    return out


@pytest.mark.spin
def test_parsed_spin_claims_are_language_equivalent_to_spot() -> None:
    checked = 0
    for f in _random_formulas(30, seed=5):
        negated = spot.formula.Not(f)
        claim = _spin_claim(negated.to_str("spin"))
        if claim is None:
            continue  # spin -f gave up or timed out on this one
        parsed = parse_never_claim(claim)
        ours = spot.automaton(to_hoa(parsed.automaton))
        assert spot.are_equivalent(ours, negated), f"{f}\n{claim}"
        checked += 1
    assert checked >= 20


def test_claims_written_from_spot_read_back() -> None:
    for text in ["G(p -> F q)", "(GF en_1 -> GF ex_1) & (FG en_2 -> GF ex_2) -> GF p_0",
                 "p U (q & X r)", "FG p"]:
        claim, states, edges = never_claim_for(text)
        parsed = parse_never_claim(claim)
        assert parsed.automaton.num_states == states
        ours = spot.automaton(to_hoa(parsed.automaton))
        assert spot.are_equivalent(ours, spot.formula(f"!({text})"))
        assert edges >= states - 1


def test_accept_all_and_assert_shortcut() -> None:
    claim = """never { /* !(p) */
accept_init: T0_init:
    do
    :: atomic { ((p)) -> assert(!((p))) }
    od;
accept_all:
    skip
}"""
    parsed = parse_never_claim(claim)
    assert parsed.labels[0] == "accept_init"
    assert parsed.accepting == (True, True)
    aut = spot.automaton(to_hoa(parsed.automaton))
    # accepts: p at the first position, then anything (the claim of !(!p) = p)
    assert spot.are_equivalent(aut, spot.formula("p"))


def test_bad_claims_are_rejected() -> None:
    with pytest.raises(NeverClaimError):
        parse_never_claim("proctype P() { skip }")
    with pytest.raises(NeverClaimError):
        parse_never_claim("never { T0_init: if :: (p) -> goto nowhere fi; }")
