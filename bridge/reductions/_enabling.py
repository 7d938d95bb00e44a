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
from functools import lru_cache

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
        self._offering = offering
        self._wildcards = {k for k, row in enumerate(self._names)
                           if any(name is not None and name.endswith(".*") for name in row)}
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
        self._blocking_tables: _BlockingTables | None = None
        self._tables_built: _BlockingTables  # set by _tables before _narrow runs
        self.statistics = EnablingStatistics()
        self._annotated_guards: list[tuple[frozenset, str]] = []
        for p in system.processes:
            for i, e in enumerate(p.edges):
                name = event_name(e)
                reads = access[(p.name, i)].reads
                if reads and (annotations.matching(name) or e.fairness is not None):
                    self._annotated_guards.append((reads, name or "?"))

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
        if writes:
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
        # an instance neither offering the event nor having an edge whose name is not
        # known cannot disable it
        for k in sorted(self._offering.get(name, set()) | self._wildcards):
            if not ok:
                break
            proc = self.processes[k]
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
        # a named step is kept enabled by its participants staying where the event is
        # offered: which of their edges it takes does not matter
        key = (event, edges) if event is None else (event, tuple(sorted({k for k, _ in edges})))
        hit = self._inevitable.get(key)
        if hit is None:
            hit = self._blocking(event, edges)
            self._inevitable[key] = hit
        return hit

    def _blocking(self, event: str | None, edges: tuple[tuple[int, int], ...]) -> bool:
        """Return True if the greatest fixed point of "usable" edges (module docstring)
        is empty once the step's participants are kept where it is enabled.

        Edge sets are bit masks over each instance's edges. The search starts from the
        fixed point with no step kept enabled (``_tables``: computed once), which
        contains the one asked for (the narrowing is monotone), so only the
        participants and the instances whose barrier partners they stop offering are
        narrowed again (``statistics``)."""
        if self._dynamic or not self._composition_ok or not edges:
            return False
        n = len(self.processes)
        if any(k >= n for k, _i in edges):
            return False
        tables = self._tables()
        self.statistics.fixpoints += 1
        usable = list(tables.base)
        work: deque[int] = deque()
        queued = [False] * n
        for k, i in edges:
            proc = self.processes[k]
            if event is None:
                region = {proc.edges[i].source}
                taken = 1 << i
            else:
                taken = tables.name_mask[k].get(event, 0)
                region = {proc.edges[j].source for j in _bits(taken)}
            before = usable[k]
            usable[k] &= sum(1 << j for j, e in enumerate(proc.edges)
                             if not taken >> j & 1 and e.source in region and e.target in region)
            if not queued[k]:
                queued[k] = True
                work.append(k)
            self._requeue(k, before, usable[k], queued, work)
        self._narrow(usable, work, queued)
        return not any(usable)

    def _narrow(self, usable: list[int], work: deque[int], queued: list[bool]) -> None:
        """Narrow ``usable`` in place to the greatest fixed point below it: an edge
        stays usable while it lies on a cycle of its instance's usable edges and every
        necessary barrier partner of its event keeps an edge of that event usable.
        ``work`` holds the instances that may not be narrowed yet (chaotic iteration:
        an instance is queued again when a partner stops offering one of its events)."""
        tables = self._tables_built
        needs = tables.needs
        cycles = tables.cycles
        narrowings = 0
        while work:
            k = work.popleft()
            queued[k] = False
            before = usable[k]
            kept = before
            need_k = needs[k]
            memo = cycles[k]
            while True:
                narrowings += 1
                on = memo.get(kept)
                if on is None:
                    on = sum(1 << j for j in _on_cycles(self.processes[k], set(_bits(kept))))
                    memo[kept] = on
                    self.statistics.cycle_searches += 1
                narrowed = on
                for j in _bits(on):
                    for m, mask in need_k[j]:
                        if not usable[m] & mask:
                            narrowed &= ~(1 << j)
                            break
                if narrowed == kept:
                    break
                kept = narrowed
            if kept != before:
                usable[k] = kept
                self._requeue(k, before, kept, queued, work)
        self.statistics.narrowings += narrowings

    def _requeue(self, k: int, before: int, after: int, queued: list[bool],
                 work: deque[int]) -> None:
        """Queue the instances that may need instance ``k``'s events that its usable
        edges offered ``before`` and no longer offer ``after``."""
        if before == after:
            return
        memo = self._tables_built.requeue[k]
        found = memo.get((before, after))
        if found is None:
            names = self._names[k]
            left = {names[j] for j in _bits(after)}
            dependents: set[int] = set()
            for name in {names[j] for j in _bits(before)} - left:
                dependents.update(self._dependents.get((name, k), ()))
            found = tuple(sorted(dependents))
            memo[(before, after)] = found
        for m in found:
            if not queued[m]:
                queued[m] = True
                work.append(m)

    def _tables(self) -> _BlockingTables:
        """Return the per-instance tables of ``_blocking`` (built on first use)."""
        if self._blocking_tables is None:
            names = self._names
            all_edges = [(1 << len(p.edges)) - 1 for p in self.processes]
            name_mask: list[dict[str | None, int]] = []
            for row in names:
                masks: dict[str | None, int] = {}
                for j, name in enumerate(row):
                    masks[name] = masks.get(name, 0) | 1 << j
                name_mask.append(masks)
            # per instance and edge: (partner, its edges of the event) for each
            # necessary barrier partner; the edge is possible while every such
            # partner keeps one of those edges usable
            needs = [
                [
                    [(m, name_mask[m].get(name, 0))
                     for m in self._necessary.get(name, ()) if m != k]
                    if name is not None else []
                    for name in row
                ]
                for k, row in enumerate(names)
            ]
            tables = _BlockingTables(name_mask, needs, [{} for _ in names],
                                     [{} for _ in names], all_edges)
            self._tables_built = tables
            self.statistics.fixpoints += 1
            n = len(names)
            self._narrow(tables.base, deque(range(n)), [True] * n)
            self._blocking_tables = tables
        return self._blocking_tables


@dataclass
class _BlockingTables:
    name_mask: list[dict[str | None, int]]  # per instance: event name -> its edges
    # per instance and edge: (necessary barrier partner, its edges of the event)
    needs: list[list[list[tuple[int, int]]]]
    cycles: list[dict[int, int]]  # per instance: edge mask -> its edges on cycles
    # per instance: (usable mask before, after) -> the instances to narrow again
    requeue: list[dict[tuple[int, int], tuple[int, ...]]]
    base: list[int]  # the fixed point with no step kept enabled


@dataclass
class EnablingStatistics:
    """How much work the inevitability analysis did: fixed points computed (one per
    event and set of participating instances asked about, plus the one with no step
    kept enabled), instance narrowings over all of them, and searches for the cycles
    of an instance's usable edges (each edge set searched once per instance)."""

    fixpoints: int = 0
    narrowings: int = 0
    cycle_searches: int = 0


@lru_cache(maxsize=1 << 14)
def _bits(mask: int) -> tuple[int, ...]:
    """Return the positions of the set bits of ``mask``, lowest first."""
    out: list[int] = []
    j = 0
    while mask:
        if mask & 1:
            out.append(j)
        mask >>= 1
        j += 1
    return tuple(out)


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
