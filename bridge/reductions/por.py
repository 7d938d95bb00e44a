"""Partial order reduction as a ``StateSpace`` wrapper (paper 000 section 4; 001 section 6).

``PartialOrderReduction(space, system, formula, fairness, annotations)`` wraps a state
space; its ``successors`` are every enabled step, and ``ample_candidate(state, steps)``
proposes to the fair search an *ample set*: the enabled steps of one process instance,
when that is safe, else every enabled step. The ample conditions of Clarke, Grumberg and Peled (Model
Checking, ch. 10; paper 001 section 6, C0-C3) are met as follows:

- **C0**: an ample set is never empty when a step is enabled (a candidate instance has
  at least one enabled step).
- **C1**: every edge leaving the candidate's current location (enabled or not) is
  independent of *every* edge of every *other* instance (``dependencies.py``: neither
  writes what the other reads or writes; ``timeout`` and unknown channels depend on
  everything), is a local step (no rendezvous, no CSP barrier), and neither enters nor
  leaves an atomic location. Only the candidate itself can then enable, disable or
  interfere with those edges, so no dependent step can happen before one of them.
- **C2**: every such edge is invisible to the formula: it writes nothing its state
  atoms read, its event matches no event atom. Formulas with ``X`` are refused (they are
  not stutter invariant), and so are formulas with event atoms: inserting a step with no
  event changes an event atom's letter, which is not stuttering.
- **C3** (cycle proviso), on the fly: SPIN's stack proviso, applied by the fair
  search's product (``bridge.fairness.product``) per *product* state when it is first
  expanded: the ample set proposed here (``ample_candidate``) is replaced by every
  enabled step when one of the product states it leads to is on the search's Tarjan
  stack (which holds the whole DFS path; ``scc.iter_sccs_dense(on_stack=...)``).
  Every cycle of the reduced product then has a fully expanded state: let ``v`` be the
  cycle's state discovered first; by the white-path theorem its predecessor ``u`` on
  the cycle is a DFS descendant of ``v``, so ``v`` was on the stack when ``u`` was
  expanded, and the edge ``u -> v`` exists only if ``u`` was fully expanded. This is
  Peled's reduction on the product of the system with the automaton ("Combining
  partial order reductions with on-the-fly model-checking", CAV 1994; Holzmann and
  Peled, "An improvement in formal verification", FORTE 1994, for the stack proviso;
  Clarke, Grumberg and Peled, Model Checking, ch. 10, for C0-C3 and the theorem that
  they preserve LTL-X). It is also what paper 000 section 4 does: PAT's ``findSCC``
  (Fig. 5) "is modified to cope with partial order reduction, following the heuristic
  function in [7]" (Clarke, Grumberg and Peled). The choice is stored with the product state's edges, so the
  later searches of a fair SCC's parts (paper 000 Fig. 5) see the same successors,
  and a product state expanded outside such a search is fully expanded. Nothing is
  built before the search, so it still stops at the first counterexample.
  ``back_edges`` (the back edges of a process graph) is used by symmetry detection.

Fairness (paper 000 section 4): the reduction is applied with no fairness, with weak
fairness (event or process level) and with per-event annotations, and refused
(``ConfigurationError``) under strong local, strong global and process-level strong
fairness over the whole system (paper 001 section 6 gives a globally fair run with no
globally fair counterpart in any reduced graph). With weak fairness the reduced steps
must also be *owned* by their instance (their action is not an event name another
instance can engage in), and with annotations they must not be *fairness visible*
(000 section 4): not annotated, not sharing an annotated event's name, not entering or
leaving a location with an annotated edge, not writing what an annotated edge's guard
reads. Because an ample edge is independent of every other instance, moving it earlier
in a run only inserts stuttering positions into the enabled/engaged history of every
other action; weakly fair runs keep a weakly fair representative (Peled's construction,
where C3 forces every postponed step to be taken). Fairness must be judged on the full
enabled sets: ``enabled_actions(state)`` returns them for the fairness engine.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bridge.diagnostics import ConfigurationError
from bridge.ir import FairnessMark, Process, Run, TransitionSystem
from bridge.ir.expr import If, While
from bridge.ir.property import Fairness, Ltl
from bridge.reductions.dependencies import (
    EVERYTHING,
    EdgeAccess,
    EdgeKey,
    Observation,
    _event_may_match,
    _touches,
    analyse_edges,
    conflicts_across_instances,
    event_name,
    is_visible,
    observe_formula,
)
from bridge.semantics.successors import StateSpace, StateVector, Step

SOUND_FAIRNESS = frozenset({Fairness.NONE, Fairness.WEAK, Fairness.PROCESS_WEAK})


def por_refusal(
    fairness: Fairness,
    formula: Ltl | None,
    system: TransitionSystem,
    annotations: Sequence[tuple[FairnessMark, str]] = (),
) -> str | None:
    """Return why partial order reduction cannot be used soundly, or None if it can."""
    if fairness not in SOUND_FAIRNESS:
        return (
            f"partial order reduction is unsound under {fairness.value} fairness over the "
            "whole system (paper 001 section 6; paper 000 section 4): it was not applied"
        )
    observed = observe_formula(system, formula)
    if observed.uses_next:
        return "partial order reduction needs a formula without X (next): it was not applied"
    if observed.events:
        return (
            "partial order reduction is not applied to formulas with event atoms "
            f"({', '.join(sorted(observed.events))}): an invisible step changes their letter"
        )
    return None


@dataclass
class PorStatistics:
    """How often a state was reduced (ample set smaller than the enabled steps)."""

    states: int = 0
    transitions: int = 0
    expanded: int = 0
    reduced: int = 0
    steps_pruned: int = 0
    notes: list[str] = field(default_factory=list)


def _uses_run_of(system: TransitionSystem) -> set[str]:
    names: set[str] = set()
    for p in system.processes:
        for e in p.edges:
            stack = list(e.effect)
            while stack:
                s = stack.pop()
                if isinstance(s, Run):
                    names.add(s.proctype)
                elif isinstance(s, If):
                    for _c, body in s.branches:
                        stack.extend(body)
                    stack.extend(s.otherwise)
                elif isinstance(s, While):
                    stack.extend(s.body)
    return names


def back_edges(process: Process) -> frozenset[int]:
    """Return the indices of the back edges of an iterative DFS of the process graph
    (from the initial location, then from any location not yet visited)."""
    succ: dict[int, list[tuple[int, int]]] = {loc.id: [] for loc in process.locations}
    for i, e in enumerate(process.edges):
        succ.setdefault(e.source, []).append((i, e.target))
        succ.setdefault(e.target, [])
    colour: dict[int, int] = {}  # 1 on stack, 2 done
    back: set[int] = set()
    roots = [process.initial] + [loc for loc in succ if loc != process.initial]
    for root in roots:
        if root in colour:
            continue
        colour[root] = 1
        stack: list[tuple[int, int]] = [(root, 0)]
        while stack:
            node, k = stack[-1]
            out = succ[node]
            if k == len(out):
                colour[node] = 2
                stack.pop()
                continue
            stack[-1] = (node, k + 1)
            idx, target = out[k]
            c = colour.get(target)
            if c == 1:
                back.add(idx)
            elif c is None:
                colour[target] = 1
                stack.append((target, 0))
    return frozenset(back)


class _Analysis:
    """The static part: which (template, location) pairs may be reduced, and why not."""

    def __init__(
        self,
        system: TransitionSystem,
        observed: Observation,
        fairness: Fairness,
        annotations: Sequence[tuple[FairnessMark, str]],
    ) -> None:
        self.system = system
        self.access = analyse_edges(system)
        procs = {p.name: p for p in system.processes}
        counts: dict[str, int] = {}
        for inst in system.instances:
            counts[inst.process] = counts.get(inst.process, 0) + 1
        for name in _uses_run_of(system):
            counts[name] = counts.get(name, 0) + 2
        self.counts = counts
        self.dependent = self._dependent_edges(procs)
        annotated = self._annotated(procs, annotations)
        owned_required = fairness in (Fairness.WEAK,)
        self.reducible: dict[tuple[str, int], bool] = {}
        for p in system.processes:
            atomic = {loc.id for loc in p.locations if loc.atomic}
            annotated_locs = {p.edges[i].source for i in annotated.get(p.name, ())}
            ann_reads: set = set()
            for q in system.processes:
                for i in annotated.get(q.name, ()):
                    ann_reads |= self._guard_reads(q, i)
            ann_names = {
                event_name(q.edges[i]) for q in system.processes for i in annotated.get(q.name, ())
            } - {None}
            for loc in p.locations:
                ok = loc.id not in atomic
                for i, e in enumerate(p.edges):
                    if not ok:
                        break
                    if e.source != loc.id:
                        continue
                    acc = self.access[(p.name, i)]
                    ok = not (
                        acc.sync
                        or e.target in atomic
                        or (p.name, i) in self.dependent
                        or is_visible(acc, p.name, e, observed)
                        or (owned_required and not self._owned(p, i, procs))
                        or (
                            bool(annotated)
                            and (
                                i in annotated.get(p.name, ())
                                or e.source in annotated_locs
                                or e.target in annotated_locs
                                or _event_may_match(event_name(e), ann_names)
                                or _touches(ann_reads, acc.writes)
                            )
                        )
                    )
                self.reducible[(p.name, loc.id)] = ok

    def _guard_reads(self, p: Process, i: int) -> set:
        # enabling condition reads ~ the edge's reads (over-approximation)
        return set(self.access[(p.name, i)].reads)

    def _annotated(
        self, procs: dict[str, Process], annotations: Sequence[tuple[FairnessMark, str]]
    ) -> dict[str, set[int]]:
        names = [n for _m, n in annotations]
        out: dict[str, set[int]] = {}
        for p in procs.values():
            for i, e in enumerate(p.edges):
                if e.fairness is not None or (names and _event_may_match(event_name(e), names)):
                    out.setdefault(p.name, set()).add(i)
                elif names and e.label is not None and e.label in names:
                    out.setdefault(p.name, set()).add(i)
        return out

    def _owned(self, p: Process, i: int, procs: dict[str, Process]) -> bool:
        """True if no edge of another instance can engage the same action."""
        name = event_name(p.edges[i])
        if name is None or self.system.language.value == "promela":
            return True  # tau steps and Promela statements are per instance
        for q in procs.values():
            for e in q.edges:
                if q.name == p.name and self.counts.get(p.name, 1) <= 1:
                    continue
                other = event_name(e)
                if other is None:
                    continue
                if _event_may_match(name, [other.removesuffix(".*")]) or _event_may_match(
                    other, [name.removesuffix(".*")]
                ):
                    return False
        return True

    def _dependent_edges(self, procs: dict[str, Process]) -> set[EdgeKey]:
        """Return the edges that may depend on some edge of another instance."""

        def coarse(acc: EdgeAccess, proc: str) -> set[tuple]:
            keys: set[tuple] = set()
            for a in acc.reads | acc.writes:
                if a[0] == "g":
                    keys.add(("g", a[1]))
                elif a[0] == "chan":
                    keys.add(("chan",))
                elif a[0] in ("pc", "remote-l"):
                    keys.add(("proc", a[1]))
                elif a[0] == "procs":
                    keys.add(("procs",))
            keys.add(("proc", proc))  # its own location and locals, seen from outside
            return keys

        by_key: dict[tuple, list[EdgeKey]] = {}
        everything: list[EdgeKey] = []
        for key, acc in self.access.items():
            if EVERYTHING in acc.reads or EVERYTHING in acc.writes:
                everything.append(key)
            for k in coarse(acc, key[0]):
                by_key.setdefault(k, []).append(key)
        dependent: set[EdgeKey] = set()
        for key, acc in self.access.items():
            proc = key[0]
            multi = self.counts.get(proc, 1) > 1

            def other(k: EdgeKey, proc: str = proc, multi: bool = multi) -> bool:
                return k[0] != proc or multi

            if any(other(k) for k in everything):
                dependent.add(key)
                continue
            candidates: set[EdgeKey] = set()
            for k in coarse(acc, proc):
                if k == ("proc", proc):
                    # only edges that look into this template's instances
                    candidates.update(
                        c for c in by_key.get(k, ()) if c[0] != proc
                    )
                    continue
                candidates.update(by_key.get(k, ()))
            for c in candidates:
                if not other(c):
                    continue
                if conflicts_across_instances(acc, proc, self.access[c], c[0]):
                    dependent.add(key)
                    break
        return dependent


class PartialOrderReduction:
    """A ``StateSpace`` wrapper that proposes ample sets to the fair search's product.

    ``successors(state)`` returns *every* enabled step: alone, the wrapper is the full
    space (always sound). The reduction happens on the fly in the product
    (``bridge.fairness.product``): when a product node is first expanded, the product
    asks ``ample_candidate(state, steps)`` for the steps of one qualifying instance
    (C0-C2) and keeps them unless one of the product successors they lead to is on the
    search's Tarjan stack (C3, the stack proviso, per product node). Nothing is built
    ahead of the search, so it can stop at the first counterexample.

    Everything the wrapper does not define (``predicate``, ``state_key``,
    ``instance_names``...) is delegated to the wrapped space. ``max_states`` is kept
    for callers that pass it; the product's own ``max_states`` bounds the search.
    """

    def __init__(
        self,
        space: StateSpace,
        system: TransitionSystem,
        formula: Ltl | None,
        fairness: Fairness = Fairness.NONE,
        annotations: Sequence[tuple[FairnessMark, str]] = (),
        max_states: int | None = None,
    ) -> None:
        refusal = por_refusal(fairness, formula, system, annotations)
        if refusal is not None:
            raise ConfigurationError(refusal)
        self._space = space
        self._system = system
        self._analysis = _Analysis(system, observe_formula(system, formula), fairness, annotations)
        self._templates = [inst.process for inst in system.instances]
        self._procs = {p.name: p for p in system.processes}
        self._max_states = max_states
        self.statistics = PorStatistics()

    # -- the protocol -------------------------------------------------------------

    def initial_states(self) -> Sequence[StateVector]:
        """Return the wrapped space's initial states."""
        return self._space.initial_states()

    def successors(self, state: StateVector) -> Sequence[tuple[Step, StateVector]]:
        """Return every step enabled in ``state`` (the product reduces them, through
        ``ample_candidate``, with the stack proviso of its own search)."""
        return self._space.successors(state)

    def is_terminal(self, state: StateVector) -> bool:
        return self._space.is_terminal(state)

    def is_valid_end(self, state: StateVector) -> bool:
        return self._space.is_valid_end(state)

    def valuation(self, state: StateVector) -> dict[str, Any]:
        return self._space.valuation(state)

    def action_name(self, action: Hashable) -> str:
        return self._space.action_name(action)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._space, name)

    # -- the reduction, asked for by the product -----------------------------------

    def ample_candidate(
        self, state: StateVector, full: Sequence[tuple[Step, StateVector]]
    ) -> Sequence[tuple[Step, StateVector]]:
        """Return the ample set of ``state`` under C0-C2 (a subsequence of ``full``, the
        steps enabled in ``state``), or ``full`` when no instance qualifies. The caller
        must apply the cycle proviso C3 (the product does, per product node)."""
        ample = self.ample(state, full)
        stats = self.statistics
        stats.states += 1
        stats.expanded += 1
        stats.transitions += len(ample)
        if len(ample) < len(full):
            stats.reduced += 1
            stats.steps_pruned += len(full) - len(ample)
        return ample

    # -- extras ---------------------------------------------------------------------

    def full_successors(self, state: StateVector) -> Sequence[tuple[Step, StateVector]]:
        """Return every enabled step (no reduction), e.g. to judge fairness."""
        return self._space.successors(state)

    def enabled_processes(self, state: StateVector) -> frozenset[int]:
        """Return the instances that can move in ``state`` in the unreduced space."""
        return frozenset(p for step, _ in self._space.successors(state) for p in step.processes)

    def enabled_actions(self, state: StateVector) -> frozenset[Hashable]:
        """Return the actions enabled in ``state`` in the *unreduced* space: fairness
        (weak, annotations) must be judged on these, not on the ample set."""
        return frozenset(step.action for step, _ in self._space.successors(state))

    def ample(
        self, state: StateVector, full: Sequence[tuple[Step, StateVector]]
    ) -> Sequence[tuple[Step, StateVector]]:
        """Return the ample subset of ``full`` (the steps enabled in ``state``) under
        C0-C2: the steps of the qualifying instance with the fewest steps, else
        ``full`` (C3 is the caller's: ``ample_candidate``)."""
        if len(full) <= 1:
            return full
        by_instance: dict[int, list[tuple[Step, StateVector]]] = {}
        blocked: set[int] = set()
        for pair in full:
            step = pair[0]
            if len(step.processes) != 1 or not step.edges or step.stutter:
                blocked.update(step.processes)
                continue
            inst = step.processes[0]
            if any(e[0] != inst for e in step.edges):
                blocked.add(inst)
                continue
            by_instance.setdefault(inst, []).append(pair)
        for inst, steps in sorted(by_instance.items(), key=lambda kv: (len(kv[1]), kv[0])):
            if inst in blocked or len(steps) == len(full):
                continue
            if self._qualifies(inst, steps, state):
                return steps
        return full

    def _qualifies(
        self, inst: int, steps: Sequence[tuple[Step, StateVector]], state: StateVector
    ) -> bool:
        proc = self._template(inst, state)
        if proc is None:
            return False
        sources = set()
        for step, _ in steps:
            for _i, edge in step.edges:
                if edge < 0 or edge >= len(proc.edges):
                    return False
                sources.add(proc.edges[edge].source)
        if len(sources) != 1:
            return False
        return self._analysis.reducible.get((proc.name, sources.pop()), False)

    def _template(self, inst: int, state: StateVector) -> Process | None:
        """Return the process template of instance ``inst`` in ``state``."""
        process_of = getattr(self._space, "process_of", None)
        if process_of is not None:
            try:
                found = process_of(inst, state)
            except (IndexError, KeyError):
                return None
            found = getattr(found, "process", found)
            return found if isinstance(found, Process) else None
        if inst >= len(self._templates):
            return None  # a dynamically created instance: template unknown here
        return self._procs.get(self._templates[inst])

    def reducible_locations(self) -> dict[tuple[str, int], bool]:
        """Return (template, location) -> may that location give an ample set."""
        return dict(self._analysis.reducible)
