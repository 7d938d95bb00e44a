"""Library values in processes started at run time, C engine against Python (issue 12).

A dynamic layout moves each instance's segment, so the slots that hold library ids (a
local of a library class) or that may hold one (an int parameter bound to a set, a local
receiving a set from a channel: ``gen_library.mixed_variables``) are found per state
(``PackedLayout.value_slots``, from the segment lists ``segment_library`` and
``segment_mixed``); the driver turns them back into Python's tuples the same way when it
replays a trace. Only hand-built IR reaches this (library classes are CSP#, ``run`` is
Promela), with Promela's process deaths: the youngest instance at its end dies and the
next ``run`` reuses its pid, possibly for another template.

Counts, verdicts and traces (``assert_engines_agree``), and LTL verdicts and lassos under
no fairness, process-weak, weak and strong-global fairness (``compare``) must agree, with
every pair run in C.
"""

from __future__ import annotations

import dataclasses

import pytest

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import (
    Call,
    Channel,
    Expr,
    Fairness,
    Instance,
    LtlState,
    LtlUnary,
    ObjectType,
    Property,
    PropertyKind,
    Receive,
    RecvBind,
    Run,
    Send,
    SourceLanguage,
    TransitionSystem,
    Var,
    Variable,
)
from tests.conftest import in_ci
from tests.differential.test_engine_c import assert_engines_agree
from tests.differential.test_engine_c_ltl import compare
from tests.irbuild import C, G, L, add, assign, edge, eq, int_var, lt, op, process, system

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

SET = ObjectType("Set")
QUEUE = ObjectType("Queue")
NOTIONS = (Fairness.NONE, Fairness.PROCESS_WEAK, Fairness.WEAK, Fairness.STRONG_GLOBAL)


def call(function: str, *args: Expr) -> Call:
    return Call(function, tuple(args))


def set_of(*items: int) -> Expr:
    e: Expr = call("Set.new")
    for x in items:
        e = call("Set.Add=", e, C(x))
    return e


def ltl(name: str, formula) -> Property:  # noqa: ANN001
    return Property(name, PropertyKind.LTL, name, formula=formula)


def invariant(name: str, condition: Expr) -> Property:
    return Property(name, PropertyKind.INVARIANT, name, condition=condition)


def gf(e: Expr) -> LtlUnary:
    return LtlUnary("G", LtlUnary("F", LtlState(e, "p")))


def fg(e: Expr) -> LtlUnary:
    return LtlUnary("F", LtlUnary("G", LtlState(e, "p")))


def locals_and_arguments(queue_init: bool = True) -> TransitionSystem:
    """``init`` starts W(n) twice (each grows a set of its own, a local, and publishes
    it), V(g) (a parameter of class Set) and U(g), U(1) (an int parameter bound to a set
    once and to an int once: a mixed slot); W, V, U end and die, so the pids are reused
    by other templates."""
    w = process("W", [
        edge(0, 1, effect=[assign(L("s"), call("Set.Add=", L("s"), L("p")))] + (
            [assign(L("q"), call("Queue.Enqueue=", L("q"), L("p")))] if queue_init else [])),
        edge(1, 1, guard=lt(call("Set.Count", L("s")), 3),
             effect=[assign(L("s"), call("Set.Add=", L("s"),
                                         add(call("Set.Count", L("s")), 5)))]),
        edge(1, 2, effect=[assign(G("g"), L("s"))]),
    ], locals_=[int_var("p"), Variable("s", SET, call("Set.new")),
                Variable("q", QUEUE, call("Queue.new") if queue_init else None)],
        parameters=["p"], terminal=[2])
    v = process("V", [
        edge(0, 1, guard=eq(L("t"), G("g")), effect=[assign(G("m"), add(G("m"), 1))]),
        edge(0, 1, effect=[assign(L("t"), call("Set.Add=", L("t"), C(9))),
                           assign(G("h"), L("t"))]),
    ], locals_=[Variable("t", SET, None)], parameters=["t"], terminal=[1])
    u = process("U", [
        edge(0, 1, guard=eq(L("u"), G("g")), effect=[assign(G("m"), 7)]),
        edge(0, 1, guard=eq(L("u"), C(1)), effect=[assign(G("m"), 2)]),
    ], locals_=[int_var("u")], parameters=["u"], terminal=[1])
    init = process("init", [
        edge(0, 0, guard=lt(G("n"), 2),
             effect=[Run("W", (G("n"),)), assign(G("n"), add(G("n"), 1))]),
        edge(0, 0, guard=lt(G("k"), 2),
             effect=[Run("V", (G("g"),)), assign(G("k"), add(G("k"), 1))]),
        edge(0, 0, guard=lt(G("k"), 1),
             effect=[Run("U", (G("g"),)), Run("U", (C(1),)), assign(G("k"), add(G("k"), 1))]),
    ])
    return system(
        [init, w, v, u],
        globals_=[Variable("g", SET, call("Set.new")), Variable("h", SET, call("Set.new")),
                  int_var("n", 0), int_var("k", 0), int_var("m", 0)],
        instances=[Instance("init", (), "init")], language=SourceLanguage.PROMELA,
        properties=[invariant("no_h", op("!=", G("h"), set_of(0, 5, 6, 9))),
                    invariant("no_g", op("!=", G("g"), set_of(1, 5, 6))),
                    invariant("m_small", lt(G("m"), 7)),
                    ltl("gf_g", gf(eq(G("g"), set_of(1, 5, 6)))),
                    ltl("fg_h", fg(op("!=", G("h"), set_of(9))))],
        name="dynamic_library")


def messages() -> TransitionSystem:
    """Sets sent to processes started at run time: ``init`` forever sends its set on a
    buffered channel and starts R (or, once an R is gone, S at the freed pid); R
    receives into an int local (a mixed slot of R's segment) and compares it with the
    global set; S keeps a Queue local. The LTL properties need fairness."""
    ch = Channel("ch", 1, (int_var("x").type,))
    r = process("R", [
        edge(0, 1, comm=Receive(Var("ch"), (RecvBind(L("r")),))),
        edge(1, 2, guard=eq(L("r"), G("g")), effect=[assign(G("seen"), 1)]),
        edge(1, 2, guard=op("!=", L("r"), G("g")), effect=[assign(G("seen"), 2)]),
    ], locals_=[int_var("r")], terminal=[2])
    s = process("S", [
        edge(0, 0, guard=lt(call("Queue.Count", L("q")), 2),
             effect=[assign(L("q"), call("Queue.Enqueue=", L("q"), G("seen")))]),
        edge(0, 1, effect=[assign(G("seen"), call("Queue.Count", L("q")))]),
    ], locals_=[Variable("q", QUEUE, call("Queue.new"))], terminal=[1])
    init = process("init", [
        edge(0, 0, comm=Send(Var("ch"), (G("g"),))),
        edge(0, 0, guard=lt(G("started"), 2),
             effect=[Run("R", ()), assign(G("started"), add(G("started"), 1))]),
        edge(0, 0, guard=eq(G("started"), 2),
             effect=[Run("S", ()), assign(G("started"), 3)]),
        edge(0, 0, guard=lt(call("Set.Count", G("g")), 2),
             effect=[assign(G("g"), call("Set.Add=", G("g"), G("started")))]),
    ])
    return system(
        [init, r, s],
        globals_=[Variable("g", SET, call("Set.new")), int_var("seen", 0),
                  int_var("started", 0)],
        channels=[ch], instances=[Instance("init", (), "init")],
        language=SourceLanguage.PROMELA,
        properties=[invariant("not_two", op("!=", G("seen"), C(2))),
                    ltl("gf_seen", gf(eq(G("seen"), C(1)))),
                    ltl("fg_small", fg(lt(call("Set.Count", G("g")), 2)))],
        name="dynamic_library_messages")


def arrays_and_process_channels() -> TransitionSystem:
    """A sends its local array whole on a global channel (Python sends the tuple of
    the cells; B receives it into a global int and compares it with a Queue-built
    sequence) and its local set on a channel of its own, receiving it back into an int
    local (mixed slots of A's segment: the buffer and ``y``)."""
    lc = Channel("lc", 1, (int_var("x").type,))
    gc = Channel("gc", 1, (int_var("x").type,))
    a = process("A", [
        edge(0, 1, comm=Send(Var("gc"), (L("arr"),))),
        edge(1, 2, comm=Send(Var("lc", "local"), (L("s"),))),
        edge(2, 3, comm=Receive(Var("lc", "local"), (RecvBind(L("y")),))),
        edge(3, 4, guard=eq(L("y"), L("s")), effect=[assign(G("ok"), 1)]),
    ], locals_=[int_var("arr", [1, 2], length=2), Variable("s", SET, set_of(3)),
                int_var("y")], channels=[lc], terminal=[4])
    b = process("B", [
        edge(0, 1, comm=Receive(Var("gc"), (RecvBind(G("z")),))),
        edge(1, 2, guard=eq(G("z"), call("Queue.Enqueue=", call("Queue.Enqueue=",
                                                                 call("Queue.new"), C(1)), C(2))),
             effect=[assign(G("ok"), 2)]),
    ], terminal=[2])
    init = process("init", [
        edge(0, 0, guard=lt(G("n"), 2),
             effect=[Run("A", ()), Run("B", ()), assign(G("n"), add(G("n"), 1))])])
    return system(
        [init, a, b], globals_=[int_var("n", 0), int_var("ok", 0), int_var("z", 0)],
        channels=[gc], instances=[Instance("init", (), "init")],
        language=SourceLanguage.PROMELA,
        properties=[invariant("ok1", op("!=", G("ok"), C(1))),
                    invariant("ok2", op("!=", G("ok"), C(2))),
                    ltl("fg_ok", fg(eq(G("ok"), C(2))))],
        name="dynamic_library_arrays")


def with_an_initial_instance() -> TransitionSystem:
    """``locals_and_arguments`` with an instance of W in the initial state (its library
    locals packed from the Python engine's initial state, then dying like the others)."""
    ts = locals_and_arguments()
    return dataclasses.replace(ts, instances=(*ts.instances, Instance("W", (C(4),), "w0")))


MODELS = {"locals_and_arguments": locals_and_arguments, "messages": messages,
          "arrays_and_process_channels": arrays_and_process_channels,
          "with_an_initial_instance": with_an_initial_instance}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_counts_verdicts_and_traces_agree(name: str) -> None:
    ts = MODELS[name]()
    assert driver.supports(ts) == (True, "")
    assert assert_engines_agree(ts, limit=100_000) == 1 + sum(
        p.kind is PropertyKind.INVARIANT for p in ts.properties)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_ltl_agrees_under_fairness(name: str) -> None:
    ts = MODELS[name]()
    ltl_count = sum(p.kind is PropertyKind.LTL for p in ts.properties)
    assert compare(ts, 100_000, notions=NOTIONS) == ltl_count * len(NOTIONS)


def test_auto_runs_in_c() -> None:
    """``--engine auto`` answers in C, with no note of a fallback."""
    ts = locals_and_arguments()
    for prop in ts.properties:
        c = api.check_property(ts, prop, api.CheckOptions(engine="auto"))
        py = api.check_property(ts, prop, api.CheckOptions(engine="python"))
        assert c.outcome == py.outcome, prop.name
        assert not any("Python engine" in n for n in c.notes), c.notes


def test_library_local_without_initial_value_refused_by_name() -> None:
    """Python's cells of such a local hold the int 0 when the process starts, which no
    library id stands for (C's id 0 is the empty Queue): refused by name, and auto
    answers as Python."""
    ts = locals_and_arguments(queue_init=False)
    ok, why = driver.supports(ts)
    assert not ok and "local 'q' of library class Queue without an initial value" in why, why
    prop = ts.properties[0]
    auto = api.check_property(ts, prop, api.CheckOptions(engine="auto"))
    py = api.check_property(ts, prop, api.CheckOptions(engine="python"))
    assert (auto.outcome, auto.statistics.states) == (py.outcome, py.statistics.states)

