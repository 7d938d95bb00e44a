"""The IR nodes of Promela's scheduling constructs (issue 15): ``Enabled``,
``GetPriority``, ``SetPriority``, ``Run.priority``, ``Instance.priority``,
``TransitionSystem.priority_scheduling`` and ``ChannelAssertion`` are printed and
round-trip through the tagged JSON form."""

from __future__ import annotations

from bridge.frontends.promela import load_promela
from bridge.ir import (
    Builtin,
    ChannelAssertion,
    Const,
    Enabled,
    GetPriority,
    ModelFile,
    PropertyKind,
    Run,
    SetPriority,
    Var,
)
from bridge.ir.printer import print_expr, print_stmt, print_system
from bridge.ir.serialize import dumps, loads
from bridge.ir.validate import validate_system

MODEL = """\
byte x;
chan c = [1] of { byte };
proctype W() { progress: x = get_priority(_pid) }
active proctype A() priority 3 {
  xr c;
  c!1; c?x;
  set_priority(1, 2);
  _priority = 4;
  run W() priority 5;
  (enabled(1) || x > 7);
  accept: skip
}
init { skip }
"""


def _system():  # noqa: ANN202
    return load_promela("sched.pml", MODEL).systems[0]


def test_expressions_and_statements_print() -> None:
    assert print_expr(Enabled(Const(2))) == "enabled(2)"
    assert print_expr(GetPriority(Builtin("_pid"))) == "get_priority(_pid)"
    assert print_stmt(SetPriority(Const(1), Const(2))) == ["set_priority(1, 2)"]
    assert print_stmt(SetPriority(Builtin("_pid"), Const(4), False)) == [
        "set_priority(_pid, 4) unchecked"]
    assert print_stmt(Run("W", (), None, None, Const(5))) == ["run W() priority 5"]


def test_system_dump_shows_priorities_claims_and_label_cycles() -> None:
    text = print_system(_system())
    assert "#0 A() as A[0] priority 3" in text
    assert "xr c" in text
    assert "scheduling: by priority" in text
    assert "non-progress non-progress-cycles: non-progress cycles" in text
    assert "acceptance acceptance-cycles: acceptance cycles" in text


def test_round_trip_through_json() -> None:
    system = _system()
    model_file = ModelFile("sched.pml", (system,))
    assert loads(dumps(model_file)) == model_file
    assert system.priority_scheduling
    assert system.processes[1].channel_assertions == (
        ChannelAssertion("xr", Var("c", "global", system.processes[1].channel_assertions[0]
                                   .channel.span), system.processes[1].channel_assertions[0].span),)


def test_front_end_output_validates_and_numbers_label_cycles_last() -> None:
    system = _system()
    assert validate_system(system) == []
    kinds = [p.kind for p in system.properties]
    assert kinds == [PropertyKind.SAFETY, PropertyKind.NON_PROGRESS, PropertyKind.ACCEPTANCE]
    assert [p.number for p in system.properties] == [1, 2, 3]
