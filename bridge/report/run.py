"""A counterexample as the report draws it: the steps of a trace or lasso, read from the
flat JSON of ``bridge check --json`` (``bridge.ir.serialize.verdict_to_json``).

``RunView`` joins prefix and loop into one list of steps (numbered from 1, as the CLI
prints them), knows where the loop starts, which process instances are the chart's
columns, and pairs the two halves of every buffered channel message. Older JSON
without ``messages``, ``barrier`` or ``line`` is read too (those parts stay empty).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class MessageLink:
    """Where the other half of a buffered message is: step index (0-based) and whether
    it is in the previous or next round of the loop (``wrapped``)."""

    peer: int
    wrapped: bool = False


@dataclass
class RunView:
    """One run to draw. ``steps``: JSON step objects, prefix then loop; ``loop_start``:
    the index of the loop's first step (None for a finite trace); ``columns``: process
    instance names in chart order; ``links[(i, m)]``: the other half of message ``m``
    of step ``i``; ``witness``: the fairness witness (JSON) of a lasso."""

    initial: dict[str, Any]
    steps: list[dict[str, Any]]
    loop_start: int | None
    columns: list[str]
    witness: dict[str, Any] | None = None
    links: dict[tuple[int, int], MessageLink] = field(default_factory=dict)

    @property
    def loop_length(self) -> int:
        """Return the number of steps of the loop (0 for a finite trace)."""
        return 0 if self.loop_start is None else len(self.steps) - self.loop_start

    def in_loop(self, index: int) -> bool:
        """Return True if step ``index`` (0-based) belongs to the loop."""
        return self.loop_start is not None and index >= self.loop_start


def step_line(step: dict[str, Any]) -> tuple[str | None, int | None]:
    """Return ``(file, line)`` of a JSON step (from ``file``/``line``, else parsed from
    ``location`` = ``file:line:col``), or ``(None, None)``."""
    if step.get("line") is not None:
        return step.get("file"), int(step["line"])
    location = step.get("location")
    if not location:
        return None, None
    parts = str(location).rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit():
        return parts[0], int(parts[1])
    return None, None


def _columns(initial: dict[str, Any], steps: list[dict[str, Any]],
             outline: dict[str, Any] | None) -> list[str]:
    names: dict[str, None] = {}
    if outline:
        for instance in outline.get("instances", ()):
            names.setdefault(instance["name"], None)
    for key in initial:
        if key.endswith("@"):
            names.setdefault(key[:-1], None)
    for step in steps:
        for name in step.get("processes", ()):
            names.setdefault(name, None)
        for message in step.get("messages", ()):
            for end in (message.get("sender"), message.get("receiver")):
                if end:
                    names.setdefault(end, None)
    return list(names)


def _values_key(message: dict[str, Any]) -> Any:
    values = message.get("values")
    return None if values is None else repr(values)


def match_messages(steps: list[dict[str, Any]], loop_start: int | None
                   ) -> dict[tuple[int, int], MessageLink]:
    """Return the pairs of buffered send and receive halves, both ways.

    Channels are FIFO: a receive takes the oldest pending send on its channel with the
    same values (so a Promela random receive ``??`` pairs right as well); when the
    values are unknown, the oldest one. In a lasso, the receives of the loop that found
    no send are paired once more with the sends the loop left pending: the message
    went round (``wrapped``).
    """
    links: dict[tuple[int, int], MessageLink] = {}
    pending: dict[str, deque[tuple[int, int, Any]]] = {}

    def receive(i: int, m: int, message: dict[str, Any], wrapped: bool) -> bool:
        queue = pending.get(message.get("channel", ""))
        if not queue:
            return False
        key = _values_key(message)
        chosen = next((entry for entry in queue if key is None or entry[2] is None
                       or entry[2] == key), None)
        if chosen is None:
            return False
        queue.remove(chosen)
        links[(i, m)] = MessageLink(chosen[0], wrapped)
        links[(chosen[0], chosen[1])] = MessageLink(i, wrapped)
        return True

    unmatched: list[tuple[int, int, dict[str, Any]]] = []
    for i, step in enumerate(steps):
        for m, message in enumerate(step.get("messages", ())):
            sender, receiver = message.get("sender"), message.get("receiver")
            if sender and not receiver:
                pending.setdefault(message.get("channel", ""), deque()).append(
                    (i, m, _values_key(message)))
            elif receiver and not sender and not receive(i, m, message, False) \
                    and loop_start is not None and i >= loop_start:
                unmatched.append((i, m, message))
    for i, m, message in unmatched:
        receive(i, m, message, True)
    return links


def run_view(result: dict[str, Any], outline: dict[str, Any] | None = None
             ) -> RunView | None:
    """Return the counterexample (or witness) of a JSON result as a ``RunView``, or None
    when the result has no run."""
    lasso = result.get("lasso")
    trace = result.get("trace")
    if lasso:
        prefix = lasso.get("prefix") or {}
        initial = dict(prefix.get("initial") or {})
        steps = list(prefix.get("steps") or ()) + list(lasso.get("loop") or ())
        loop_start: int | None = len(prefix.get("steps") or ())
        witness = lasso.get("witness")
    elif trace:
        initial = dict(trace.get("initial") or {})
        steps = list(trace.get("steps") or ())
        loop_start, witness = None, None
    else:
        return None
    view = RunView(initial, steps, loop_start, _columns(initial, steps, outline), witness)
    view.links = match_messages(steps, loop_start)
    return view
