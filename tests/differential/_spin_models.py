"""Small hand-built IR systems shared by the SPIN back-end tests (paper figures)."""

from __future__ import annotations

from bridge.ir import (
    BYTE,
    AssertStmt,
    Channel,
    LtlBinary,
    LtlEvent,
    LtlState,
    LtlUnary,
    Overflow,
    Property,
    PropertyKind,
    Receive,
    RecvBind,
    Send,
    SourceLanguage,
    TransitionSystem,
)
from tests.irbuild import G, L, add, edge, eq, int_var, lt, parallel, process, system, typed_var


def gf(event: str) -> LtlUnary:
    return LtlUnary("G", LtlUnary("F", LtlEvent(event)))


def ltl(name: str, formula, number: int = 1) -> Property:  # noqa: ANN001
    return Property(name, PropertyKind.LTL, name, formula=formula, number=number)


def fig2a() -> TransitionSystem:
    """Paper 000 Fig. 2(a): one process choosing a or b forever; []<>a needs weak
    fairness (a is always enabled)."""
    p = process("P", [edge(0, 0, event="a"), edge(0, 0, event="b")])
    return system([p], properties=[ltl("gf_a", gf("a"))], language=SourceLanguage.CSP,
                  name="fig2a")


def fig3() -> TransitionSystem:
    """Weak vs strong local (paper 000 Fig. 3 in spirit): a is enabled at L0 only; the
    loop b c keeps leaving L0, so a is enabled infinitely often, not continuously."""
    p = process("P", [edge(0, 0, event="a"), edge(0, 1, event="b"), edge(1, 0, event="c")])
    return system([p], properties=[ltl("gf_a", gf("a"))], language=SourceLanguage.CSP,
                  name="fig3")


def barrier() -> TransitionSystem:
    """Two processes synchronising on `sync`; A may also loop on `work` forever."""
    a = process("A", [edge(0, 0, event="work"), edge(0, 1, event="sync"),
                      edge(1, 0, event="back", effect=[_inc("n")])])
    b = process("B", [edge(0, 1, event="sync"), edge(1, 0, event="rest")])
    return system(
        [a, b],
        globals_=[int_var("n", 0, 0, 2, Overflow.NONE)],
        composition=parallel([0, 1], [{"work", "sync", "back"}, {"sync", "rest"}]),
        properties=[ltl("gf_sync", gf("sync"), 1),
                    ltl("n_small", LtlUnary("G", LtlState(lt(G("n"), 3), "n < 3")), 2)],
        language=SourceLanguage.CSP,
        name="barrier",
    )


def _inc(var: str):  # noqa: ANN202
    from tests.irbuild import assign, op

    return assign(var, op("mod", add(G(var), 1), 3))


def once_then_stop() -> TransitionSystem:
    """e happens once, then the system deadlocks: []<>e is violated (the idle steps
    of the deadlock carry no event), <>e holds."""
    p = process("P", [edge(0, 1, event="e")], terminal=[1])
    return system(
        [p],
        properties=[ltl("gf_e", gf("e"), 1),
                    ltl("f_e", LtlUnary("F", LtlEvent("e")), 2)],
        language=SourceLanguage.CSP,
        name="once",
    )


def rendezvous() -> TransitionSystem:
    """Promela-like: a sender passes 1, 2 over a rendezvous channel; the receiver
    stores them in x and asserts x < 2 (violated)."""
    c = Channel("c", 0, (BYTE,))
    from bridge.ir import Var

    sender = process("S", [edge(0, 1, comm=Send(Var("c"), (add(L("k"), 1),))),
                           edge(1, 0, guard=lt(L("k"), 1), effect=[_local_inc("k")])],
                     locals_=[typed_var("k", BYTE, 0)])
    receiver = process("R", [edge(0, 1, comm=Receive(Var("c"), (RecvBind(G("x")),))),
                             edge(1, 0, effect=[AssertStmt(lt(G("x"), 2))])])
    return system([sender, receiver], globals_=[typed_var("x", BYTE, 0)], channels=[c],
                  properties=[Property("safety", PropertyKind.SAFETY, "", number=1),
                              ltl("x_le_2", LtlUnary("G", LtlState(lt(G("x"), 3), "x < 3")), 2)],
                  language=SourceLanguage.PROMELA, name="rendezvous")


def _local_inc(var: str):  # noqa: ANN202
    from tests.irbuild import assign

    return assign(L(var), add(L(var), 1))


def starving() -> TransitionSystem:
    """Process-level fairness: B toggles go forever; A waits for go and then sets done.
    <>done fails without fairness and under weak fairness (A is not continuously
    enabled), holds under strong local and process-strong fairness."""
    a = process("A", [edge(0, 1, guard=eq(G("go"), 1), event="take",
                           effect=[_set("done", 1)])], terminal=[1])
    b = process("B", [edge(0, 0, event="toggle", effect=[_set_expr("go")])])
    return system(
        [a, b],
        globals_=[int_var("go", 0), int_var("done", 0)],
        properties=[ltl("f_done", LtlUnary("F", LtlState(eq(G("done"), 1), "done")))],
        language=SourceLanguage.CSP,
        name="starving",
    )


def _set(var: str, value: int):  # noqa: ANN202
    from tests.irbuild import assign

    return assign(var, value)


def _set_expr(var: str):  # noqa: ANN202
    from tests.irbuild import assign, op

    return assign(var, op("-", 1, G(var)))


ALL = {
    "fig2a": fig2a,
    "fig3": fig3,
    "barrier": barrier,
    "once": once_then_stop,
    "rendezvous": rendezvous,
    "starving": starving,
}

__all__ = ["ALL", "LtlBinary"]
