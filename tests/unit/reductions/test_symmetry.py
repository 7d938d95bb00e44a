"""Symmetry reduction (bridge/reductions/symmetry.py): detection verified on the IR,
refusals with reasons, quotient sizes, and lassos mapped back to concrete runs."""

from __future__ import annotations

import dataclasses
import importlib

import pytest

from bridge.diagnostics import ConfigurationError
from bridge.ir import Const, Fairness, Instance, LtlEvent, LtlState, LtlUnary
from bridge.reductions.symmetry import SymmetryReduction, detect_symmetry
from bridge.semantics.statespace import build_state_space
from tests.irbuild import G, L, add, assign, edge, eq, ev, int_var, ix, op, process, system
from tests.unit.reductions.fairtools import check, reachable, replay
from tests.unit.reductions.symmodels import count_atom, node_family

RULES = [("me", 0, "me", 1, "nb", 2), ("nb", 2, "nb", 0, "x", 1), ("me", 1, "me", 0, "me", 0)]


def FG(atom):
    return LtlUnary("F", LtlUnary("G", atom))


@pytest.mark.parametrize("ring,group", [(False, "full"), (True, "rotation"),
                                        ("undirected", "dihedral")])
def test_group_detected_and_verified(ring, group):
    ts = node_family(4, RULES, ring)
    spec = detect_symmetry(ts, FG(count_atom(4, 1, 1)), Fairness.STRONG_GLOBAL)
    assert [f.group for f in spec.families] == [group]
    assert spec.families[0].arrays == ("a",)


@pytest.mark.parametrize("ring", [False, True, "undirected"])
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
    # x counts up without bound: a[x] may be any cell, no position's block holds it
    node = process(
        "Node", [edge(0, 0, effect=[assign(ix("a", G("x")), 1), assign("x", add(G("x"), 1))])],
        parameters=["i"],
    )
    insts = [Instance("Node", (Const(k),), f"Node({k})") for k in range(3)]
    ts = system([node], globals_=[int_var("a", 0, length=3), int_var("x", 0)], instances=insts)
    with pytest.raises(ConfigurationError, match="non-constant expression whose values"):
        detect_symmetry(ts, FG(LtlState(eq(G("x"), 0), "x==0")), Fairness.NONE)


def _colour_ring(n: int, colours: int, colour_values: int):
    """Nodes of a directed ring, C = ``colours`` bits per node in ``bit[n * C]``; node i
    flips its bit for the colour of its right neighbour, whose colour it may set to any
    of ``colour_values`` values (``colour_values > colours`` lets ``bit[i*C + color[j]]``
    leave node i's block of bits)."""
    i = L("i")
    j = op("mod", add(i, 1), n)
    cell = ix("bit", add(op("*", i, colours), ix("color", j)))
    edges = [edge(0, 0, effect=[assign(cell, op("-", 1, cell))], event=ev("flip", i, j))]
    for k in range(colour_values):
        edges.append(edge(0, 0, effect=[assign(ix("color", j), k)], event=ev("recolor", i, j, k)))
    node = process("Node", edges, parameters=["i"])
    insts = [Instance("Node", (Const(k),), f"Node({k})") for k in range(n)]
    globals_ = [int_var("bit", 0, length=n * colours), int_var("color", 0, length=n)]
    return system([node], globals_=globals_, instances=insts)


def test_strided_array_and_data_event_components_are_proved():
    # bit[i*C + color[j]] stays in node i's block because color only holds 0..C-1 (the
    # interval analysis proves it); the colour k of recolor.i.j.k is data, not a node
    ts = _colour_ring(3, 2, 2)
    ones = LtlState(eq(add(add(ix("color", 0), ix("color", 1)), ix("color", 2)), 0), "sum color == 0")
    spec = detect_symmetry(ts, FG(ones), Fairness.STRONG_GLOBAL)
    fam = spec.families[0]
    assert fam.group == "rotation"
    assert dict(zip(fam.arrays, fam.strides, strict=True)) == {"bit": 2, "color": 1}
    assert dict(fam.event_slots or ()) == {"flip": (0, 1), "recolor": (0, 1)}
    full = build_state_space(ts)
    red = SymmetryReduction(build_state_space(ts), ts, spec)
    assert len(reachable(red)) * 2 < len(reachable(full))
    for fairness in (Fairness.NONE, Fairness.STRONG_GLOBAL):
        expected, got = check(full, FG(ones), fairness), check(red, FG(ones), fairness)
        assert expected.violated == got.violated


def test_index_that_may_leave_its_block_is_refused():
    ts = _colour_ring(3, 2, 3)  # colour 2: bit[i*2 + 2] is the next node's first bit
    with pytest.raises(ConfigurationError, match="may leave one position's block"):
        detect_symmetry(ts, None, Fairness.NONE)


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


def test_reflections_shrink_an_undirected_ring_further_than_rotations():
    # the dihedral quotient identifies mirror images that no rotation relates
    ts = node_family(4, RULES, "undirected")
    spec = detect_symmetry(ts, None, Fairness.NONE)
    assert spec.families[0].group == "dihedral"
    rotations = dataclasses.replace(spec, families=(
        dataclasses.replace(spec.families[0], group="rotation"),))
    dihedral = len(reachable(SymmetryReduction(build_state_space(ts), ts, spec)))
    rotation = len(reachable(SymmetryReduction(build_state_space(ts), ts, rotations)))
    assert dihedral < rotation < len(reachable(build_state_space(ts)))


@pytest.mark.parametrize("ring", [False, True, "undirected"])
def test_representative_is_canonical_and_least_in_a_ring(ring):
    from bridge.reductions.symmetry import group_elements

    ts = node_family(4, RULES, ring)
    spec = detect_symmetry(ts, None, Fairness.NONE)
    red = SymmetryReduction(build_state_space(ts), ts, spec)
    fam = spec.families[0]
    elements = (group_elements(4, fam.group) if fam.group != "full"
                else list(__import__("itertools").permutations(range(4))))
    for state in sorted(reachable(build_state_space(ts)))[:60]:
        rep, perms = red.canonical(state)
        assert red.representative(state) == rep
        assert red.apply(rep, perms) == state  # the permutation is kept for lassos
        orbit = {red.apply(state, [g]) for g in elements}
        assert rep in orbit and {red.representative(s) for s in orbit} == {rep}
        if fam.group != "full":
            assert rep == min(orbit)


def _leader_in_state(n: int) -> str:
    """TC_R with the leader chosen by Init (any node) instead of fixed at node 0."""
    import re

    text = (CASES / "tc_r" / f"tc_r_{n}.csp").read_text()
    body = text[text.index("#define N"):]
    node = """Node(i) = [leader[(i + 1)%N] == 1 && label[i] == label[(i + 1)%N]]
        rule1.i.(i + 1)%N{token[i] = 0; token[(i + 1)%N] = 1; label[(i + 1)%N] = 1 - label[i];} -> Node(i)
    [] [leader[(i + 1)%N] == 0 && label[i] != label[(i + 1)%N]]
        rule2.i.(i + 1)%N{token[i] = 0; token[(i + 1)%N] = 1; label[(i + 1)%N] = label[i];} -> Node(i)
    [] [(leader[(i + 1)%N] == 1 && label[i] != label[(i + 1)%N]) || (leader[(i + 1)%N] == 0 && label[i] == label[(i + 1)%N])]
        idle.i.(i + 1)%N -> Node(i);
"""
    body = re.sub(r"Node\(i\) = .*?-> Node\(i\);\n", lambda _m: node, body, count=1, flags=re.S)
    body = body.replace("var token[N]; var label[N];", "var token[N]; var label[N]; var leader[N];")
    pick = "PickLeader() = " + "\n    [] ".join(
        f"pick.{k}{{leader[{k}] = 1;}} -> Skip" for k in range(n)) + ";\n"
    return body.replace("Init() = ", pick + "Init() = PickLeader(); ")


@pytest.mark.parametrize("n", [3, 4])
def test_tc_r_with_the_leader_in_the_state_reduces_to_tc_r(n):
    # 001 Table 1 reduces token circulation by a factor near N: the N rotations of a
    # ring whose leader's position is state. tc_r_<N>.csp fixes the leader at node 0,
    # which is that quotient already: the leader-in-state model has N * 4^N
    # configurations after Init, its rotation quotient 4^N, as tc_r_<N>.csp has.
    ts = csp.load_csp("leader.csp", _leader_in_state(n)).systems[0]
    formula = ts.properties[-1].formula
    spec = detect_symmetry(ts, formula, Fairness.STRONG_GLOBAL)
    assert spec.families[0].group == "rotation"
    red = SymmetryReduction(build_state_space(ts), ts, spec)
    full = build_state_space(ts)

    def after_init(space, states):
        return [s for s in states if all(s[slot] in done for slot, done in red._plan(s).done)]

    assert len(after_init(full, reachable(full))) == n * 4 ** n
    assert len(after_init(red, reachable(red))) == 4 ** n
    fixed = csp.load_csp(str(CASES / "tc_r" / f"tc_r_{n}.csp")).systems[0]
    assert check(red, formula, Fairness.STRONG_GLOBAL).violated is False
    assert check(build_state_space(fixed), formula, Fairness.STRONG_GLOBAL).violated is False


def test_concretize_stops_at_its_deadline():
    # issue 13: lifting a long quotient path watches --timeout
    ts = node_family(4, RULES, "undirected")
    formula = FG(count_atom(4, 1, 1))
    spec = detect_symmetry(ts, formula, Fairness.STRONG_GLOBAL)
    red = SymmetryReduction(build_state_space(ts), ts, spec)
    got = check(red, formula, Fairness.STRONG_GLOBAL)
    assert got.violated and got.prefix + got.loop
    path = list(got.prefix) + list(got.loop)
    init, prefix, _loop = red.concretize(path, deadline=float("inf"))
    replay(build_state_space(ts), init, prefix)
    with pytest.raises(TimeoutError):
        red.concretize(path, deadline=0.0)
