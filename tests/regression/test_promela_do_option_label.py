"""Regression: a label on the first statement of a do/if option named only the labelled
location, not the copy of the statement at the loop head, so `--fair sf:go` on
`do :: go: x = 1 :: x = 0 od` matched nothing and []<>(x == 1) was reported violated
under the annotation (found while reviewing the fairness engineer's report)."""

from __future__ import annotations

from bridge.fairness.check import LtlOptions, check_ltl
from bridge.frontends.promela import load_promela
from bridge.ir.model import FairnessMark
from bridge.ir.property import PropertyKind
from bridge.ir.verdict import Outcome

MODEL = """byte x = 0;
active proctype P() {
  do
  :: go: x = 1
  :: stay: x = 0
  od
}
ltl p { []<> (x == 1) }
"""


def _check(*annotations: tuple[FairnessMark, str]) -> Outcome:
    system = load_promela("do_label.pml", MODEL).systems[0]
    prop = next(p for p in system.properties if p.kind is PropertyKind.LTL)
    return check_ltl(system, prop, LtlOptions(annotations=annotations)).outcome


def test_option_copy_at_loop_head_carries_the_statement_label() -> None:
    system = load_promela("do_label.pml", MODEL).systems[0]
    process = system.processes[0]
    labelled = [e for e in process.edges if e.text == "x = 1"]
    assert len(labelled) == 2  # the option's edge and its copy at the do head
    assert all(e.label == "go" and e.event is not None for e in labelled)


def test_strong_fairness_on_a_do_option_label_is_applied() -> None:
    assert _check() is Outcome.VIOLATED
    assert _check((FairnessMark.SF, "go")) is Outcome.HOLDS
    assert _check((FairnessMark.SF, "stay")) is Outcome.VIOLATED
