"""CSP barriers in a system that starts processes at run time (issue 12; hand-built IR,
no front-end produces it: only CSP# has barriers, only Promela starts processes): the C
engine against the Python engine (the reference), every state and transition count,
verdict and trace alike, and LTL lassos under every fairness notion.

The Python engine specialises the code of each pid (``layouts._new_layout``): an
initial instance synchronises on the events of its operand of the composition
(``barriers.sync_sets``, by pid) and hides those hidden above it; a process started at
run time is in no operand: its events are steps of its own. Barrier offers are always
combined at run time there (``statespace.post``, ``make_combiner``). Outside Promela no
process ends, so a pid below the initial instances' count always runs its instance."""

from __future__ import annotations

import dataclasses

import pytest

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import (
    Fairness,
    Instance,
    InstanceRef,
    Interleave,
    Parallel,
    PropertyKind,
    Run,
    SourceLanguage,
    TransitionSystem,
)
from bridge.ir.property import LtlBinary, LtlEvent, LtlState, LtlUnary, Property
from tests.conftest import in_ci
from tests.differential.test_engine_c import assert_engines_agree
from tests.differential.test_engine_c_ltl import compare
from tests.irbuild import C, G, L, add, assign, edge, eq, ev, int_var, lt, op, process, prop, system

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")


def _inc(var: str, modulus: int) -> object:
    return assign(var, op("mod", add(G(var), 1), modulus))


def _system(hidden: frozenset[str], atomic: bool,
            language: SourceLanguage = SourceLanguage.CSP) -> TransitionSystem:
    """``(A || (B ||| D)) \\ hidden``; B starts up to two C processes (outside the
    composition: their 'a' and 'c' are steps of their own); A's ``k.i`` is folded
    with its parameter (``k.1``) and meets D's ``k.1``; B's location 2 is atomic when
    ``atomic`` (it offers the barrier 'a' there), and B's 'a' at location 0 a step of an
    atomic part (``Edge.atomic``)."""
    a = process("A", [edge(0, 1, event="a"), edge(1, 0, event="b", effect=[_inc("x", 3)]),
                      edge(1, 0, event="c"), edge(0, 0, event=ev("k", L("i")))],
                parameters=("i",), locals_=[int_var("i")])
    b = process("B", [edge(0, 0, event="a"),
                      edge(0, 1, guard=lt(G("n"), 2), event="s",
                           effect=[Run("C", ()), _inc("n", 5)]),
                      edge(1, 0, event="c"), edge(1, 2, event="t"),
                      edge(2, 0, event="a"), edge(2, 0, event="d", effect=[_inc("y", 4)])],
                atomic=[2] if atomic else [])
    if atomic:  # and B's 'a' at location 0 is a step of an atomic part (Edge.atomic)
        b = dataclasses.replace(b, edges=tuple(
            dataclasses.replace(e, atomic=True) if k == 0 else e for k, e in enumerate(b.edges)))
    c = process("C", [edge(0, 1, event="a"), edge(1, 0, event="c", effect=[_inc("y", 4)])])
    d = process("D", [edge(0, 0, guard=eq(G("x"), 1), event="a"),
                      edge(0, 0, event="e", effect=[_inc("x", 3)]),
                      edge(0, 0, event=ev("k", 1))])
    composition = Parallel(
        (InstanceRef(0), Interleave((InstanceRef(1), InstanceRef(2)))),
        (frozenset({"a", "b", "c", "k.1"}), frozenset({"a", "c", "s", "t", "d", "e", "k.1"})),
        hidden)
    often_y = LtlUnary("G", LtlUnary("F", LtlState(eq(G("y"), 1), "p")))
    never_b = LtlUnary("G", LtlUnary("!", LtlEvent("b")))  # holds when b is hidden
    s_then_a = LtlUnary("G", LtlBinary("->", LtlEvent("s"), LtlUnary("F", LtlEvent("a"))))
    return system(
        [a, b, c, d], globals_=[int_var("x"), int_var("n"), int_var("y")],
        instances=[Instance("A", (C(1),), "A"), Instance("B", (), "B"), Instance("D", (), "D")],
        composition=composition,
        properties=[prop(PropertyKind.DEADLOCK_FREE, name="dl"),
                    Property("often_y", PropertyKind.LTL, "GF p", formula=often_y),
                    Property("s_then_a", PropertyKind.LTL, "G(s -> F a)", formula=s_then_a),
                    Property("never_b", PropertyKind.LTL, "G !b", formula=never_b)],
        language=language, name="dynbar")


@pytest.mark.parametrize(("hidden", "atomic"), [(frozenset(), False), (frozenset({"c"}), False),
                                                (frozenset(), True), (frozenset({"c", "b"}), True)])
def test_barriers_in_a_system_that_starts_processes_agree(hidden: frozenset[str],
                                                          atomic: bool) -> None:
    """Barriers (constant and folded names), hiding above the '||' and an atomic
    location offering a barrier, beside processes started at run time: the C engine
    takes the system (it refused it before) and agrees with the Python engine."""
    ts = _system(hidden, atomic)
    ok, why = driver.supports(ts)
    assert ok, why
    source = driver.generate_model(ts).source
    assert "br_barriers(c, s, slen)" in source and "model_instance" in source
    assert assert_engines_agree(ts) > 0
    assert compare(ts, limit=100000) == 3 * len(driver.LTL_FAIRNESS)  # all in C
    assert Fairness.NONE in driver.LTL_FAIRNESS


def test_barriers_in_a_system_that_starts_processes_with_annotations_agree() -> None:
    """Command-line fairness annotations on a barrier event and on an event of a process
    started at run time: the fair search's units of a joint step (its offers kept for
    its label, ``c->rv``) agree with the Python engine's."""
    ts = _system(frozenset({"c"}), True)
    fair = (api.parse_annotation("sf:a"), api.parse_annotation("wf:d"))
    assert compare(ts, limit=100000, annotations=fair) == 3 * len(driver.LTL_FAIRNESS)
