"""Symmetry reduction (bridge/reductions/symmetry.py): detection verified on the IR,
refusals with reasons, quotient sizes, and lassos mapped back to concrete runs."""

from __future__ import annotations

import importlib

import pytest

from bridge.diagnostics import ConfigurationError
from bridge.ir import Const, Fairness, Instance, LtlEvent, LtlState, LtlUnary
from bridge.reductions.symmetry import SymmetryReduction, detect_symmetry
from bridge.semantics.statespace import build_state_space
from tests.irbuild import G, L, assign, edge, eq, int_var, ix, process, system
from tests.unit.reductions.fairtools import check, reachable, replay
from tests.unit.reductions.symmodels import count_atom, node_family

RULES = [("me", 0, "me", 1, "nb", 2), ("nb", 2, "nb", 0, "x", 1), ("me", 1, "me", 0, "me", 0)]


def FG(atom):
    return LtlUnary("F", LtlUnary("G", atom))


@pytest.mark.parametrize("ring,group", [(False, "full"), (True, "rotation")])
def test_group_detected_and_verified(ring, group):
    ts = node_family(4, RULES, ring)
    spec = detect_symmetry(ts, FG(count_atom(4, 1, 1)), Fairness.STRONG_GLOBAL)
    assert [f.group for f in spec.families] == [group]
    assert spec.families[0].arrays == ("a",)


@pytest.mark.parametrize("ring", [False, True])
@pytest.mark.parametrize("fairness", [Fairness.NONE, Fairness.STRONG_GLOBAL])
def test_quotient_is_smaller_and_verdicts_agree(ring, fairness):
    ts = node_family(4, RULES, ring)
    formula = FG(count_atom(4, 1, 1))
    spec = detect_symmetry(ts, formula, fairness)
    full = build_state_space(ts)
    red = SymmetryReduction(build_state_space(ts), ts, spec)
    assert len(reachable(red)) < len(reachable(full))
    expected, got = check(full, formula, fairness), check(red, formula, fairness)
    assert expected.violated == got.violated
    if got.violated:
        init, prefix, loop = red.concretize(got.prefix, got.loop)
        assert loop
        replay(full, init, prefix + loop)
        assert loop[-1][1] == (prefix[-1][1] if prefix else init)  # the loop closes


@pytest.mark.parametrize("fairness", [Fairness.WEAK, Fairness.STRONG_LOCAL, Fairness.PROCESS_WEAK])
def test_refused_under_weak_and_strong_local(fairness):
    ts = node_family(3, RULES, False)
    with pytest.raises(ConfigurationError, match="not applied under"):
        detect_symmetry(ts, FG(count_atom(3, 1, 1)), fairness)


def test_asymmetric_atom_is_refused():
    ts = node_family(3, RULES, False)
    atom = LtlState(eq(ix("a", 0), 1), "a[0]==1")
    with pytest.raises(ConfigurationError, match="not invariant"):
        detect_symmetry(ts, FG(atom), Fairness.NONE)


def test_indexed_event_atom_is_refused():
    ts = node_family(3, RULES, False)
    with pytest.raises(ConfigurationError, match="event atom"):
        detect_symmetry(ts, LtlUnary("F", LtlEvent("r0.0.1")), Fairness.NONE)


def test_distinguished_node_breaks_symmetry():
    # node 0 alone may reset x: no permutation maps its edges onto another node's
    i = L("i")
    body = [edge(0, 0, guard=eq(ix("a", i), 0), effect=[assign(ix("a", i), 1)])]
    special = [edge(0, 0, guard=eq(i, 0), effect=[assign("x", 0)])]
    node = process("Node", body + special, parameters=["i"])
    insts = [Instance("Node", (Const(k),), f"Node({k})") for k in range(3)]
    ts = system([node], globals_=[int_var("a", 0, length=3), int_var("x", 1)], instances=insts)
    with pytest.raises(ConfigurationError, match="no family"):
        detect_symmetry(ts, FG(LtlState(eq(G("x"), 0), "x==0")), Fairness.NONE)


def test_non_constant_index_is_refused():
    i = L("i")
    node = process(
        "Node", [edge(0, 0, effect=[assign(ix("a", G("x")), i)])], parameters=["i"]
    )
    insts = [Instance("Node", (Const(k),), f"Node({k})") for k in range(3)]
    ts = system([node], globals_=[int_var("a", 0, length=3), int_var("x", 0)], instances=insts)
    with pytest.raises(ConfigurationError, match="non-constant"):
        detect_symmetry(ts, FG(LtlState(eq(G("x"), 0), "x==0")), Fairness.NONE)


def test_asymmetric_initial_state_is_refused():
    ts = node_family(3, RULES, False)
    globals_ = (int_var("a", [1, 0, 0], length=3),) + ts.globals[1:]
    ts2 = type(ts)(**{**{f: getattr(ts, f) for f in ts.__dataclass_fields__}, "globals": globals_})
    spec = detect_symmetry(ts2, FG(count_atom(3, 1, 1)), Fairness.NONE)
    with pytest.raises(ConfigurationError, match="initial state"):
        SymmetryReduction(build_state_space(ts2), ts2, spec)


csp = importlib.import_module("bridge.frontends.csp")
CASES = __import__("pathlib").Path(__file__).resolve().parents[3] / "case_studies"


@pytest.mark.parametrize("path,group", [("le_c/le_c_3.csp", "full"), ("le_r/le_r_3.csp", "rotation")])
@pytest.mark.parametrize("fairness", [Fairness.NONE, Fairness.STRONG_GLOBAL])
def test_case_studies_keep_their_verdicts(path, group, fairness):
    ts = csp.load_csp(str(CASES / path)).systems[0]
    prop = ts.properties[-1]
    spec = detect_symmetry(ts, prop.formula, fairness)
    assert spec.families[0].group == group and spec.phases  # Init() is a finite phase
    full = build_state_space(ts)
    red = SymmetryReduction(build_state_space(ts), ts, spec)
    expected, got = check(full, prop.formula, fairness), check(red, prop.formula, fairness)
    assert expected.violated == got.violated
    if not expected.violated:
        assert got.nodes <= expected.nodes
    if got.violated:
        init, prefix, loop = red.concretize(got.prefix, got.loop)
        replay(full, init, prefix + loop)


def test_distinguished_leader_ring_is_refused_with_a_reason():
    ts = csp.load_csp(str(CASES / "tc_r" / "tc_r_3.csp")).systems[0]
    with pytest.raises(ConfigurationError, match="Node"):
        detect_symmetry(ts, ts.properties[-1].formula, Fairness.STRONG_GLOBAL)
