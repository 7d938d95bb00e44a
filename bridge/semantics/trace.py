"""Turn paths of the state space into readable ``Trace``s (DESIGN.md section 5).

A path is a sequence of ``(Step, next state)`` pairs from a start state. Each
``TraceStep`` names the event (None for tau), the process instances that moved, the
source text and span of the edge(s) taken, and the variables whose value changed, as
``(name, old, new)`` with names from ``valuation`` (``leader[1]``, ``Node(0).x``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bridge.ir import Trace, TraceStep
from bridge.semantics.successors import StateVector, Step


def _changes(before: dict[str, Any], after: dict[str, Any]) -> tuple[tuple[str, Any, Any], ...]:
    changed: list[tuple[str, Any, Any]] = []
    for name, new in after.items():
        if name.endswith("@"):
            continue  # control locations are shown through the statement text
        old = before.get(name)
        if old != new:
            changed.append((name, old, new))
    for name, old in before.items():
        if name not in after and not name.endswith("@"):
            changed.append((name, old, None))  # a local of an instance that died
    return tuple(changed)


def describe_step(space: Any, step: Step, before: StateVector) -> tuple[str, Any]:
    """Return ``(text, span)`` of the edge(s) a step takes (joined with ``; ``)."""
    texts: list[str] = []
    span = None
    edge_of = getattr(space, "edge", None)
    for pid, k in step.edges:
        e = edge_of(pid, k, before) if edge_of is not None else None
        if e is None:
            continue
        if e.text:
            texts.append(e.text)
        if span is None:
            span = e.span
    if not step.edges and isinstance(step.action, tuple) and step.action[-1:] == (-1,):
        texts.append("-end- (process terminates)")
    return "; ".join(texts), span


def make_steps(
    space: Any, start: StateVector, path: Sequence[tuple[Step, StateVector]]
) -> tuple[TraceStep, ...]:
    """Return the table of steps of ``path`` taken from ``start``."""
    result: list[TraceStep] = []
    state = start
    before = space.valuation(state)
    name_of = getattr(space, "instance_name", None)
    for step, nxt in path:
        after = space.valuation(nxt)
        if name_of is not None:
            try:
                names = tuple(name_of(p, state) for p in step.processes)
            except TypeError:
                names = tuple(name_of(p) for p in step.processes)
        else:
            names = tuple(str(p) for p in step.processes)
        text, span = describe_step(space, step, state)
        result.append(
            TraceStep(step.event, names, text, span, _changes(before, after), step.stutter)
        )
        state, before = nxt, after
    return tuple(result)


def make_trace(
    space: Any, initial: StateVector, path: Sequence[tuple[Step, StateVector]]
) -> Trace:
    """Return the ``Trace`` of ``path`` from ``initial``: the initial valuation, then the
    step table (``make_steps``)."""
    valuation = space.valuation(initial)
    shown = tuple((k, v) for k, v in valuation.items())
    return Trace(shown, make_steps(space, initial, path))
