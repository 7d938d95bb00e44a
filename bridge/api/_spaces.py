"""The Python engine's state spaces behind ``bridge.api``'s checks: the generated space,
the reductions (POR, symmetry) and lifting a quotient's counterexample to the model."""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bridge.api._options import (
    CheckOptions,
    NotAvailableError,
    _room,
)
from bridge.ir.model import TransitionSystem
from bridge.ir.property import Fairness, Property
from bridge.ir.verdict import Outcome, Verdict


@dataclass
class _Reduced:
    """The reduced state space of one LTL check, built once (``_reduced_space``) and
    shared by the engine choice and the check: ``space`` None when no reduction
    applies; ``built`` False until it was asked for."""

    built: bool = False
    space: Any = None


def _reduced_once(system: TransitionSystem, prop: Property, fairness: Fairness,
                  options: CheckOptions, notes: list[str], reduced: _Reduced) -> Any:
    """Return ``_reduced_space``'s result, building it (and writing its notes) once."""
    if not reduced.built:
        reduced.space = _reduced_space(system, prop, fairness, options, notes)
        reduced.built = True
    return reduced.space


def _generated_space(system: TransitionSystem) -> Any:
    """Return the state space of ``system`` that the C engine generated its code from
    (``engine_c.generate_model``, built once per system), for the fair checker to
    search on and to replay the C search's report on, or None (the checker builds its
    own): building a second one is 0.05-0.2 s of every check of a large model."""
    engine_c = importlib.import_module("bridge.engine_c")
    try:
        return engine_c.generate_model(system).space
    except engine_c.CUnsupported:
        return None


def _with_counterexample(verdict: Verdict, space: Any, run_full: Callable[[], Verdict]
                         ) -> Verdict:
    """Return ``verdict``, or, when it is a violation found in a symmetry quotient
    ``space`` (a lasso of representatives, not a run of the model), the verdict of the
    full search ``run_full()`` with its real counterexample (paper 001 Lemma 1 says one
    exists)."""
    if space is None or verdict.outcome is not Outcome.VIOLATED or not _is_quotient(space):
        return verdict
    if verdict.lifted:
        return verdict  # the trace is a run of the model already (_certified_part)
    full = run_full()
    reduced_size = (f"{verdict.statistics.states} states in the symmetry quotient, "
                    f"{full.statistics.states} in the full search")
    if full.outcome is Outcome.VIOLATED:
        return dataclasses.replace(full, notes=tuple(full.notes) + (
            f"violated in the symmetry quotient; the counterexample comes from a search "
            f"of the full state space ({reduced_size})",))
    if full.outcome is Outcome.UNKNOWN:
        return dataclasses.replace(verdict, trace=None, lasso=None, notes=tuple(
            verdict.notes) + ("no counterexample printed: the search of the full state "
                              f"space for one stopped at a limit ({full.reason})",))
    # The quotient and the full search disagree: a bug; the full search is the truth.
    return dataclasses.replace(full, notes=tuple(full.notes) + (
        "BUG: the symmetry-reduced search found a violation that the full search does "
        "not; the verdict is the full search's (please report this model)",))


def _reduced_space(system: TransitionSystem, prop: Property, fairness: Fairness,
                   options: CheckOptions, notes: list[str]) -> Any:
    """Return the state space wrapped with the sound reductions asked for, or None when
    none applies; the reductions room's notes (what was applied or refused, and why)
    go to ``notes``."""
    try:
        apply_reductions = _room("bridge.reductions", "apply_reductions", "reductions")
        reduction_options = _room("bridge.reductions", "ReductionOptions", "reductions")
        build = _room("bridge.semantics.statespace", "build_state_space",
                      "the compiled state space")
    except NotAvailableError as missing:
        notes.append(f"--por/--symmetry: not used: {missing}")
        return None
    full = build(system)
    # full_enabled_sets: check_ltl judges fairness on the wrapper's full_successors.
    space, reduction_notes = apply_reductions(full, system, prop, reduction_options(
        por=options.por, symmetry=options.symmetry, fairness=fairness,
        annotations=options.annotations, max_states=options.max_states,
        full_enabled_sets=True))
    notes.extend(reduction_notes)
    return None if space is full else space


def _is_quotient(space: Any) -> bool:
    try:
        quotient = _room("bridge.reductions.symmetry", "SymmetryReduction", "symmetry")
    except NotAvailableError:
        return False
    return isinstance(space, quotient)
