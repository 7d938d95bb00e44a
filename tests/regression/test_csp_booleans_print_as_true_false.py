"""Regression: CSP# booleans were shown as 0/1 in valuations and counterexamples; PAT
shows true/false. Promela keeps SPIN's 0/1 for bool."""

from __future__ import annotations

from bridge.commands._common import valuation_text
from bridge.frontends.csp import load_csp
from bridge.frontends.promela import load_promela
from bridge.semantics.statespace import build_state_space

CSP = """var flag = false;
var arr[2] = [true, false];
P() = set{flag = true; arr[1] = true} -> Stop;
#assert P() deadlockfree;
"""


def test_csp_booleans_are_true_false() -> None:
    space = build_state_space(load_csp("b.csp", CSP).systems[0])
    start = space.initial_states()[0]
    (_, after), = space.successors(start)
    before = space.valuation(start)
    assert before["flag"] is False and before["arr[0]"] is True
    assert space.valuation(after)["arr[1]"] is True
    assert valuation_text(list(before.items())).startswith("flag=false, arr[0]=true")


def test_promela_bool_stays_numeric() -> None:
    system = load_promela("b.pml", "bool b = true;\nactive proctype P() { b = false }\n").systems[0]
    space = build_state_space(system)
    value = space.valuation(space.initial_states()[0])["b"]
    assert value == 1 and not isinstance(value, bool)
