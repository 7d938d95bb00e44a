"""ir/printer.py: the text dump is stable and shows every part of the IR."""

from __future__ import annotations

from bridge.diagnostics import Span
from bridge.ir import (
    BOOL,
    BYTE,
    AssertStmt,
    Channel,
    Conditional,
    Const,
    EnumType,
    Event,
    FairnessMark,
    If,
    Instance,
    LtlEvent,
    LtlState,
    LtlUnary,
    ModelFile,
    Property,
    PropertyKind,
    Proposition,
    Receive,
    RecvBind,
    RecvMatch,
    RemoteLabel,
    Run,
    Send,
    SourceLanguage,
    Variable,
    While,
)
from bridge.ir.printer import print_expr, print_ltl, print_model_file, print_system, print_type
from tests.irbuild import (
    G,
    L,
    add,
    assign,
    counter,
    edge,
    eq,
    ev,
    ix,
    lt,
    neg,
    op,
    parallel,
    process,
    system,
)


def _sample():
    worker = process(
        "Worker",
        [
            edge(0, 1, guard=lt(G("x"), 3), effect=[assign("x", add(G("x"), 1))],
                 event=ev("inc", L("i")), text="x++"),
            edge(1, 0, comm=Send(G("c"), (Const(1),)), label="again"),
            edge(1, 2, comm=Receive(G("c"), (RecvBind(L("v")), RecvMatch(Const(2)))),
                 effect=[AssertStmt(eq(L("v"), 2)),
                         If(((neg(G("b")), (assign("b", True),)),), (assign("x", 0),)),
                         While(lt(L("v"), 3), (assign(L("v"), add(L("v"), 1)),)),
                         Run("Worker", (Const(1),))]),
        ],
        locals_=[Variable("v", BYTE)], parameters=["i"], end=[2],
        labels={0: ("start",)},
    )
    ts = system(
        [worker, counter("Tick", "t", 2, event="tick")],
        globals_=[Variable("x", BYTE, Const(0), span=Span("m.pml", 1, 1)),
                  Variable("b", BOOL), Variable("t", BYTE),
                  Variable("m", EnumType("mtype", ("a", "b"), (1, 2)), Const(1))],
        channels=[Channel("c", 2, (BYTE,))],
        instances=[Instance("Worker", (Const(0),), "Worker(0)"), Instance("Tick", (), "")],
        composition=parallel([0, 1], [{"inc.0", "tick"}, {"tick"}]),
        propositions=[Proposition("small", lt(G("x"), 2))],
        properties=[Property("p1", PropertyKind.LTL, "[]<> small",
                             formula=LtlUnary("G", LtlUnary("F", LtlState(lt(G("x"), 2),
                                                                         "small"))),
                             number=1)],
    )
    return ts


def test_dump_shows_every_part() -> None:
    text = print_system(_sample())
    for fragment in (
        "system test (ir)",
        "byte[0..255,wrap] x = 0  @1",
        "enum mtype{a=1,b=2} m = 1",
        "chan c[2] of {byte[0..255,wrap]}",
        "small = x < 2",
        "process Worker(i)",
        "L0 [initial] labels=start",
        "#0 Worker(0)\n",
        "#1 Tick()\n",
        "L2 [end]",
        "e0: L0 -> L1 when x < 3 event inc.local:i",
        "do x = x + 1",
        "e1: L1 -> L0 comm c!1 label again",
        "comm c?local:v,eval(2)",
        "assert(local:v == 2)",
        "run Worker(1)",
        "composition: parallel(#0{inc.0,tick}, #1{tick})",
        "#1 ltl p1: []<> small",
        "formula G(F({small}))",
    ):
        assert fragment in text, fragment


def test_dump_is_stable_and_order_independent() -> None:
    a = print_system(_sample())
    assert a == print_system(_sample())
    # alphabets are sets: their print order must not depend on insertion order
    flipped = parallel([0, 1], [{"tick", "inc.0"}, {"tick"}])
    from dataclasses import replace

    assert print_system(replace(_sample(), composition=flipped)) == a


def test_expressions_are_parenthesised_below_the_top() -> None:
    e = op("*", add(G("a"), 1), ix("arr", op("mod", G("i"), 3)))
    assert print_expr(e) == "(a + 1) * arr[i mod 3]"
    assert print_expr(Conditional(G("c"), Const(1), Const(2))) == "c -> 1 : 2"
    assert print_expr(RemoteLabel("P", Const(0), "cs")) == "P[0]@cs"
    assert print_expr(None) == "true"


def test_types_and_ltl() -> None:
    assert print_type(BYTE) == "byte[0..255,wrap]"
    assert print_ltl(LtlUnary("F", LtlEvent("go.1"))) == 'F("event:go.1")'


def test_model_file_header_uses_the_base_name() -> None:
    ts = _sample()
    one = print_model_file(ModelFile("/a/b/m.pml", (ts,)))
    other = print_model_file(ModelFile("m.pml", (ts,)))
    assert one == other
    assert one.startswith("model m.pml: 1 system(s)")


def test_fairness_mark_and_event_are_printed() -> None:
    from dataclasses import replace

    ts = _sample()
    worker = ts.processes[0]
    marked = replace(worker.edges[0], fairness=FairnessMark.SF, event=Event("go"))
    ts2 = replace(ts, processes=(replace(worker, edges=(marked,) + worker.edges[1:]),)
                  + ts.processes[1:], language=SourceLanguage.CSP)
    text = print_system(ts2)
    assert "event go fair sf" in text and "(csp)" in text


def test_receive_condition_and_never_claim() -> None:
    from dataclasses import replace

    ts = _sample()
    worker = ts.processes[0]
    guarded = replace(worker.edges[2], comm=Receive(
        G("c"), (RecvBind(L("v")),), condition=lt(L("v"), 5)))
    never = process("never", [edge(0, 0, guard=lt(G("x"), 9))], end=[0])
    ts2 = replace(ts, never=never, processes=(replace(
        worker, edges=worker.edges[:2] + (guarded,)),) + ts.processes[1:])
    text = print_system(ts2)
    assert "comm c?[local:v < 5]local:v" in text
    assert "never claim:\n  process never()" in text


def test_instance_names_and_specialised_process_names() -> None:
    from dataclasses import replace

    ts = _sample()
    renamed = replace(ts, instances=(Instance("Worker", (Const(0),), "w0"),) + ts.instances[1:])
    assert "#0 Worker(0) as w0\n" in print_system(renamed)
    loop = replace(ts.processes[1], name="Loop()")
    specialised = replace(ts, processes=(ts.processes[0], loop),
                          instances=ts.instances[:1] + (Instance("Loop()"),))
    text = print_system(specialised)
    assert "process Loop()  " in text or "process Loop()\n" in text
    assert "#1 Loop()\n" in text
