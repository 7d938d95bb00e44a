"""Regression: the removal of a finished Promela instance ignored its ``provided``
clause. SPIN guards that ``-end-`` step by the clause too (m45_provided_else: pan 13
states, bridge 14), so a finished instance whose clause has become false is never
removed, and older instances can never be removed either (youngest first)."""

from __future__ import annotations

from bridge.frontends.promela import load_promela
from bridge.ir import Outcome
from bridge.semantics.explore import ExploreOptions, check_property
from bridge.semantics.statespace import build_state_space

# B falsifies its own clause as its last statement, so it can never be removed and
# A's (_nr_pr == 1) never holds: the assertion is unreachable, A is stuck mid-body.
MODEL = """byte done;
active proctype A() { (_nr_pr == 1) -> assert(false) }
active proctype B() provided (done == 0) { done = 1 }
"""


def _safety(text: str):
    system = load_promela("provided_death.pml", text).systems[0]
    safety = next(p for p in system.properties if p.name == "safety")
    return system, check_property(system, safety, ExploreOptions(max_states=10_000, timeout=60))


def test_provided_clause_blocks_removal() -> None:
    system, verdict = _safety(MODEL)
    assert verdict.outcome is Outcome.VIOLATED
    assert "assert" not in (verdict.reason or "").lower()
    assert "end" in (verdict.reason or "").lower()
    space = build_state_space(system)
    start = space.initial_states()[0]
    # B moves (done = 1), then nothing: no death step is offered.
    (step, after), = space.successors(start)
    assert step.action == (1, 0)
    assert space.successors(after) == []


def test_removal_allowed_while_the_clause_holds() -> None:
    # Same model, but the clause stays true: B dies, A's assertion fails.
    _, verdict = _safety(MODEL.replace("done = 1", "done = 0"))
    assert verdict.outcome is Outcome.VIOLATED
    assert "assert" in (verdict.reason or "").lower()
