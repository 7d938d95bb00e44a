"""Channels: async FIFO, matching, random receive, peek, sorted send, rendezvous,
channel queries and polls (promela-spin.md section 4; cspsharp.md section 7)."""

from __future__ import annotations

from bridge.ir import (
    BYTE,
    AssertStmt,
    Channel,
    ChanPoll,
    ChanQuery,
    Instance,
    PropertyKind,
    Receive,
    RecvBind,
    RecvMatch,
    Send,
    SourceLanguage,
    Var,
)
from bridge.semantics.explore import check_property, explore
from bridge.semantics.statespace import build_state_space
from tests.irbuild import C, G, edge, eq, int_var, op, process, prop, system


def chan(name="q", capacity=3, fields=2) -> Channel:
    return Channel(name, capacity, tuple(BYTE for _ in range(fields)))


def q() -> Var:
    return Var("q", "global")


def straight(edges_comm, effects=None):
    """A process running the given comms in sequence, location i -> i+1."""
    effects = effects or {}
    edges = []
    for i, comm in enumerate(edges_comm):
        e = edge(i, i + 1, effect=effects.get(i, ()))
        edges.append(e.__class__(e.source, e.target, e.guard, comm, e.effect, e.event, e.label,
                                 e.fairness, e.text, e.span))
    n = len(edges_comm) + 1
    return process("T", edges, n_locations=n, terminal=[n - 1])


def run_single(proc, globals_, channels):
    """Follow the only enabled step until none; return the final valuation."""
    space = build_state_space(system([proc], globals_, channels))
    s = space.initial_states()[0]
    while True:
        out = space.successors(s)
        if not out:
            return space, s
        assert len(out) == 1
        s = out[0][1]


def test_the_reference_example_from_promela_spin_md():
    """The tested example of promela-spin.md section 4, all asserts hold."""
    v, w = G("v"), G("w")
    comms = [
        Send(q(), (C(2), C(5))),
        Send(q(), (C(1), C(7))),
        Send(q(), (C(2), C(9))),
        Receive(q(), (RecvMatch(C(1)), RecvBind(v)), random=True),
        Receive(q(), (RecvMatch(C(2)), RecvBind(w)), peek=True),
        Receive(q(), (RecvMatch(C(2)), RecvMatch(w))),
        Send(q(), (C(2), C(1)), sorted=True),
        Receive(q(), (RecvMatch(C(2)), RecvBind(v))),
        Receive(q(), (RecvBind(None), RecvBind(v))),
    ]
    effects = {
        2: [AssertStmt(ChanQuery("full", q()))],
        3: [AssertStmt(eq(v, 7)), AssertStmt(eq(ChanQuery("len", q()), 2))],
        4: [AssertStmt(eq(w, 5)), AssertStmt(ChanPoll(q(), (RecvMatch(C(2)), RecvMatch(C(5)))))],
        7: [AssertStmt(eq(v, 1))],
        8: [AssertStmt(eq(v, 9)), AssertStmt(ChanQuery("empty", q()))],
    }
    space, final = run_single(straight(comms, effects), [int_var("v"), int_var("w")], [chan()])
    assert space.is_terminal(final)
    assert space.valuation(final)["q"] == ()


def test_send_blocks_when_full_and_receive_when_empty():
    p = straight([Send(q(), (C(1),)), Send(q(), (C(2),)), Receive(q(), (RecvBind(G("v")),))])
    space, final = run_single(p, [int_var("v")], [chan(capacity=1, fields=1)])
    assert space.valuation(final)["q"] == ((1,),)
    assert not space.is_terminal(final)  # blocked on the second send


def test_receive_requires_matching_head():
    p = straight([Send(q(), (C(1),)), Receive(q(), (RecvMatch(C(2)),))])
    space, final = run_single(p, [], [chan(capacity=2, fields=1)])
    assert space.valuation(final)["q"] == ((1,),)
    assert not space.is_terminal(final)


def rendezvous_system(language=SourceLanguage.IR):
    sender = process("S", [edge(0, 1)], n_locations=2, terminal=[1])
    sender = sender.__class__(
        sender.name, (), (), sender.locations,
        (sender.edges[0].__class__(0, 1, None, Send(Var("c", "global"), (C(4),)), (), None, None,
                                   None, "c!4"),),
        0,
    )
    receiver = process("R", [], n_locations=2, terminal=[1])
    receiver = receiver.__class__(
        receiver.name, (), (), receiver.locations,
        (receiver.locations and sender.edges[0].__class__(
            0, 1, None, Receive(Var("c", "global"), (RecvBind(G("x")),)), (), None, None, None,
            "c?x"),),
        0,
    )
    return system([sender, receiver], [int_var("x")], [Channel("c", 0, (BYTE,))],
                  language=language)


def test_rendezvous_is_one_step_of_two_instances():
    space = build_state_space(rendezvous_system())
    out = space.successors(space.initial_states()[0])
    assert len(out) == 1
    step, nxt = out[0]
    assert step.processes == (0, 1)
    assert step.edges == ((0, 0), (1, 0))
    assert space.valuation(nxt)["x"] == 4
    assert space.is_terminal(nxt)
    assert explore(space).states == 2


def test_rendezvous_event_name_in_csp():
    space = build_state_space(rendezvous_system(SourceLanguage.CSP))
    (step, _), = space.successors(space.initial_states()[0])
    assert step.event == "c.4" and step.action == "c.4"


def test_rendezvous_never_pairs_an_instance_with_itself():
    both = process("B", [], n_locations=1)
    e_send = edge(0, 0)
    mk = e_send.__class__
    both = both.__class__(
        "B", (), (), both.locations,
        (mk(0, 0, None, Send(Var("c", "global"), (C(1),)), (), None, None, None, "c!1"),
         mk(0, 0, None, Receive(Var("c", "global"), (RecvBind(None),)), (), None, None, None,
            "c?_")),
        0,
    )
    ts = system([both], [], [Channel("c", 0, (BYTE,))])
    v = check_property(ts, prop(PropertyKind.DEADLOCK_FREE))
    assert v.outcome.value == "violated" and v.trace.steps == ()


def test_local_channels_get_ids_after_global_ones_per_instance():
    """Two instances each with a local buffered channel: ids 2 and 3 (global is 1)."""
    local = Channel("mine", 1, (BYTE,))
    mk = edge(0, 1).__class__
    p = process("P", [], n_locations=3, channels=[local], locals_=[int_var("got")], terminal=[2])
    p = p.__class__(
        "P", (), p.locals, p.locations,
        (mk(0, 1, None, Send(Var("mine", "local"), (C(9),)), (), None, None, None, "mine!9"),
         mk(1, 2, None, Receive(Var("mine", "local"), (RecvBind(Var("got", "local")),)), (),
            None, None, None, "mine?got")),
        0, (local,),
    )
    ts = system([p], [], [chan()], instances=[Instance("P", (), "P0"), Instance("P", (), "P1")])
    space = build_state_space(ts)
    s = space.initial_states()[0]
    val = space.valuation(s)
    assert "P0.mine" in val and "P1.mine" in val
    assert s[space.layout.static_size + space.layout.processes[0].channels[0].offset - 1] == 2
    stats = explore(space)
    assert stats.states == 9  # two independent 3-step processes


def test_receive_condition_async_and_rendezvous():
    """CSP# c?[v > 1]v: a message is accepted only if the condition holds with the
    fields bound (Receive.condition)."""
    from bridge.ir import Edge, Receive

    cond_recv = Receive(q(), (RecvBind(G("v")),), condition=op(">", G("v"), 1))
    comms = [Send(q(), (C(1),)), Send(q(), (C(5),)), cond_recv]
    # FIFO: head is 1, condition false -> blocked.
    space, final = run_single(straight(comms), [int_var("v")], [chan(capacity=3, fields=1)])
    assert not space.is_terminal(final) and space.valuation(final)["v"] == 0
    # Random receive: skips the 1, takes the 5.
    rnd = Receive(q(), (RecvBind(G("v")),), random=True, condition=op(">", G("v"), 1))
    space, final = run_single(straight([comms[0], comms[1], rnd]), [int_var("v")],
                              [chan(capacity=3, fields=1)])
    assert space.is_terminal(final) and space.valuation(final)["v"] == 5
    assert space.valuation(final)["q"] == ((1,),)
    # Rendezvous: the sender offers 1 then 5; only 5 is accepted.
    c = Var("c", "global")
    sender = process("S", [], n_locations=1)
    sender = sender.__class__("S", (), (), sender.locations, (
        Edge(0, 0, None, Send(c, (C(1),)), text="c!1"),
        Edge(0, 0, None, Send(c, (C(5),)), text="c!5"),
    ), 0)
    receiver = process("R", [], n_locations=2, terminal=[1])
    receiver = receiver.__class__("R", (), (), receiver.locations, (
        Edge(0, 1, None, Receive(c, (RecvBind(G("v")),), condition=op(">", G("v"), 1)),
             text="c?[v>1]v"),
    ), 0)
    space = build_state_space(system([sender, receiver], [int_var("v")],
                                     [Channel("c", 0, (BYTE,))]))
    out = space.successors(space.initial_states()[0])
    assert [space.valuation(n)["v"] for _, n in out] == [5]
