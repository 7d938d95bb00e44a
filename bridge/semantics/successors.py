"""The next-state interface every engine and wrapper speaks (STYLE.md section 2).

LTSmin's PINS in Python: a ``StateSpace`` gives initial states and, for a state, its
steps with their successors. The explorer, the product with a Büchi automaton, the fair
SCC search and every reduction (POR, symmetry, counters) only see this protocol, so
``fairness/scc.py`` never learns which language a model came from.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

StateVector = tuple[int, ...]

# Searches read the clock (time limit, progress) about this often, in seconds, whatever
# one state costs (``fairness.product.Product._clock``, ``semantics.explore``).
CLOCK_GAP = 0.05


@dataclass(frozen=True, slots=True)
class Step:
    """What a transition does, independent of the states it connects.

    ``event``: the visible event name (``"rule1.0.1"``; a Promela labelled statement's
    label; None for tau/internal). ``action``: the identity fairness talks about: the
    event name for CSP# (and tau steps get a unique per-edge action that fairness treats
    as always engaged when ``tau`` is true); for Promela ``(instance id, edge id)``, the
    statement of a process instance. ``processes``: the instance ids that move
    (several for a barrier or a rendezvous). ``edges``: ``(instance id, edge index)`` of
    every edge taken, for traces. Steps are interned by the successor generator: equal
    steps are usually the same object, so they are cheap to hash.
    """

    event: str | None
    action: Hashable
    processes: tuple[int, ...]
    edges: tuple[tuple[int, int], ...] = ()
    tau: bool = False
    stutter: bool = False  # the idle self-loop of a deadlocked/terminated state (LTL)


class StateSpace(Protocol):
    """A finite transition system seen one state at a time."""

    def initial_states(self) -> Sequence[StateVector]:
        """Return the initial states (usually exactly one)."""

    def successors(self, state: StateVector) -> Sequence[tuple[Step, StateVector]]:
        """Return every step enabled in ``state`` with its successor state.

        A model error met while computing them (failed assert, index out of range,
        division by zero, range violation) raises ``ModelRuntimeError``; the caller
        turns it into a verdict with a trace.
        """

    def is_terminal(self, state: StateVector) -> bool:
        """Return True if every process has finished validly (not a deadlock)."""

    def is_valid_end(self, state: StateVector) -> bool:
        """Return True if a state without steps is acceptable: every process is
        terminated or at an end location (Promela end labels; CSP# Skip)."""

    def valuation(self, state: StateVector) -> dict[str, Any]:
        """Return the state as readable name -> value pairs (for traces)."""

    def action_name(self, action: Hashable) -> str:
        """Return a printable name for an action (``rule1.0.1``, ``P(0):12 x = 1``)."""
