"""``timeout`` read outside a guard (``x = timeout``, ``assert(!timeout || b)``).

pan keeps ``timeout`` as a flag of the search step (``trpt->tau & 1``, pan.c 6.5.2): it
is 0 in the normal pass over the processes and 1 in the pass pan makes when no process
could move. A statement whose executability does not depend on ``timeout`` is taken in
the normal pass if at all, so a ``timeout`` in its effect reads 0; both engines read it
so. A step that a ``timeout`` guard enables is taken in the timeout pass: its own effect
reads 1. That includes an ``atomic`` sequence the front-end makes one edge, as SPIN's
statement merging (on by default) makes it one transition; pan built from ``spin -o3``
without a never claim reads 0 after the guard there. Measured against pan (m111), two
places depend on pan's build even by default and are refused here by name:

* the rest of an ``atomic`` sequence after a step taken in the timeout pass, beyond
  what is one edge: pan with a never claim (an ``ltl`` block) carries the flag on (1),
  pan without one clears it (0);
* a ``timeout`` in a message or a receive pattern: the value decides whether a
  rendezvous or a matching receive is executable, so pan takes the step in the timeout
  pass with the value 1 where the normal pass found it blocked with 0.
"""

from __future__ import annotations

import dataclasses

from bridge.diagnostics import UnsupportedError
from bridge.ir import Builtin, Edge, Process


def _timeout_read(node: object) -> Builtin | None:
    """Return a ``timeout`` that ``node`` (a statement, a channel operation, an
    expression) reads, or None (iteratively: expressions may be thousands deep)."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, Builtin):
            if x.name == "timeout":
                return x
        elif isinstance(x, tuple):
            stack.extend(x)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x) if f.name != "span")
    return None


def _after_timeout_steps(process: Process) -> set[int]:
    """Return the locations inside an atomic sequence that a step taken in the timeout
    pass may lead to without leaving the sequence."""
    atomic = {loc.id for loc in process.locations if loc.atomic}
    out: dict[int, list[Edge]] = {}
    for e in process.edges:
        out.setdefault(e.source, []).append(e)
    todo = [e.target for e in process.edges
            if e.target in atomic and _timeout_read(e.guard) is not None]
    seen: set[int] = set()
    while todo:
        loc = todo.pop()
        if loc in seen:
            continue
        seen.add(loc)
        todo.extend(e.target for e in out.get(loc, ()) if e.target in atomic)
    return seen


def check_timeout_reads(process: Process) -> None:
    """Refuse the reads of ``timeout`` outside a guard whose value pan's build decides
    (see the module docstring); the others read 0 in the engines."""
    after = None
    for e in process.edges:
        read = _timeout_read(e.comm)
        if read is not None:
            raise UnsupportedError.at(
                read.span or e.span, "'timeout' in a message or a receive pattern (pan "
                "takes the step in its timeout pass, with timeout 1, where it blocks with 0) "
                "is not supported by bridge")
        read = _timeout_read(e.effect)
        if read is None:
            continue
        if after is None:
            after = _after_timeout_steps(process)
        if e.source in after:
            raise UnsupportedError.at(
                read.span or e.span, "'timeout' read in an atomic sequence after a step "
                "that a timeout guard enabled (pan reads 1 there with a never claim and 0 "
                "without one) is not supported by bridge")
