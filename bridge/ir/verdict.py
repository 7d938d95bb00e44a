"""Results: ``Verdict`` with ``Trace`` (finite run) or ``Lasso`` (prefix + fair loop).

The native engine and the SPIN back-end both produce these types, which is what makes
their traces comparable (DESIGN.md section 5).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from bridge.diagnostics import Span


class Outcome(enum.Enum):
    HOLDS = "holds"
    VIOLATED = "violated"
    UNKNOWN = "unknown"  # resource limit, unsupported, or inconclusive abstraction


@dataclass(frozen=True, slots=True)
class Message:
    """A channel operation of a step, for message sequence charts.

    A rendezvous (capacity 0) is one message with both ``sender`` and ``receiver`` (one
    step). On a buffered channel the send and the receive are different steps: the send
    has ``receiver`` None, the receive ``sender`` None, and ``values`` pairs them (FIFO
    per channel). ``channel`` is the channel's name as the state shows it (``c``,
    ``P(0).c``), or the source text of the channel expression when the name cannot be
    told; ``values`` is None when the message's values are not known.
    """

    channel: str
    sender: str | None = None
    receiver: str | None = None
    values: tuple[Any, ...] | None = None


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One step of a run: the event (None for tau), the process instances that took
    part (names), the source statement, and the variables it changed
    (``(name, old, new)``; names like ``leader[1]`` or ``Node(0).x``). ``messages``:
    the channel operations of the step (several processes and no message: a CSP
    barrier)."""

    event: str | None
    processes: tuple[str, ...]
    text: str = ""
    span: Span | None = None
    changes: tuple[tuple[str, Any, Any], ...] = ()
    stutter: bool = False  # the implicit idle step of a deadlocked/terminated state
    messages: tuple[Message, ...] = ()


@dataclass(frozen=True, slots=True)
class Trace:
    """A finite run from the initial state: ``initial`` is the valuation of the initial
    state (name -> value), then the steps."""

    initial: tuple[tuple[str, Any], ...]
    steps: tuple[TraceStep, ...]


@dataclass(frozen=True, slots=True)
class FairnessWitness:
    """Why a loop is fair: the actions enabled somewhere / everywhere in the loop and the
    actions it engages (as printable names), and the notion that was checked.

    Under process-level fairness the "actions" are process instances. Where in the
    loop: ``enabled_at[i]`` lists (as indices into ``enabled_somewhere``) what is
    enabled in the state before loop step ``i``, ``engaged_at[i]`` (indices into
    ``engaged``) what loop step ``i`` engages; both are empty when not recorded (SPIN
    trails), else as long as the loop."""

    fairness: str
    enabled_somewhere: tuple[str, ...] = ()
    enabled_everywhere: tuple[str, ...] = ()
    engaged: tuple[str, ...] = ()
    explanation: str = ""
    enabled_at: tuple[tuple[int, ...], ...] = ()
    engaged_at: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class Lasso:
    """An infinite run ``prefix . loop^omega``; the loop starts where the prefix ends."""

    prefix: Trace
    loop: tuple[TraceStep, ...]
    witness: FairnessWitness | None = None


@dataclass(frozen=True, slots=True)
class Statistics:
    states: int = 0
    transitions: int = 0
    seconds: float = 0.0
    peak_memory_bytes: int = 0
    depth: int = 0
    extra: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer for one property.

    ``reason``: the kind of violation (``assertion violated``, ``invalid end state``,
    ``deadlock``, ``acceptance cycle``, ``index out of range``...) or why the outcome is
    unknown. ``fairness``: the fairness notion the verdict holds under (printable).
    ``refusal``: for a failed failures refinement, the events the implementation
    refuses after ``trace`` that the specification cannot refuse there.
    ``lifted``: the violation was found in a symmetry quotient and ``trace`` is already
    a run of the model, lifted from the quotient (paper 001 Lemma 1): no search of the
    full state space is needed for a counterexample.
    """

    model: str
    property: str
    outcome: Outcome
    reason: str = ""
    fairness: str = "none"
    trace: Trace | None = None
    lasso: Lasso | None = None
    statistics: Statistics = field(default_factory=Statistics)
    notes: tuple[str, ...] = ()
    value: Any = None  # e.g. the min/max of ``reaches ... with min(e)``
    refusal: tuple[str, ...] | None = None
    lifted: bool = False
