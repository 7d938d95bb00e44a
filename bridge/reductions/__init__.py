"""State-space reductions, each a wrapper of the ``StateSpace`` (DESIGN.md section 4).

- ``por.PartialOrderReduction``: ample sets (C0-C3) for no/weak fairness and actions
  that are not fairness visible (paper 000 section 4; refused under strong fairness,
  001 section 6);
- ``symmetry.SymmetryReduction``: the quotient by a symmetry verified on the IR, sound
  with no fairness and with strong global fairness (001 Theorem 4);
- ``counter.check_counter_abstraction``: process counter abstraction with a cutoff and
  process-level weak/strong fairness (paper 002), a checker of its own.

``apply_reductions`` is what ``bridge.api`` calls: it wraps a compiled space with the
reductions that were asked for *and* are sound for the property and fairness, and says
in its notes what was applied, refused, or not applied and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bridge.diagnostics import ConfigurationError
from bridge.ir import FairnessMark, TransitionSystem
from bridge.ir.property import Fairness, Property
from bridge.semantics.successors import StateSpace

__all__ = ["ReductionOptions", "apply_reductions"]


@dataclass(frozen=True)
class ReductionOptions:
    """Which reductions to try. ``full_enabled_sets``: the fair checker judges
    enabledness with the wrapper's ``enabled_actions``/``enabled_processes`` (the
    unreduced sets) rather than with the ample sets; POR under weak fairness or
    annotations is applied only then (otherwise an ample set could make an unfair loop
    look fair)."""

    por: bool = False
    symmetry: bool = False
    fairness: Fairness = Fairness.NONE
    annotations: tuple[tuple[FairnessMark, str], ...] = ()
    max_states: int | None = None
    full_enabled_sets: bool = False


def apply_reductions(
    space: StateSpace, system: TransitionSystem, prop: Property, options: Any
) -> tuple[StateSpace, list[str]]:
    """Return ``space`` wrapped with the sound reductions asked for, and notes saying
    what was done (a reduction that is unsound or impossible is *not* applied and the
    note says why; nothing is silently approximated).

    ``options`` is a ``ReductionOptions`` or any object with the same attributes
    (``por``, ``symmetry``, ``fairness``, ``annotations``, ``max_states``).
    """
    notes: list[str] = []
    fairness = getattr(options, "fairness", None) or prop.fairness or Fairness.NONE
    scheduling = _scheduling_refusal(system)
    if scheduling is not None:
        for asked in ("symmetry", "por"):
            if getattr(options, asked, False):
                notes.append(f"{asked}: not applied: {scheduling}")
        return space, notes
    annotations: Sequence[tuple[FairnessMark, str]] = tuple(getattr(options, "annotations", ()) or ())
    full_sets = bool(getattr(options, "full_enabled_sets", False))
    formula = prop.formula
    symmetric = False
    if getattr(options, "symmetry", False):
        from bridge.reductions.symmetry import SymmetryReduction, detect_symmetry

        if annotations or _has_marks(system):
            notes.append("symmetry: not applied: fairness annotations are not permuted")
        else:
            try:
                spec = detect_symmetry(system, formula, fairness)
                space = SymmetryReduction(space, system, spec)
                symmetric = True
                notes.extend(spec.notes)
                if spec.phases:
                    notes.append(
                        "symmetry: states are canonicalised once the initialisation "
                        "phase has finished"
                    )
            except ConfigurationError as why:
                notes.append(f"symmetry: not applied: {why}")
    if getattr(options, "por", False):
        from bridge.reductions.por import PartialOrderReduction, por_refusal

        refusal = por_refusal(fairness, formula, system, annotations)
        needs_sets = fairness is not Fairness.NONE or bool(annotations) or _has_marks(system)
        if refusal is not None:
            notes.append(f"por: {refusal}")
        elif symmetric:
            # ample sets rely on independence of edges of fixed instances; the quotient
            # moves instances between positions, so the two are not combined here
            notes.append("por: not applied together with symmetry reduction")
        elif needs_sets and not full_sets:
            notes.append(
                "por: not applied: under weak fairness or annotations the fair checker must "
                "judge enabledness on the unreduced steps (enabled_actions), which this "
                "checker does not do"
            )
        else:
            space = PartialOrderReduction(
                space, system, formula, fairness, annotations, getattr(options, "max_states", None)
            )
            notes.append(
                "por: partial order reduction applied on the fly (ample sets, stack proviso "
                "of the search)"
            )
    return space, notes


def _scheduling_refusal(system: TransitionSystem) -> str | None:
    """Return why no reduction applies to a Promela model that schedules by priority or
    asks enabled(): whether a step may be taken depends on what every other process
    can do, which neither the independence of ample sets nor a renaming of instances
    sees (pan refuses enabled() without -DNOREDUCE and warns about priorities)."""
    if system.priority_scheduling:
        return "the model schedules processes by priority"
    if "Enabled(pid=" in repr(system.processes) + repr(system.properties):
        return "the model uses enabled()"
    return None


def _has_marks(system: TransitionSystem) -> bool:
    return any(e.fairness is not None for p in system.processes for e in p.edges)
