"""Lowering of Promela's scheduling constructs and the SPIN forms of issue 15:
priorities, ``enabled()``, ``xr``/``xs``, a send with fewer fields, and the
non-progress / acceptance cycle assertions (SPIN 6.5.2 accepts every model here
unless a test says otherwise)."""

from __future__ import annotations

import pytest

from bridge.diagnostics import SemanticError, UnsupportedError
from bridge.frontends.promela import load_promela
from bridge.ir import (
    Builtin,
    Const,
    Enabled,
    GetPriority,
    PropertyKind,
    Run,
    Send,
    SetPriority,
)


def system(text: str):  # noqa: ANN201
    return load_promela("t.pml", text).systems[0]


def test_active_and_init_priorities_go_to_the_instances() -> None:
    ts = system("active [2] proctype P() priority 3 { skip }\n"
                "proctype Q() priority 9 { skip }\ninit priority 2 { run Q() }\n")
    assert ts.priority_scheduling
    assert [(i.process, i.priority) for i in ts.instances] == [("P", 3), ("P", 3), (":init:", 2)]
    # SPIN: a run'd instance gets the run's priority (1 when none), not the proctype's
    run = next(s for e in ts.process(":init:").edges for s in e.effect if isinstance(s, Run))
    assert run.priority is None


def test_run_priority_zero_is_the_default() -> None:
    ts = system("proctype Q() { skip }\ninit { run Q() priority 0; run Q() priority 7 }\n")
    runs = [s for e in ts.process(":init:").edges for s in e.effect if isinstance(s, Run)]
    assert [r.priority for r in runs] == [None, Const(7, runs[1].priority.span)]


def test_priority_constructs_lower_to_ir_nodes() -> None:
    ts = system("byte x;\nactive proctype P() {\n  x = get_priority(0) + _priority;\n"
                "  set_priority(0, 2);\n  _priority = 5;\n  _priority++\n}\n")
    effects = [s for e in ts.process("P").edges for s in e.effect]
    assert isinstance(effects[0].value.left, GetPriority)
    assert effects[0].value.right == GetPriority(Builtin("_pid", effects[0].value.right.span),
                                                 effects[0].value.right.span)
    assert isinstance(effects[1], SetPriority) and effects[1].checked
    assert isinstance(effects[2], SetPriority) and not effects[2].checked
    assert isinstance(effects[3], SetPriority) and isinstance(effects[3].value.left, GetPriority)


def test_model_without_priorities_is_not_scheduled_by_priority() -> None:
    assert not system("active proctype P() { skip }\n").priority_scheduling


def test_priorities_disable_the_one_edge_atomic_sequence() -> None:
    """With priorities, a higher-priority process may take over inside an atomic
    sequence (pan checks priorities before every step), so the sequence keeps one edge
    per statement."""
    text = "byte x;\nactive proctype P(){{ atomic {{ x = 1; x = 2 }} }}\n{}"
    plain = system(text.format(""))
    prio = system(text.format("active proctype Q() priority 2 { x == 1 }\n"))
    assert [e.text for e in plain.process("P").edges] == ["atomic { x = 1; x = 2 }"]
    assert {e.text for e in prio.process("P").edges} == {"x = 1", "x = 2"}


@pytest.mark.parametrize("text,message", [
    ("active proctype P() priority 256 { skip }\n", "valid range: 1..255"),
    ("proctype Q() { skip }\ninit { run Q() priority 300 }\n", "valid range: 1..255"),
    ("byte x;\nactive proctype P() { x = set_priority(0, 1) }\n", "statement"),
    ("byte x;\nnever { _priority == 1 }\nactive proctype P() { skip }\n", "_priority"),
])
def test_bad_priority_uses_are_errors(text: str, message: str) -> None:
    with pytest.raises(SemanticError, match=message):
        system(text)


def test_enabled_in_guards_and_ltl() -> None:
    ts = system("byte x;\nactive proctype A() { x < 3 -> x++ }\n"
                "active proctype B() { enabled(0) -> x = 9 }\nltl p { [] enabled(1) }\n")
    guard = ts.process("B").edges[0].guard
    assert isinstance(guard, Enabled) and guard.pid == Const(0, guard.pid.span)
    assert "enabled(1)" in ts.properties[0].text


@pytest.mark.parametrize("text,message", [
    ("chan r = [0] of { byte };\nbyte x;\nactive proctype P() { x = enabled(0); r!1 }\n",
     "use of enabled\\(\\) cannot be combined with rendezvous"),
    ("chan r = [0] of { byte };\nactive proctype P() priority 2 { r!1 }\n",
     "use of priorities cannot be combined with rendezvous"),
    ("byte t;\nactive proctype P() provided (t == 0) { t = enabled(1) }\n",
     "enabled\\(\\) ignores provided"),
])
def test_what_pan_cannot_compile_is_refused(text: str, message: str) -> None:
    with pytest.raises(UnsupportedError, match=message):
        system(text)


def test_channel_assertions_are_recorded_per_process() -> None:
    ts = system("chan a = [1] of { byte };\nchan b = [1] of { byte };\n"
                "proctype R(chan q) { xr q; q?_ }\n"
                "active proctype S() { xs a, b; a!1; b!1; run R(a) }\n")
    assert [(c.kind, c.channel.name) for c in ts.process("S").channel_assertions] == [
        ("xs", "a"), ("xs", "b")]
    assert [(c.kind, c.channel.name) for c in ts.process("R").channel_assertions] == [
        ("xr", "q")]


def test_channel_assertion_on_a_non_channel_is_an_error() -> None:
    with pytest.raises(SemanticError, match="not a channel"):
        system("byte x;\nactive proctype P() { xr x; skip }\n")


def test_send_with_fewer_fields_is_kept_for_the_engine() -> None:
    ts = system("chan c = [2] of { byte, byte };\nactive proctype P() { c!1 }\n")
    send = ts.process("P").edges[0].comm
    assert isinstance(send, Send) and len(send.args) == 1


def test_send_with_more_fields_is_refused_as_spin_does() -> None:
    with pytest.raises(SemanticError, match="2 fields"):
        system("chan c = [2] of { byte, byte };\nactive proctype P() { c!1,2,3 }\n")


def test_label_cycle_properties_follow_safety_and_only_when_labelled() -> None:
    none = system("active proctype P() { skip }\n")
    assert [p.kind for p in none.properties] == [PropertyKind.SAFETY]
    both = system("byte x;\nactive proctype P() { progress: x = 1; accept: x = 2 }\n"
                  "ltl p { [] x < 3 }\n")
    assert [(p.number, p.name, p.text) for p in both.properties] == [
        (1, "p", "[] x < 3"), (2, "safety", "assertions and invalid end states"),
        (3, "non-progress-cycles", "non-progress cycles"),
        (4, "acceptance-cycles", "acceptance cycles")]
    # a never claim's accept labels are the claim's, not an acceptance-cycle check
    claim = system("byte x;\nactive proctype P() { x = 1 }\n"
                   "never { accept: do :: x == 1 od }\n")
    assert [p.kind for p in claim.properties] == [PropertyKind.NEVER, PropertyKind.SAFETY]
