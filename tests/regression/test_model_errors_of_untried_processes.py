"""Regression: a model error (failing assert, xr claim...) of a process that pan does
not try in a state used to be reported anyway, because the engine computes every
instance's steps before applying atomicity and priorities. pan tries only the holder
of an atomic sequence while it can move, and only the processes of the highest
priority that can move; since issue 15 the engine reports an error only for those.
Both models were checked with pan -DNOREDUCE: errors: 0."""

from __future__ import annotations

from pathlib import Path

from bridge.frontends.promela import load_promela
from bridge.ir import Outcome, PropertyKind
from bridge.semantics.explore import ExploreOptions, check_property

MODELS = Path(__file__).resolve().parents[1] / "models" / "promela"


def _safety(path: Path):  # noqa: ANN202
    system = load_promela(str(path)).systems[0]
    prop = next(p for p in system.properties if p.kind is PropertyKind.SAFETY)
    return check_property(system, prop, ExploreOptions())


def test_atomic_holder_hides_another_process_error() -> None:
    assert _safety(MODELS / "m86_atomic_hides_assert.pml").outcome is Outcome.HOLDS


def test_higher_priority_hides_a_lower_priority_error() -> None:
    assert _safety(MODELS / "m70_priority_active.pml").outcome is Outcome.HOLDS


def test_the_holder_own_error_is_still_reported(tmp_path: Path) -> None:
    path = tmp_path / "own.pml"
    path.write_text("byte x;\nactive proctype A() { atomic { x = 1; x == 1; assert(x == 2) } }\n"
                    "active proctype B() { x = 3 }\n")
    verdict = _safety(path)
    assert verdict.outcome is Outcome.VIOLATED and verdict.reason == "assertion violated"
