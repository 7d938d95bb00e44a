"""Static facts partial order reduction needs about fairness annotations (paper 000
section 4, "fairness visible"): which annotated events a step may enable, which
annotated events are *stable*, and which steps are *inevitable*.

- ``may_enable(instance, edge)``: the annotated event names an edge may turn from
  disabled to enabled: those of the edges leaving its target location (the process now
  offers them) and those of annotated edges whose guard reads what it writes. Leaving a
  location only disables.
- ``stable(name)``: no step but the event's own occurrence can disable it: every edge
  with that name has no guard (a constant true one), and every other edge leaving a
  location that offers it enters a location that offers it again (in every instance
  that has it). Once enabled it stays enabled until it happens.
- ``inevitable(step)``: no infinite run keeps the step enabled forever without taking
  it. Shown by a blocking argument over the process graphs: if the step were enabled
  forever and never taken, its participants would stay among the locations that offer
  its event (taking only other edges among them); an edge can then be taken infinitely
  often only if it lies on a cycle of such usable edges and every *necessary partner*
  of its barrier event (an operand of a CSP parallel that has the event in its alphabet
  and one instance offering it) can take the event infinitely often too. Iterated to a
  fixed point from "everything usable" (an over-approximation: guards are assumed true,
  channels always ready); if no process keeps a usable cycle, every process stops after
  finitely many steps while the step stays enabled, which a run cannot do (it only
  stutters in states without steps), so the step is taken.

Used by ``por.py`` (see its docstring for why these make annotated fairness sound).
Models that create processes (``run``) have no inevitable steps here.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bridge.ir import (
    Const,
    FairnessMark,
    InstanceRef,
    Interleave,
    Parallel,
    Process,
    TransitionSystem,
)
from bridge.reductions._graph import iter_sccs
from bridge.reductions.dependencies import (
    EdgeAccess,
    _event_may_match,
    _stmts,
    _touches,
    event_name,
)


@dataclass(frozen=True)
class Annotations:
    """The annotated event names (model marks and command-line annotations) and the
    ones whose mark is on single edges (``wl``/``sl``), never treated as stable."""

    names: frozenset[str]
    per_edge: frozenset[str]

    def __bool__(self) -> bool:
        return bool(self.names)

    def matching(self, name: str | None) -> bool:
        return name is not None and _event_may_match(name, self.names)


def annotated_events(
    system: TransitionSystem, cli: Sequence[tuple[FairnessMark, str]]
) -> Annotations:
    """Return the annotated events of ``system`` and the command line."""
    names = {name for _mark, name in cli}
    per_edge: set[str] = set()
    for p in system.processes:
        for e in p.edges:
            if e.label is not None and e.label in names:
                continue
            if e.fairness is None:
                continue
            name = event_name(e) or e.label or f"{p.name}:{e.source}->{e.target}"
            names.add(name)
            if e.fairness in (FairnessMark.WL, FairnessMark.SL):
                per_edge.add(name)
    return Annotations(frozenset(names), frozenset(per_edge))


def operand_instances(node: object) -> list[int]:
    """Return the instance ids under a composition node."""
    out: list[int] = []
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, InstanceRef):
            out.append(x.instance)
        else:
            stack.extend(getattr(x, "children", ()))
    return out


class EnablingAnalysis:
    """The facts of the module docstring for one system and set of annotations."""

    def __init__(self, system: TransitionSystem, access: dict[tuple[str, int], EdgeAccess],
                 annotations: Annotations) -> None:
        self.system = system
        self.annotations = annotations
        self.processes: list[Process] = []
        procs = {p.name: p for p in system.processes}
        for inst in system.instances:
            self.processes.append(procs[inst.process])
        self._access = access
        self._dynamic = _creates_processes(system)
        self._composition_ok = True
        # event name -> the operands of each Parallel that have it in their alphabet,
        # each as the instances in it
        self._groups: dict[str, list[list[int]]] = {}
        self._collect_groups()
        self._names: list[list[str | None]] = [[event_name(e) for e in p.edges] for p in self.processes]
        # event name -> its necessary partners: per operand with the event in its
        # alphabet, the instance offering it when there is exactly one
        self._necessary: dict[str, list[int]] = {}
        # (name, partner) -> the instances with an edge of that name that need partner
        self._dependents: dict[tuple[str, int], set[int]] = {}
        offering: dict[str, set[int]] = {}
        for k, row in enumerate(self._names):
            for name in row:
                if name is not None:
                    offering.setdefault(name, set()).add(k)
        for name, groups in self._groups.items():
            necessary = []
            for members in groups:
                found = [m for m in members if m in offering.get(name, ())]
                if len(found) == 1:
                    necessary.append(found[0])
            self._necessary[name] = necessary
            for partner in necessary:
                self._dependents[(name, partner)] = offering.get(name, set()) - {partner}
        self._may_enable: dict[tuple[int, int], frozenset[str]] = {}
        self._stable: dict[str, bool] = {}
        self._inevitable: dict[tuple, bool] = {}
        self._annotated_guards: list[tuple[frozenset, str]] = []
        for p in system.processes:
            for i, e in enumerate(p.edges):
                name = event_name(e)
                if annotations.matching(name) or e.fairness is not None:
                    self._annotated_guards.append((access[(p.name, i)].reads, name or "?"))

    def _collect_groups(self) -> None:
        stack = [] if self.system.composition is None else [self.system.composition]
        while stack:
            node = stack.pop()
            if isinstance(node, InstanceRef):
                continue
            if isinstance(node, Parallel):
                for child, alphabet in zip(node.children, node.alphabets, strict=True):
                    members = operand_instances(child)
                    for name in alphabet:
                        self._groups.setdefault(name, []).append(members)
            elif not isinstance(node, Interleave):
                self._composition_ok = False
            stack.extend(getattr(node, "children", ()))

    # -- may enable ---------------------------------------------------------------

    def may_enable(self, instance: int, edge: int) -> frozenset[str]:
        """Return the annotated event names taking ``edge`` of ``instance`` may enable."""
        key = (instance, edge)
        hit = self._may_enable.get(key)
        if hit is not None:
            return hit
        proc = self.processes[instance]
        e = proc.edges[edge]
        out: set[str] = set()
        for j, other in enumerate(proc.edges):
            if other.source == e.target:
                name = self._names[instance][j]
                if self.annotations.matching(name):
                    out.add(name or "?")
                elif other.fairness is not None:
                    out.add(name or "?")
        writes = self._access[(proc.name, edge)].writes
        for reads, name in self._annotated_guards:
            if _touches(reads, writes):
                out.add(name)
        hit = frozenset(out)
        self._may_enable[key] = hit
        return hit

    # -- stable ---------------------------------------------------------------------

    def stable(self, name: str) -> bool:
        """Return True if only its own occurrence can disable the annotated event."""
        hit = self._stable.get(name)
        if hit is not None:
            return hit
        ok = name not in self.annotations.per_edge and not name.endswith(".*") and name != "?"
        for k, proc in enumerate(self.processes):
            if not ok:
                break
            offering = {e.source for j, e in enumerate(proc.edges) if self._names[k][j] == name}
            for j, e in enumerate(proc.edges):
                if self._names[k][j] == name:
                    if not (e.guard is None or (isinstance(e.guard, Const) and e.guard.value)):
                        ok = False
                        break
                    if e.comm is not None:
                        ok = False
                        break
                elif e.source in offering and e.target not in offering:
                    ok = False
                    break
                elif self._names[k][j] is not None and self._names[k][j].endswith(".*") \
                        and _event_may_match(self._names[k][j], [name]):
                    ok = False  # an edge whose name is not known might be this event
                    break
        self._stable[name] = ok
        return ok

    # -- inevitable -----------------------------------------------------------------

    def inevitable(self, event: str | None, edges: Iterable[tuple[int, int]]) -> bool:
        """Return True if no infinite run keeps the step (``event``, taking ``edges``:
        (instance, edge index) pairs) enabled forever without taking it."""
        edges = tuple(sorted(edges))
        key = (event, edges)
        hit = self._inevitable.get(key)
        if hit is None:
            hit = self._blocking(event, edges)
            self._inevitable[key] = hit
        return hit

    def _blocking(self, event: str | None, edges: tuple[tuple[int, int], ...]) -> bool:
        if self._dynamic or not self._composition_ok or not edges:
            return False
        n = len(self.processes)
        if any(k >= n for k, _i in edges):
            return False
        names = self._names
        # usable[k]: edge indices instance k may take infinitely often (start: all)
        usable: list[set[int]] = [set(range(len(p.edges))) for p in self.processes]
        for k, i in edges:
            proc = self.processes[k]
            if event is None:
                region = {proc.edges[i].source}
                taken = {i}
            else:
                region = {e.source for j, e in enumerate(proc.edges) if names[k][j] == event}
                taken = {j for j in range(len(proc.edges)) if names[k][j] == event}
            usable[k] = {j for j, e in enumerate(proc.edges)
                         if j not in taken and e.source in region and e.target in region}
        work = deque(range(n))
        queued = set(work)
        while work:
            k = work.popleft()
            queued.discard(k)
            before = usable[k]
            kept = before
            while True:
                narrowed = {j for j in _on_cycles(self.processes[k], kept)
                            if self._possible(names[k][j], k, usable)}
                if narrowed == kept:
                    break
                kept = narrowed
            if kept == before:
                continue
            usable[k] = kept
            left = {names[k][j] for j in kept}
            for name in {names[k][j] for j in before} - left:
                for m in self._dependents.get((name, k), ()):
                    if m not in queued:
                        queued.add(m)
                        work.append(m)
        return not any(usable)

    def _possible(self, name: str | None, k: int, usable: list[set[int]]) -> bool:
        """Can instance ``k`` take the event infinitely often as far as its necessary
        barrier partners are concerned?"""
        if name is None:
            return True
        for m in self._necessary.get(name, ()):
            if m != k and not any(self._names[m][j] == name for j in usable[m]):
                return False
        return True


def _on_cycles(proc: Process, edges: set[int]) -> set[int]:
    """Return the edges of ``edges`` that lie on a cycle of the graph they form."""
    if not edges:
        return set()
    succ: dict[int, list[int]] = {}
    for j in edges:
        e = proc.edges[j]
        succ.setdefault(e.source, []).append(e.target)
        succ.setdefault(e.target, [])
    comp = _scc_ids(succ)
    sizes: dict[int, int] = {}
    for c in comp.values():
        sizes[c] = sizes.get(c, 0) + 1
    out = set()
    for j in edges:
        e = proc.edges[j]
        c = comp[e.source]
        if c == comp[e.target] and (e.source == e.target or sizes[c] > 1):
            out.add(j)
    return out


def _scc_ids(succ: dict[int, list[int]]) -> dict[int, int]:
    """Return node -> SCC number."""
    comp: dict[int, int] = {}
    for number, members in enumerate(iter_sccs(list(succ), succ.__getitem__)):
        for v in members:
            comp[v] = number
    return comp


def _creates_processes(system: TransitionSystem) -> bool:
    from bridge.ir import Run

    return any(isinstance(s, Run) for p in system.processes for e in p.edges
               for s in _stmts(e.effect))
