"""slots.py: one instance slot per run statement for the explicit-pc style, and the
refusals where a run may execute twice or in an order known only at run time."""

from __future__ import annotations

import pytest

from bridge.backends.spin.emit import emit_promela
from bridge.backends.spin.slots import plan_slots
from bridge.diagnostics import UnsupportedError
from bridge.frontends.promela import load_promela
from bridge.ir import Fairness


def _system(text: str):  # noqa: ANN202
    return load_promela("slots.pml", text).systems[0]


def test_runs_in_init_get_slots_in_creation_order() -> None:
    system = _system("""
proctype A(byte k) { skip }
proctype B() { skip }
init { if :: run B() :: skip fi; run A(2); run A(3) }
""")
    extra, slots = plan_slots(system)
    assert [(i.process, len(i.arguments)) for i in extra] == [("B", 0), ("A", 1), ("A", 1)]
    assert sorted(s.instance for s in slots.values()) == [1, 2, 3]
    assert {s.creator for s in slots.values()} == {0}


def test_alternative_branches_need_no_order() -> None:
    system = _system("""
proctype A() { skip }
init { if :: run A() :: run A() fi }
""")
    extra, _ = plan_slots(system)
    assert len(extra) == 2


@pytest.mark.parametrize(("text", "message"), [
    ("proctype A() { skip }\ninit { do :: run A() od }", "in a loop"),
    ("proctype A() { skip }\ninit { byte i; for (i : 1 .. 3) { run A() } }", "in a loop"),
    ("proctype A() { skip }\nproctype B() { run A() }\ninit { run B() }",
     "started by run"),
    ("proctype A() { skip }\nactive [2] proctype C() { run A() }", "2 instances"),
    ("proctype A() { skip }\nactive proctype C() { run A() }\ninit { run A() }",
     "more than one process"),
])
def test_refusals_name_the_construct(text: str, message: str) -> None:
    with pytest.raises(UnsupportedError, match=message):
        plan_slots(_system(text))


def test_emitted_slot_is_woken_by_its_run() -> None:
    system = _system("""
byte x;
proctype A(byte k) { byte y = k + 1; x = y }
init { run A(4) }
ltl p { <> (x == 5) }
""")
    text = emit_promela(system, "plain", style="explicit-pc").text
    # the slot (instance 1) starts not alive (not at its initial location 0), and the
    # run sets its parameter, its initialised local and then its pc
    assert "byte pc_1 = 0" not in text and "byte pc_1 = " in text
    assert "i1_k = 4; i1_y = ((i1_k) + (1)); pc_1 = 0" in text


def test_action_process_encoding_refuses_more_processes_than_spin_runs() -> None:
    body = "\n".join(f"  :: x = {k}" for k in range(300))
    system = _system(f"byte x;\nactive proctype P() {{\n  do\n{body}\n  od\n}}\n"
                     "ltl p { []<> (x == 0) }")
    with pytest.raises(UnsupportedError, match="at most 255"):
        emit_promela(system, "action-process", Fairness.WEAK)
