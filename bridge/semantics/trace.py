"""Turn paths of the state space into readable ``Trace``s (DESIGN.md section 5).

A path is a sequence of ``(Step, next state)`` pairs from a start state. Each
``TraceStep`` names the event (None for tau), the process instances that moved, the
source text and span of the edge(s) taken, the variables whose value changed, as
``(name, old, new)`` with names from ``valuation`` (``leader[1]``, ``Node(0).x``), and
the channel messages of the step (for message sequence charts).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bridge.ir import (
    Const,
    Index,
    Message,
    Receive,
    RecvBind,
    RecvMatch,
    Send,
    Trace,
    TraceStep,
    Var,
)
from bridge.ir.printer import print_expr
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


def _stored(target: Any, instance: str, valuation: dict[str, Any]) -> Any:
    """Return the value of the lvalue ``target`` of ``instance`` in ``valuation``, or
    None when it cannot be read there (a computed index, a remote variable)."""
    if isinstance(target, Var):
        return valuation.get(target.name if target.scope == "global"
                             else f"{instance}.{target.name}")
    if isinstance(target, Index) and isinstance(target.index, Const) \
            and isinstance(target.base, Var):
        base = target.base
        name = base.name if base.scope == "global" else f"{instance}.{base.name}"
        return valuation.get(f"{name}[{int(target.index.value)}]")
    return None


def _known_values(args: Sequence[Any], instance: str, valuation: dict[str, Any]
                  ) -> tuple[Any, ...] | None:
    """Return the values of ``args`` (constants and variables) read in ``valuation``,
    or None when one of them is an expression the valuation does not show."""
    values: list[Any] = []
    for arg in args:
        value = arg.value if isinstance(arg, Const) else _stored(arg, instance, valuation)
        if value is None:
            return None
        values.append(value)
    return tuple(values)


def _rendezvous_values(send: Send, receive: Receive, receive_has_effect: bool,
                       sender: str, receiver: str, event: str | None,
                       before: dict[str, Any], after: dict[str, Any]
                       ) -> tuple[Any, ...] | None:
    """Return the message of a rendezvous: the sender's arguments read in the state
    before the step; else (CSP#) the values in the event name ``c.v1.v2``; else what
    the receiver bound, when its edge does nothing after the receive; else None."""
    values = _known_values(send.args, sender, before)
    if values is not None:
        return values
    channel = print_expr(send.channel)
    if event and event.startswith(channel + "."):
        return tuple(int(v) if v.lstrip("-").isdigit() else v
                     for v in event[len(channel) + 1:].split("."))
    if receive_has_effect:
        return None
    bound: list[Any] = []
    for arg in receive.args:
        if isinstance(arg, RecvMatch):
            bound.append(arg.value)
        elif isinstance(arg, RecvBind) and arg.target is not None:
            bound.append(arg.target)
        else:
            return None
    return _known_values(bound, receiver, after)


def _buffer_change(before: dict[str, Any], after: dict[str, Any], grew: bool
                   ) -> tuple[str, tuple[Any, ...]] | None:
    """Return ``(channel, message)`` of the buffered channel that gained (``grew``) or
    lost one message in the step (channel contents are the tuple-valued entries of a
    valuation), or None."""
    for name, new in after.items():
        old = before.get(name)
        if not isinstance(new, tuple) or not isinstance(old, tuple) or old == new:
            continue
        longer, shorter = (new, old) if grew else (old, new)
        if len(longer) != len(shorter) + 1:
            continue
        rest = list(shorter)
        for message in longer:
            if rest and rest[0] == message:
                rest.pop(0)
            else:
                return name, tuple(message)
    return None


def describe_messages(space: Any, step: Step, state: StateVector,
                      before: dict[str, Any], after: dict[str, Any],
                      names: dict[int, str]) -> tuple[Message, ...]:
    """Return the channel messages of ``step`` taken in ``state``.

    A step with a send edge and a receive edge is a rendezvous: one message from the
    sender to the receiver (its values: ``_rendezvous_values``). Otherwise a send or receive is one half of a buffered exchange,
    its channel and message read from the change of the channel's contents.
    """
    edge_of = getattr(space, "edge", None)
    if edge_of is None or not step.edges:
        return ()
    sends: list[tuple[int, Send]] = []
    receives: list[tuple[int, Receive, bool]] = []
    for pid, k in step.edges:
        e = edge_of(pid, k, state)
        comm = None if e is None else e.comm
        if isinstance(comm, Send):
            sends.append((pid, comm))
        elif isinstance(comm, Receive):
            receives.append((pid, comm, bool(e.effect)))
    if sends and receives:
        (spid, send), (rpid, receive, effect) = sends[0], receives[0]
        values = _rendezvous_values(send, receive, effect, names[spid], names[rpid],
                                    step.event, before, after)
        return (Message(print_expr(send.channel), names[spid], names[rpid], values),)
    found: list[Message] = []
    for pid, comm in (*sends, *((pid, comm) for pid, comm, _effect in receives)):
        change = _buffer_change(before, after, grew=isinstance(comm, Send))
        channel, values = change if change is not None else (print_expr(comm.channel), None)
        if isinstance(comm, Send):
            found.append(Message(channel, names[pid], None, values))
        else:
            found.append(Message(channel, None, names[pid], values))
    return tuple(found)


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
        pids = sorted({p for p, _ in step.edges} | set(step.processes))
        if name_of is not None:
            try:
                named = {p: name_of(p, state) for p in pids}
            except TypeError:
                named = {p: name_of(p) for p in pids}
        else:
            named = {p: str(p) for p in pids}
        names = tuple(named[p] for p in step.processes)
        text, span = describe_step(space, step, state)
        messages = describe_messages(space, step, state, before, after, named)
        result.append(
            TraceStep(step.event, names, text, span, _changes(before, after), step.stutter,
                      messages)
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
