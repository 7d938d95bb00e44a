"""Lowering Promela to the IR: control flow graphs, declarations, instances, properties."""

from __future__ import annotations

import pytest

from bridge.diagnostics import SemanticError, UnsupportedError
from bridge.frontends.promela import load_promela
from bridge.ir import (
    ArrayType,
    AssertStmt,
    Assign,
    Binary,
    Builtin,
    ChanPoll,
    ChanType,
    Const,
    ElseGuard,
    If,
    IntType,
    LocalVar,
    PropertyKind,
    Receive,
    RemoteLabel,
    RemoteVar,
    Run,
    Send,
    SourceLanguage,
    Unary,
    Var,
    While,
)


def system(text: str):
    return load_promela("t.pml", text).systems[0]


def proc(text: str, name: str | None = None):
    ts = system(text)
    return ts.process(name) if name else ts.processes[0]


def test_straight_line_statements_are_edges_with_text_and_span() -> None:
    p = proc("byte x;\nactive proctype P() {\n  x = 1;\n  x++;\n  assert(x == 2)\n}\n")
    assert [e.text for e in p.edges] == ["x = 1", "x++", "assert(x == 2)"]
    assert [e.span.line for e in p.edges] == [3, 4, 5]
    assert isinstance(p.edges[1].effect[0], Assign)
    assert isinstance(p.edges[2].effect[0], AssertStmt)
    final = [loc for loc in p.locations if loc.terminal]
    assert len(final) == 1 and final[0].end
    assert p.edges[-1].target == final[0].id
    assert p.initial == p.edges[0].source


def test_if_options_leave_from_one_location_and_else_is_else_guard() -> None:
    p = proc("byte x;\nactive proctype P() {\n  if\n  :: x == 0 -> x = 1\n"
             "  :: else -> x = 2\n  fi\n}\n")
    first = [e for e in p.edges if e.source == p.initial]
    assert len(first) == 2
    assert isinstance(first[1].guard, ElseGuard)
    assert first[0].guard == Binary("==", Var("x", "global", first[0].guard.left.span),
                                    Const(0, first[0].guard.right.span), first[0].guard.span)


def test_goto_and_break_are_jumps_not_steps() -> None:
    """SPIN eliminates jumps: ``x++; goto L`` is one step back to L (checked: 8 states)."""
    p = proc("byte x;\nactive proctype P() {\nL: x++;\n  if\n  :: x < 3 -> goto L\n"
             "  :: else\n  fi\n}\n")
    assert len(p.edges) == 3
    back = next(e for e in p.edges if e.text == "x < 3")
    label_loc = next(loc for loc in p.locations if "L" in loc.labels)
    assert back.target == label_loc.id == p.initial


def test_goto_as_first_statement_of_an_option_is_a_step() -> None:
    p = proc("byte x;\nactive proctype P() {\nL: x++;\n  if\n  :: goto L\n  :: x > 3\n  fi\n}\n")
    assert any(e.text == "goto L" and e.guard is None for e in p.edges)


def test_do_loops_back_and_break_exits() -> None:
    p = proc("byte x;\nactive proctype P() {\n  do\n  :: x < 3 -> x++\n  :: x == 3 -> break\n"
             "  od;\n  x = 0\n}\n")
    head = p.initial
    inc = next(e for e in p.edges if e.text == "x++")
    assert inc.target == head
    leave = next(e for e in p.edges if e.text == "x == 3")
    reset = next(e for e in p.edges if e.text == "x = 0")
    assert leave.target == reset.source


def test_atomic_marks_locations_after_its_first_statement() -> None:
    p = proc("byte x;\nactive proctype P() {\n  x = 5;\n  atomic { x = 1; x > 0; x = 2; x = 3 };\n"
             "  x = 4\n}\n")
    by_text = {e.text: e for e in p.edges}
    atomic_locs = {loc.id for loc in p.locations if loc.atomic}
    assert by_text["x = 1"].source not in atomic_locs
    assert by_text["x = 2"].source in atomic_locs and by_text["x = 3"].source in atomic_locs
    assert by_text["x = 4"].source not in atomic_locs


def test_non_blocking_atomic_is_one_edge() -> None:
    """pan stores no state inside ``atomic { g -> a; b }``: one edge, like SPIN."""
    p = proc("byte x, y;\nchan q = [1] of { byte };\nactive proctype P() {\n"
             "  atomic { x == 0 -> x = 1; y++; assert(x == 1) };\n"
             "  atomic { q?x -> y = x }\n}\n")
    assert len(p.edges) == 2
    assert not any(loc.atomic for loc in p.locations)
    first = p.edges[0]
    assert first.guard.op == "==" and len(first.effect) == 3
    assert isinstance(p.edges[1].comm, Receive) and len(p.edges[1].effect) == 1


def test_atomic_with_rendezvous_or_choice_keeps_its_steps() -> None:
    p = proc("byte x;\nchan r = [0] of { byte };\nactive proctype P() {\n"
             "  atomic { r?x -> x++ };\n  atomic { if :: x = 1 :: x = 2 fi; x++ }\n}\n")
    assert {e.text for e in p.edges} == {"r?x", "x++", "x = 1", "x = 2"}
    assert any(loc.atomic for loc in p.locations)


def test_d_step_is_one_edge_with_structured_effect() -> None:
    p = proc("byte x, n;\nactive proctype P() {\n  d_step {\n    x > 0 -> n = 1;\n"
             "    if :: n > 0 -> n = 2 :: else -> n = 3 fi;\n"
             "    do :: n < 5 -> n++ :: else -> break od\n  }\n}\n")
    assert len(p.edges) == 1
    edge = p.edges[0]
    assert isinstance(edge.guard, Binary) and edge.guard.op == ">"
    kinds = [type(s) for s in edge.effect]
    assert kinds == [Assign, If, LocalVar, While]


def test_d_step_blocking_later_becomes_a_block_error() -> None:
    p = proc("byte x, y;\nactive proctype P() {\n  d_step { x = 1; (y == 1); x = 2 }\n}\n")
    effect = p.edges[0].effect
    assert isinstance(effect[1], AssertStmt) and effect[1].text.startswith("block in d_step")


def test_unless_adds_escape_edges_with_priority() -> None:
    p = proc("byte x, s;\nactive proctype P() {\n  { x = 1; x = 2 } unless { s == 1 };\n"
             "  x = 3\n}\n")
    escapes = [e for e in p.edges if e.text == "s == 1"]
    mains = [e for e in p.edges if e.text in ("x = 1", "x = 2")]
    assert len(escapes) >= 2
    for m in mains:
        assert isinstance(m.guard, Unary) and m.guard.op == "!"
    after = next(e for e in p.edges if e.text == "x = 3")
    assert all(e.target == after.source for e in escapes)


def test_provided_is_conjoined_to_every_guard() -> None:
    p = proc("byte x, t;\nactive proctype P() provided (t == 0) {\n  x = 1;\n  x > 0\n}\n")
    for e in p.edges:
        assert e.guard is not None
        text = repr(e.guard)
        assert "'t'" in text


def test_else_in_a_provided_proctype_is_written_out() -> None:
    p = proc("byte x, t;\nactive proctype P() provided (t == 0) {\n  if\n  :: x > 0 -> x--\n"
             "  :: else -> x = 3\n  fi\n}\n")
    other = next(e for e in p.edges if e.text == "else")
    assert not isinstance(other.guard, ElseGuard)
    assert other.guard.op == "&&" and other.guard.left.op == "!"


def test_timeout_and_channel_operations() -> None:
    p = proc("chan q = [2] of { byte };\nbyte v;\nactive proctype P() {\n  q!3;\n  q?v;\n"
             "  q?[3] -> q??3;\n  timeout -> skip\n}\n")
    assert isinstance(p.edges[0].comm, Send)
    assert isinstance(p.edges[1].comm, Receive)
    assert isinstance(p.edges[2].guard, ChanPoll)
    assert p.edges[3].comm.random
    assert p.edges[4].guard == Builtin("timeout", p.edges[4].guard.span)


def test_late_local_declaration_is_a_statement() -> None:
    """SPIN 6.5.2: ``x = 1; byte b = 5`` makes ``b = 5`` a step (b starts at 0)."""
    p = proc("byte x;\nactive proctype P() {\n  byte a = 2;\n  x = 1;\n  byte b = 5;\n"
             "  byte c;\n  x = b\n}\n")
    locals_ = {v.name: v for v in p.locals}
    assert locals_["a"].init.value == 2 and locals_["b"].init is None
    assert [e.text for e in p.edges] == ["x = 1", "b = 5", "c = 0", "x = b"]


def test_mtype_numbering_like_spin() -> None:
    ts = system("mtype = { a, b };\nmtype:color = { red, green };\nmtype = { c };\n"
                "active proctype P() { skip }\n")
    assert dict(ts.enums) == {"a": 2, "b": 1, "red": 2, "green": 1, "c": 3}


def test_types_and_typedef_flattening() -> None:
    ts = system("typedef P2 { byte x; short y[2] }\ntypedef Box { P2 lo; bool f }\n"
                "Box b;\nP2 ps[3];\nunsigned u : 3 = 5;\nbit t;\nint i;\n"
                "active proctype P() { ps[1].y[0] = b.lo.x }\n")
    types = {v.name: v.type for v in ts.globals}
    assert types["b.lo.x"].name == "byte" and types["b.f"].name == "bool"
    assert types["ps.y"] == ArrayType(ArrayType(types["ps.y"].element.element, 2), 3)
    assert types["u"] == IntType(0, 7, types["u"].overflow, "unsigned:3")
    edge = ts.processes[0].edges[0]
    target = edge.effect[0].target
    assert target.base.base.name == "ps.y"


def test_channels_ids_arrays_and_locals() -> None:
    ts = system("chan a = [1] of { byte };\nchan c[2] = [0] of { byte };\nchan free;\n"
                "active proctype P() {\n  chan mine = [2] of { chan };\n  mine!a;\n  c[1]!1\n}\n")
    assert [c.name for c in ts.channels] == ["a", "c[0]", "c[1]"]
    arr = next(v for v in ts.globals if v.name == "c")
    assert arr.type == ArrayType(ChanType(), 2)
    assert [x.value for x in arr.init] == [2, 3]
    assert next(v for v in ts.globals if v.name == "free").type == ChanType()
    p = ts.processes[0]
    assert [c.name for c in p.channels] == ["mine"]
    assert p.edges[0].comm.channel == Var("mine", "local", p.edges[0].comm.channel.span)


def test_global_channel_assigned_is_a_variable_holding_its_id() -> None:
    """SPIN accepts ``fa = fp`` on global channels declared with an initialiser
    (Examples/LTL/mobile2.pml): the channel is kept as ``fa'`` and ``fa`` becomes a
    chan variable starting at its id; a channel never assigned stays a channel name."""
    ts = system("chan fa = [0] of { byte };\nchan fp = [1] of { byte };\nchan q = [1] of { chan };\n"
                "active proctype P() {\n  chan x;\n  x = fa; fa = fp; fp = x;\n  q?fa\n}\n")
    assert [c.name for c in ts.channels] == ["fa'", "fp'", "q"]
    held = {v.name: v for v in ts.globals}
    assert held["fa"].type == ChanType() and held["fa"].init.value == 1
    assert held["fp"].type == ChanType() and held["fp"].init.value == 2
    assert "q" not in held


def test_instances_follow_declaration_order_including_init() -> None:
    ts = system("init { skip }\nactive [2] proctype W() { skip }\nproctype Q(byte a) { skip }\n"
                "active proctype Z() { run Q(3) }\n")
    assert [i.process for i in ts.instances] == [":init:", "W", "W", "Z"]
    assert ts.language is SourceLanguage.PROMELA and ts.composition is None
    run = ts.process("Z").edges[0].effect[0]
    assert isinstance(run, Run) and run.proctype == "Q" and run.args[0].value == 3


def test_labels_mark_end_progress_accept_and_name_edges() -> None:
    p = proc("byte x;\nactive proctype P() {\nend0: x == 1;\nprogress1: x = 2;\n"
             "accept2: x = 3;\nmine: x = 4\n}\n")
    locs = {lab: loc for loc in p.locations for lab in loc.labels}
    assert locs["end0"].end and locs["progress1"].progress and locs["accept2"].accept
    edge = next(e for e in p.edges if e.text == "x = 4")
    assert edge.label == "mine" and edge.event.base == "mine"


def test_remote_references() -> None:
    ts = system("active [2] proctype P() { byte v;\ncs: v = 1 }\n"
                "active proctype W() { assert(P[0]@cs || P[1]:v == 1) }\n")
    cond = ts.process("W").edges[0].effect[0].cond
    assert isinstance(cond.left, RemoteLabel) and cond.left.label == "cs"
    assert isinstance(cond.right.left, RemoteVar) and cond.right.left.name == "v"


def test_properties_ltl_in_order_then_safety() -> None:
    ts = system("byte x;\nactive proctype P() { x = 1 }\nltl first { <> (x == 1) }\n"
                "ltl { [] (x <= 1) }\n")
    kinds = [(p.number, p.name, p.kind) for p in ts.properties]
    assert kinds == [(1, "first", PropertyKind.LTL), (2, "ltl_1", PropertyKind.LTL),
                     (3, "safety", PropertyKind.SAFETY)]


def test_never_claim_is_kept() -> None:
    ts = system("byte x;\nactive proctype P() { x = 1 }\n"
                "never { T0: do :: (x == 1) -> goto accept_a :: true od; accept_a: skip }\n")
    assert ts.never is not None
    assert any(loc.accept for loc in ts.never.locations)
    assert [i.process for i in ts.instances] == ["P"]


def test_inline_expansion_with_its_own_scope() -> None:
    p = proc("byte a, b;\ninline swap(x, y) { byte t; t = x; x = y; y = t }\n"
             "active proctype P() { swap(a, b); swap(b, a) }\n")
    assert [v.name for v in p.locals] == ["t", "t__1"]
    first_swap = [e for e in p.edges if e.text == "x = y"][0]
    assert first_swap.effect[0].target == Var("a", "global", first_swap.effect[0].target.span)
    second = [e for e in p.edges if e.text == "t = x"][1]
    assert second.effect[0].target.name == "t__1"


def test_for_and_select() -> None:
    p = proc("byte i, s;\nactive proctype P() {\n  for (i : 1 .. 3) { s = s + i }\n"
             "  select (i : 0 .. 2)\n}\n")
    picks = [e for e in p.edges if e.text in ("i = 0", "i = 1", "i = 2")
             and e.effect[0].value.value in (0, 1, 2) and e.span.line == 4]
    assert len(picks) == 3 and len({e.source for e in picks}) == 1


@pytest.mark.parametrize("select,one_step", [
    ("select (i : 0 .. 2)", True),
    ("select(i:0..2)", True),
    ("select (i_2 : 0 .. 2)", False),   # spinlex.c: the name must be letters and digits
    ("select (i : 0 .. 2 + 0)", False),  # ... and the bounds decimal numbers
    ("select (i :\n 0 .. 2)", False),   # ... on one line
    ("select (i : 0 .. 33)", False),     # ... at most 32 apart
    ("pick(i)", False),                  # ... outside an inline
])
def test_select_expanded_only_where_spin_lexer_expands_it(select: str, one_step: bool) -> None:
    """Regression (survey, Sergey__divby7): bridge made every constant select of at
    most 33 values one choice; SPIN only expands those its lexer recognises, the
    others are loops with states of their own (tests/models/promela/m94)."""
    p = proc("byte i, i_2;\ninline pick(v) { select (v : 0 .. 2) }\n"
             f"active proctype P() {{\n  {select}\n}}\n")
    increments = [e for e in p.edges if e.text.endswith("++")]
    assert (not increments) == one_step


def test_propositions_from_defines() -> None:
    ts = system("#define crit (x == 1)\n#define N 3\nbyte x;\nactive proctype P() { x = 1 }\n")
    assert [pr.name for pr in ts.propositions] == ["crit"]


@pytest.mark.parametrize(
    "text,message",
    [
        ("active proctype P() { c_code { x++ } }\n", "embedded C"),
        ("active proctype P() { trace { skip } }\n", None),
        ("byte x;\nactive proctype P() { x = pc_value(0) }\n", "pc_value"),
        ("chan r = [0] of { byte };\nbyte x;\nactive proctype P() { x = enabled(0); r!1 }\n",
         "rendezvous"),
        ("chan r = [0] of { byte };\nactive proctype P() priority 2 { r!1 }\n", "rendezvous"),
        ("byte t;\nactive proctype P() provided (t == 0) { t = enabled(1) }\n", "provided"),
        ("chan r = [0] of { byte };\nbyte t;\nactive proctype P() provided (t == 0) "
         "{ if :: r!1 :: else fi }\n", "rendezvous"),
    ],
)
def test_unsupported_constructs_are_rejected(text: str, message: str | None) -> None:
    with pytest.raises((UnsupportedError, SemanticError, Exception)) as info:
        system(text)
    if message:
        assert isinstance(info.value, UnsupportedError)
        assert message in str(info.value)


# ---------------------------------------------------------------------------------
# SPIN 6.5.2 forms from issue 15 (each also a test model checked against pan)


def test_receive_arguments_in_parentheses_are_one_flat_list() -> None:
    p = proc("chan q = [1] of { byte, byte, byte };\nbyte a, b, c;\n"
             "active proctype P() { q?(a, b, c); q?a(b, c); q?a, (b, c) }\n")
    receives = [e.comm for e in p.edges if isinstance(e.comm, Receive)]
    assert [len(r.args) for r in receives] == [3, 3, 3]


def test_sibling_blocks_declare_two_variables() -> None:
    p = proc("active proctype P() {\n  if\n  :: { byte k = 1; k++ }\n"
             "  :: { byte k = 2; k-- }\n  fi\n}\n")
    assert [v.name for v in p.locals] == ["k", "k__1"]


def test_a_label_per_inline_expansion_and_gotos_stay_inside() -> None:
    p = proc("byte n;\ninline f() { goto out; n++; out: skip }\n"
             "active proctype P() { f(); f() }\n")
    outs = [loc for loc in p.locations if "out" in loc.labels]
    assert len(outs) == 2
    jumps = [e for e in p.edges if e.text == "skip"]
    assert {e.source for e in jumps} == {loc.id for loc in outs}


def test_unless_at_an_option_start_pre_empts_the_siblings() -> None:
    p = proc("byte x, y;\nactive proctype P() {\n  do\n  :: { x++ } unless { y == 1 }\n"
             "  :: x > 2 -> break\n  od\n}\n")
    sibling = next(e for e in p.edges if e.text == "x > 2")
    # x > 2 && !(y == 1): the escape has priority over the other option too
    assert isinstance(sibling.guard, Binary) and sibling.guard.op == "&&"
    assert isinstance(sibling.guard.right, Unary) and sibling.guard.right.op == "!"


def test_record_parameter_is_passed_field_by_field() -> None:
    ts = system("typedef R { byte a; bool b };\nR g;\nproctype W(R r; byte k) { skip }\n"
                "init { run W(g, 3) }\n")
    assert ts.process("W").parameters == ("r.a", "r.b", "k")
    run = next(s for e in ts.process(":init:").edges for s in e.effect if isinstance(s, Run))
    assert len(run.args) == 3


def test_trace_adds_the_event_variable_and_the_end_rule() -> None:
    ts = system("chan c = [1] of { byte };\nactive proctype P() { c!1; c?_ }\n"
                "trace { c!1; c?1 }\n")
    assert any(v.name == "_event" for v in ts.globals)
    assert ts.end_condition is not None
    send = next(e for e in ts.process("P").edges if isinstance(e.comm, Send))
    assert send.effect and isinstance(send.effect[0], If)


def test_receive_with_fewer_arguments_reports_pans_error() -> None:
    p = proc("chan q = [1] of { byte, byte };\nbyte a;\nactive proctype P() { q?a }\n")
    edge = next(e for e in p.edges if isinstance(e.comm, Receive))
    assert len(edge.comm.args) == 2
    assert isinstance(edge.effect[0], AssertStmt)
    assert "missing pars in receive" in edge.effect[0].text
