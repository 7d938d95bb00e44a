"""Regression (issue 15): models SPIN 6.5.2 accepts that bridge refused or judged
wrongly, each with pan's verdict.

* a send with fewer values than its channel's fields was refused ("channel 'c' has 2
  fields, the statement uses 1"); pan reports "too few parameters in send stmnt"
  (errors: 1 at depth 0) when it executes;
* ``xr c`` was ignored (HOLDS); SPIN's default build reports "xr assertion violated:
  access to chan c" when another process receives from c;
* ``priority`` and ``enabled()`` were refused ("not supported by bridge").
"""

from __future__ import annotations

from pathlib import Path

from bridge.frontends.promela import load_promela
from bridge.ir import Outcome, PropertyKind
from bridge.semantics.explore import ExploreOptions, check_property

MODELS = Path(__file__).resolve().parents[1] / "models" / "promela"


def _safety(name: str):  # noqa: ANN202
    system = load_promela(str(MODELS / f"{name}.pml")).systems[0]
    prop = next(p for p in system.properties if p.kind is PropertyKind.SAFETY)
    return check_property(system, prop, ExploreOptions())


def test_send_with_too_few_fields_is_a_violation_at_depth_0() -> None:
    verdict = _safety("m75_send_too_few")
    assert verdict.outcome is Outcome.VIOLATED
    assert verdict.reason == "too few parameters in send stmnt"
    assert verdict.trace is not None and len(verdict.trace.steps) == 0


def test_xr_violation_is_reported() -> None:
    verdict = _safety("m80_xr_violated")
    assert verdict.outcome is Outcome.VIOLATED and verdict.reason == "xr assertion violated"


def test_priorities_and_enabled_load_and_hold() -> None:
    assert _safety("m70_priority_active").outcome is Outcome.HOLDS
    assert _safety("m73_enabled").outcome is Outcome.HOLDS
