"""The engine's Promela scheduling semantics of issue 15, each expectation checked
with SPIN 6.5.2's pan on the same model (the source of every number is given):
priorities (pan.c ``highest_priority``), ``enabled()``, ``get/set_priority``, remote
references to instances that are not running, ``xr``/``xs`` claims (SPIN's default
build), a send with too few fields, and model errors of instances pan does not try."""

from __future__ import annotations

import pytest

from bridge.frontends.promela import load_promela
from bridge.ir import Outcome, PropertyKind
from bridge.semantics.explore import ExploreOptions, check_property, explore
from bridge.semantics.statespace import build_state_space


def system(text: str):  # noqa: ANN201
    return load_promela("t.pml", text).systems[0]


def safety(text: str):  # noqa: ANN201
    ts = system(text)
    prop = next(p for p in ts.properties if p.kind is PropertyKind.SAFETY)
    return check_property(ts, prop, ExploreOptions(max_states=100_000))


def states(text: str) -> int:
    return explore(system(text), ExploreOptions(max_states=100_000)).states


# ------------------------------------------------------------------------- priorities

def test_higher_priority_moves_alone_while_it_can() -> None:
    """pan -DNOREDUCE: 'errors: 0' (without the priority: assertion violated)."""
    text = ("byte x;\nactive proctype Hi() priority {p} {{ x = 1; x = 2 }}\n"
            "active proctype Lo() {{ assert(x != 1) }}\n")
    assert safety(text.format(p=2)).outcome is Outcome.HOLDS
    assert safety(text.format(p=1)).outcome is Outcome.VIOLATED


def test_state_is_tagged_with_the_priority_and_counts_match_pan() -> None:
    """m70_priority_active: pan -DNOREDUCE -o1 -o2 -o3 stores 12 states."""
    text = ("byte x;\nactive proctype Hi() priority 3 {\n do :: x < 3 -> x++ :: x == 3 -> break od\n}\n"
            "active proctype Lo() { assert(x == 3); x = 7 }\n")
    assert states(text) == 12
    space = build_state_space(system(text))
    values = space.valuation(space.initial_states()[0])
    assert values["Hi[0]._priority"] == 3 and values["Lo[1]._priority"] == 1


def test_a_blocked_high_priority_process_lets_others_move() -> None:
    text = ("byte x;\nactive proctype Hi() priority 5 { x == 1; x = 2 }\n"
            "active proctype Lo() { x = 1; (x == 2); assert(x == 2) }\n")
    assert safety(text).outcome is Outcome.HOLDS


def test_get_and_set_priority() -> None:
    """pan: get_priority of a pid that does not run is 0; set_priority of one does
    nothing; _priority is an 8-bit field (300 is stored as 44)."""
    text = ("active proctype P() priority 2 {\n"
            "  assert(get_priority(0) == 2 && get_priority(3) == 0);\n"
            "  set_priority(3, 9); set_priority(0, 7); assert(_priority == 7);\n"
            "  _priority = 300; assert(_priority == 44)\n}\n")
    assert safety(text).outcome is Outcome.HOLDS


def test_lower_priority_errors_are_not_reached() -> None:
    """pan never tries Lo's failing assert while Hi can move (m70): no error, whereas
    the same error in Hi is reported."""
    assert safety("byte x;\nactive proctype Hi() priority 2 { x = 1; x = 0 }\n"
                  "active proctype Lo() { assert(x == 0) }\n").outcome is Outcome.HOLDS


# ------------------------------------------------------------------------- enabled()

def test_enabled_reads_another_process() -> None:
    """m73_enabled: pan -DNOREDUCE, errors: 0 (an else counts as executable; a pid
    that does not run is not enabled)."""
    text = ("byte x;\nactive proctype A() { if :: x == 5 -> skip :: else -> x = 1 fi; end: x == 9 }\n"
            "active proctype B() { assert(enabled(0) || x == 1); assert(!enabled(4)) }\n")
    assert safety(text).outcome is Outcome.HOLDS
    broken = text.replace("enabled(0) || x == 1", "enabled(0)")
    assert safety(broken).outcome is Outcome.VIOLATED


def test_enabled_sees_the_youngest_process_able_to_die() -> None:
    """A finished process may still die if it is the youngest (pan's -end- step is
    executable for it in enabled()'s test): pan -DNOREDUCE, errors: 0."""
    text = ("byte x;\nactive proctype A() { x == 1; assert(enabled(1) || _nr_pr == 1) }\n"
            "active proctype B() { x = 1 }\n")
    assert safety(text).outcome is Outcome.HOLDS


# ------------------------------------------------------------- remote references

def test_remote_label_without_pid_names_the_lowest_running_pid() -> None:
    """The issue's models m77/m78 (pan -a: errors 0 and errors 1)."""
    base = ("byte n;\nactive [2] proctype P() {{\n  if\n  :: _pid == {k} -> CS: n++\n"
            "  :: else -> skip\n  fi\n}}\nltl q {{ [] !(P@CS) }}\n")
    from bridge.fairness.check import LtlOptions, check_ltl

    for k, outcome in ((1, Outcome.HOLDS), (0, Outcome.VIOLATED)):
        ts = system(base.format(k=k))
        assert check_ltl(ts, ts.properties[0], LtlOptions()).outcome is outcome


def test_remote_reference_to_a_process_that_does_not_run() -> None:
    """pan reads a zeroed process: the label test is false, a variable is 0."""
    text = ("proctype P() { byte v = 3; end: v == 0 }\n"
            "init { assert(!P[1]@end && P[1]:v == 0 && P:v == 0); run P(); (P[1]@end);"
            " assert(P[1]:v == 3 && P:v == 3) }\n")
    assert safety(text).outcome is Outcome.HOLDS


def test_xr_receive_by_another_process_is_a_violation() -> None:
    """m80_xr_violated: the default build, 'xr assertion violated: access to chan c'."""
    v = safety("chan c = [2] of { byte };\nactive proctype A() { xr c; c!1; c!2; c?_ }\n"
               "active proctype B() { c?_ }\n")
    assert v.outcome is Outcome.VIOLATED and v.reason == "xr assertion violated"
    assert any("access to chan c by B[1]" in n for n in v.notes)


def test_xr_respected_holds() -> None:
    """m81_xr_xs_respected: pan default build, errors: 0."""
    text = ("chan c = [1] of { byte };\nbyte v;\nactive proctype A() { xs c; c!2 }\n"
            "active proctype B() { xr c; c?v; assert(v == 2) }\n")
    assert safety(text).outcome is Outcome.HOLDS


def test_send_with_too_few_fields_fails_when_it_executes() -> None:
    """m75 (depth 0) and m76 (blocked while full, then an error)."""
    v = safety("chan c = [2] of { byte, byte };\nactive proctype P() { c!1 }\n")
    assert v.outcome is Outcome.VIOLATED and v.reason == "too few parameters in send stmnt"
    assert v.trace is not None and v.trace.steps == ()
    full = safety("chan c = [1] of { byte, byte };\nactive proctype P() { c!1,2; c!3 }\n")
    assert full.outcome is Outcome.VIOLATED and full.reason == "invalid end state"


# ------------------------------------------------------------- model errors, as pan

MODEL_ERRORS = [
    # pan: "priority is out of range" (m72)
    ("active proctype P() { set_priority(0, 256) }\n", "priority is out of range"),
    # pan: "used: enabled(pid=thisproc)" (m74)
    ("byte x;\nactive proctype A() { x = 1; enabled(_pid) -> x = 2 }\n",
     "enabled() of the process itself"),
    # pan would read Q's memory as a P; bridge stops with a model error
    ("active proctype Q() { byte w = 1; skip }\nproctype P() { byte v; skip }\n"
     "init { assert(P[0]:v == 0) }\n", "invalid remote reference"),
    # pan.m tests both claims on len(), empty(), polls
    ("chan c = [2] of { byte };\nbyte n;\nactive proctype A() { xs c; c!1 }\n"
     "active proctype B() { n = len(c) }\n", "xs assertion violated"),
    # a second claimant (pan's setq_claim when it is created)
    ("chan c = [1] of { byte };\nproctype R() { xr c; c?_ }\n"
     "init { c!1; atomic { run R(); run R() } }\n", "xr assertion violated"),
    ("chan c = [0] of { byte };\nactive proctype A() { xr c; c?_ }\n"
     "active proctype B() { c!1 }\n", "xr chans cannot be used for rv"),
    # pan keeps q_recver for the search: a later receive by another pid is reported
    ("chan c = [2] of { byte };\nproctype R() { xr c; c?_ }\n"
     "init { c!1; c!2; run R(); (_nr_pr == 1); c?_ }\n", "xr assertion violated"),
    # pan executes a rendezvous send (its half of the handshake) before any receiver
    ("chan c = [0] of { byte, byte };\nbyte x;\nactive proctype A() { x = 1; c!1 }\n",
     "too few parameters in send stmnt"),
]


@pytest.mark.parametrize("text,reason", MODEL_ERRORS, ids=[r for _, r in MODEL_ERRORS])
def test_model_errors_as_pan_reports_them(text: str, reason: str) -> None:
    v = safety(text)
    assert v.outcome is Outcome.VIOLATED and v.reason == reason, v.notes
