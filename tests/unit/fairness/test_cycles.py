"""fairness/cycles.py: SPIN's non-progress and acceptance cycles under every fairness
notion. SPIN checks them only without fairness and with process-weak fairness (the
differential tests compare those with pan); the other notions' verdicts are derived by
hand in each test's docstring."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.automata.buchi import evaluate_condition
from bridge.diagnostics import ConfigurationError
from bridge.fairness.check import LtlOptions
from bridge.fairness.cycles import (
    acceptance_automaton,
    check_label_cycles,
    non_progress_automaton,
)
from bridge.frontends.promela import load_promela
from bridge.ir import Fairness, Outcome, PropertyKind

MODELS = Path(__file__).resolve().parents[2] / "models" / "promela"
H, V = Outcome.HOLDS, Outcome.VIOLATED


def _check(model: str | Path, kind: PropertyKind, fairness: Fairness):  # noqa: ANN202
    path = model if isinstance(model, Path) else MODELS / f"{model}.pml"
    system = load_promela(str(path)).systems[0]
    prop = next(p for p in system.properties if p.kind is kind)
    return check_label_cycles(system, prop, LtlOptions(fairness=fairness))


def _text(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "m.pml"
    path.write_text(text)
    return path


def test_non_progress_automaton_accepts_eventually_always_np() -> None:
    buchi = non_progress_automaton()
    assert (buchi.num_states, buchi.num_sets, buchi.initial) == (2, 1, 0)
    # from 0: a letter with np_ may move to the accepting loop of state 1
    assert set(buchi.successors(0, 1)) == {(0, 0), (1, 0)}
    assert buchi.successors(0, 0) == ((0, 0),)
    assert buchi.successors(1, 1) == ((1, 1),)
    assert buchi.successors(1, 0) == ()


def test_acceptance_automaton_accepts_infinitely_often_accept() -> None:
    buchi = acceptance_automaton()
    assert buchi.successors(0, 1) == ((0, 1),)
    assert buchi.successors(0, 0) == ((0, 0),)
    assert all(evaluate_condition(e.condition, 1) == bool(e.acceptance) for e in buchi.edges[0])


# The issue's example (m82): one process, x = 0, 1, 2, 0 ... by the first option; at
# x == 2 the second option (x == 2 -> progress: x = 0) is enabled too.
ISSUE_EXAMPLE = {
    # no fairness: the loop without progress is a run (pan -l: cycle at depth 2)
    Fairness.NONE: V,
    # weak (event): the progress option is enabled only at x == 2, not continuously
    Fairness.WEAK: V,
    # strong local: it is enabled infinitely often, so it must be taken: holds
    Fairness.STRONG_LOCAL: H,
    # strong global: the step (x=2, progress option, x=0) is possible infinitely often
    Fairness.STRONG_GLOBAL: H,
    # process weak/strong: the only process moves in every step of the loop
    Fairness.PROCESS_WEAK: V,
    Fairness.PROCESS_STRONG: V,
}


@pytest.mark.parametrize("fairness", list(Fairness), ids=lambda f: f.value)
def test_issue_example_under_every_notion(fairness: Fairness) -> None:
    verdict = _check("m82_non_progress", PropertyKind.NON_PROGRESS, fairness)
    assert verdict.outcome is ISSUE_EXAMPLE[fairness]
    if verdict.outcome is V:
        assert verdict.reason == "non-progress cycle"
        assert verdict.lasso is not None and verdict.lasso.loop


@pytest.mark.parametrize("fairness", list(Fairness), ids=lambda f: f.value)
def test_fairness_removes_the_idle_loop(fairness: Fairness) -> None:
    """m83: Idle loops forever while Maker, always enabled, never moves: a
    non-progress cycle without fairness only. Under every notion Maker's statement
    (weak/strong, as an action) or Maker itself (process notions) is enabled in every
    state of that loop and never taken, so the loop is unfair; every fair loop makes
    Maker pass its progress label."""
    verdict = _check("m83_non_progress_fair", PropertyKind.NON_PROGRESS, fairness)
    assert verdict.outcome is (V if fairness is Fairness.NONE else H)


@pytest.mark.parametrize("fairness", list(Fairness), ids=lambda f: f.value)
def test_acceptance_cycle_through_the_only_loop(fairness: Fairness) -> None:
    """m84: the single process's loop x = 0..3 passes accept_busy and takes every step
    of its component, so it is fair under every notion: violated everywhere."""
    verdict = _check("m84_accept_cycle", PropertyKind.ACCEPTANCE, fairness)
    assert verdict.outcome is V and verdict.reason == "acceptance cycle"


@pytest.mark.parametrize("fairness", list(Fairness), ids=lambda f: f.value)
def test_acceptance_cycle_needs_an_unfair_run(fairness: Fairness) -> None:
    """m85: Spin loops at accept_wait while Stop (enabled in every state of the loop)
    never sets done: an acceptance cycle without fairness only."""
    verdict = _check("m85_accept_fair", PropertyKind.ACCEPTANCE, fairness)
    assert verdict.outcome is (V if fairness is Fairness.NONE else H)


def test_a_run_that_ends_is_not_a_non_progress_cycle(tmp_path: Path) -> None:
    """pan -l on a model that deadlocks away from any progress label: errors: 0 (np_
    is false on the stutter step)."""
    path = _text(tmp_path, "byte x;\nactive proctype A() { x = 1; x == 2 }\n"
                           "active proctype B() { progress: x == 3 }\n")
    assert _check(path, PropertyKind.NON_PROGRESS, Fairness.NONE).outcome is H


def test_a_run_that_ends_at_an_accept_label_is_an_acceptance_cycle(tmp_path: Path) -> None:
    """pan -a without a claim: 'accept stutter' when the system blocks at an accept
    label; a process that terminates past it is no cycle."""
    blocked = _text(tmp_path, "byte x;\nactive proctype A() { x = 1; accept: x == 2 }\n")
    verdict = _check(blocked, PropertyKind.ACCEPTANCE, Fairness.NONE)
    assert verdict.outcome is V and verdict.reason.startswith("accept stutter")
    ends = _text(tmp_path, "byte x;\nactive proctype A() { accept: x = 1 }\n")
    assert _check(ends, PropertyKind.ACCEPTANCE, Fairness.NONE).outcome is H


def test_model_errors_and_limits_are_reported(tmp_path: Path) -> None:
    path = _text(tmp_path, "byte x;\nactive proctype A() {\n  do :: x++ ; assert(x < 5)\n"
                           "  :: progress: skip od\n}\n")
    error = _check(path, PropertyKind.NON_PROGRESS, Fairness.NONE)
    assert error.outcome is V and error.trace is not None and "assert" in error.reason
    system = load_promela(str(path)).systems[0]
    prop = next(p for p in system.properties if p.kind is PropertyKind.NON_PROGRESS)
    limited = check_label_cycles(system, prop, LtlOptions(max_states=2))
    assert limited.outcome is Outcome.UNKNOWN


def test_other_properties_are_refused() -> None:
    system = load_promela(str(MODELS / "m82_non_progress.pml")).systems[0]
    safety = next(p for p in system.properties if p.kind is PropertyKind.SAFETY)
    with pytest.raises(ConfigurationError, match="non-progress and acceptance"):
        check_label_cycles(system, safety)
