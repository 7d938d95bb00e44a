"""Effects (If, While, LocalVar, whole arrays), remote references, _last and Run
arguments in the compiled engine."""

from __future__ import annotations

import pytest

from bridge.diagnostics import ModelRuntimeError, UnsupportedError
from bridge.ir import (
    Builtin,
    ElseGuard,
    If,
    Instance,
    LocalVar,
    RemoteLabel,
    RemoteVar,
    Run,
    SourceLanguage,
    Var,
    While,
)
from bridge.semantics.statespace import build_state_space
from tests.irbuild import (
    UNBOUNDED,
    C,
    G,
    L,
    add,
    assign,
    edge,
    eq,
    int_var,
    ix,
    lt,
    op,
    process,
    system,
)


def step_once(effect, globals_, **kw):
    p = process("P", [edge(0, 1, effect=effect)], n_locations=2, **kw)
    space = build_state_space(system([p], globals_))
    (_, nxt), = space.successors(space.initial_states()[0])
    return space.valuation(nxt)


def test_while_with_block_local_counter_and_if():
    """{ var k = 0; while (k < 3) { if (a[k] == 0) { a[k] = k + 1 } else { hits = hits + 1 }
    k = k + 1 } } on a = [0, 5, 0]: a = [1, 5, 3], hits = 1."""
    k = Var("k", "block")
    body = (
        If(((eq(ix("a", k), 0), (assign(ix("a", k), add(k, 1)),)),),
           (assign("hits", add(G("hits"), 1)),)),
        assign(k, add(k, 1)),
    )
    effect = [LocalVar("k", UNBOUNDED, C(0)), While(lt(k, 3), body)]
    val = step_once(effect, [int_var("a", init=[0, 5, 0], length=3), int_var("hits")])
    assert [val[f"a[{i}]"] for i in range(3)] == [1, 5, 3] and val["hits"] == 1


def test_statements_see_earlier_writes_of_the_same_effect():
    val = step_once([assign("x", 4), assign("y", add(G("x"), 1))], [int_var("x"), int_var("y")])
    assert (val["x"], val["y"]) == (4, 5)


def test_whole_array_assignment():
    val = step_once([assign("bak", G("a"))],
                    [int_var("a", init=[3, 1, 2], length=3), int_var("bak", length=3)])
    assert [val[f"bak[{i}]"] for i in range(3)] == [3, 1, 2]


def test_non_terminating_while_is_a_model_error():
    with pytest.raises(ModelRuntimeError) as info:
        step_once([While(C(True), (assign("x", 1),))], [int_var("x")])
    assert info.value.kind == "loop does not terminate"


def test_remote_label_and_remote_variable():
    """Q's guard reads P's local v through P:v and P@done."""
    p = process("P", [edge(0, 1, effect=[assign(L("v"), 7)])], n_locations=2,
                locals_=[int_var("v")], labels={1: ("done",)}, terminal=[1])
    q = process("Q", [edge(0, 1, guard=RemoteLabel("P", None, "done"),
                           effect=[assign("seen", RemoteVar("P", C(0), "v"))])],
                n_locations=2, terminal=[1])
    space = build_state_space(system([p, q], [int_var("seen")], language=SourceLanguage.PROMELA))
    s = space.initial_states()[0]
    assert [st.processes for st, _ in space.successors(s)] == [(0,)]
    (_, s1), = space.successors(s)
    out = space.successors(s1)
    (_, s2), = [x for x in out if x[0].processes == (1,)]
    assert space.valuation(s2)["seen"] == 7
    # An unknown label is rejected when the model is built.
    bad = process("Q", [edge(0, 1, guard=RemoteLabel("P", None, "nowhere"))], n_locations=2)
    with pytest.raises(UnsupportedError):
        build_state_space(system([p, bad], language=SourceLanguage.PROMELA))


def test_last_is_the_pid_of_the_last_mover():
    a = process("A", [edge(0, 1)], n_locations=2, terminal=[1])
    b = process("B", [edge(0, 1, guard=eq(Builtin("_last"), 0), effect=[assign("ok", 1)])],
                n_locations=2, terminal=[1])
    space = build_state_space(system([a, b], [int_var("ok")], language=SourceLanguage.PROMELA))
    s = space.initial_states()[0]
    # Initially _last == 0, so B may move at once; after A moved, _last is 0 too.
    assert sorted(st.processes for st, _ in space.successors(s)) == [(0,), (1,)]


def test_run_binds_arguments_to_parameters():
    child = process("Child", [edge(0, 1, effect=[assign(ix("out", L("me")), op("*", L("me"), 10))])],
                    n_locations=2, terminal=[1], parameters=["me"], locals_=[int_var("me")])
    init = process("init", [edge(0, 1, effect=[Run("Child", (C(1),)), Run("Child", (C(2),))])],
                   n_locations=2, terminal=[1])
    space = build_state_space(system([init, child], [int_var("out", length=3)],
                                     instances=[Instance("init", (), "init")],
                                     language=SourceLanguage.PROMELA))
    (_, s1), = space.successors(space.initial_states()[0])
    val = space.valuation(s1)
    assert val["Child(1).me"] == 1 and val["Child(2).me"] == 2
    assert space.instance_name(2, s1) == "Child(2)"


def test_too_many_processes_is_a_model_error():
    p = process("Spawner", [edge(0, 0, effect=[Run("Spawner", ())])])
    ts = system([p], instances=[Instance("Spawner", (), "S")], language=SourceLanguage.PROMELA)
    from bridge.ir import Outcome, PropertyKind
    from bridge.semantics.explore import check_property
    from tests.irbuild import prop

    v = check_property(ts, prop(PropertyKind.SAFETY))
    assert v.outcome is Outcome.VIOLATED and v.reason == "too many processes"


def test_else_with_a_rendezvous_sibling_is_deferred():
    """P: c!1 or else -> x = 1. With a receiver the rendezvous happens; without, else."""
    from bridge.ir import BYTE, Channel, Edge, Receive, RecvBind, Send

    c = Var("c", "global")
    p = process("P", [], n_locations=3)
    p = p.__class__("P", (), (), p.locations, (
        Edge(0, 1, None, Send(c, (C(1),)), text="c!1"),
        Edge(0, 2, ElseGuard(), None, (assign("x", 1),), text="else"),
    ), 0)
    r = process("R", [], n_locations=2)
    r = r.__class__("R", (), (), r.locations, (
        Edge(0, 1, None, Receive(c, (RecvBind(None),)), text="c?_"),), 0)
    with_receiver = build_state_space(system([p, r], [int_var("x")], [Channel("c", 0, (BYTE,))]))
    out = with_receiver.successors(with_receiver.initial_states()[0])
    assert [st.processes for st, _ in out] == [(0, 1)]
    alone = build_state_space(system([p], [int_var("x")], [Channel("c", 0, (BYTE,))]))
    (_, n), = alone.successors(alone.initial_states()[0])
    assert alone.valuation(n)["x"] == 1


def test_a_parameter_written_remotely_is_not_folded():
    """P's parameter k is never assigned by P, but Q writes it via P[0]:k: P must read
    the state, not the value it was created with."""
    p = process("P", [edge(0, 1, guard=eq(L("k"), 5), effect=[assign("hit", 1)])],
                n_locations=2, parameters=["k"], locals_=[int_var("k")], terminal=[1])
    q = process("Q", [edge(0, 1, effect=[assign(RemoteVar("P", C(0), "k"), 5)])],
                n_locations=2, terminal=[1])
    ts = system([p, q], [int_var("hit")], instances=[Instance("P", (C(1),), "P"),
                                                     Instance("Q", (), "Q")],
                language=SourceLanguage.PROMELA)
    from bridge.ir import Outcome, PropertyKind
    from bridge.semantics.explore import check_property
    from tests.irbuild import prop

    v = check_property(ts, prop(PropertyKind.REACHES, eq(G("hit"), 1)))
    assert v.outcome is Outcome.HOLDS
