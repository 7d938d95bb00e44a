"""Which marked statements of a Promela model cannot be told apart from another
template's statement at the same pid (processes started by ``run`` reuse pids): both
engines refuse such marks (``fairness.check`` and the C engine's driver), since a step
names its statement as ``(pid, edge index)``."""

from __future__ import annotations

from typing import Any

from bridge.diagnostics import Span
from bridge.ir import TransitionSystem
from bridge.semantics.statespace import _run_targets


def shared_pid_marks(system: TransitionSystem) -> tuple[Span | None, str] | None:
    """Return where (the edge's span, what) the model's marks cannot be told apart from
    another statement, else None: a marked edge ``k`` of a process that ``run`` starts
    (Promela), when its pid may later or earlier run another template that has an edge
    ``k`` too (paper 000 Fig. 11 marks a statement of a process, not a pid's).

    A step names its statement as ``(pid, edge index)`` (``Step.edges``, the action
    of weak fairness), so both templates' edge ``k`` at one pid are one interned step,
    and ``_AnnotationUnits`` would learn the mark (or miss it) from whichever template
    the first such step came from: a ``wl``/``sl``/``wf`` mark ignored (a false
    counterexample) or put on the other template's statement. Two templates share a
    pid when both are started by ``run``, or when one is and the other is an initial
    process, not the first, and one of them can terminate (its pid is then free
    again)."""
    started = _run_targets(system)
    if not started:
        return None
    by_name = {p.name: p for p in system.processes}

    def can_end(name: str) -> bool:  # a location without edges reachable (guards aside)
        proc = by_name[name]
        out: dict[Any, list[Any]] = {}
        for e in proc.edges:
            out.setdefault(e.source, []).append(e.target)
        seen, todo = {proc.initial}, [proc.initial]
        while todo:
            loc = todo.pop()
            if loc not in out:
                return True
            for t in out[loc]:
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        return False

    # deaths are youngest first: the pid of initial instance p > 0 is free again only
    # when it ends, and only a process of a lower pid can then start another there
    initial = {i.process for p, i in enumerate(system.instances) if p > 0 and can_end(i.process)}
    for proc in system.processes:
        if proc.name not in started and proc.name not in initial:
            continue
        # a pid is free again only when its process ends: one of the two must end
        others = [by_name[n] for n in started | (initial if proc.name in started else set())
                  if n != proc.name and n in by_name and (can_end(n) or can_end(proc.name))]
        for k, e in enumerate(proc.edges):
            if e.fairness is None:
                continue
            for other in others:
                if k < len(other.edges):
                    return e.span, (f"a {e.fairness.value} mark on edge {k} of {proc.name}, "
                                    f"whose pid {other.name} may run at another time (its "
                                    f"edge {k} is the same statement of that pid)")
    return None
