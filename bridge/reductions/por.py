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
  atoms read, its event matches no event atom, and it neither enters nor leaves an
  atomic location. Formulas with ``X`` are refused, and so are formulas with event atoms
  that can tell where a step without a formula event is inserted
  (``_letters.tau_robustness``: a reordered invisible step reads ``(L, {})`` right after
  a letter with state part ``L``; ``[]<> work.0`` and ``[](a -> <> b)`` cannot see that,
  ``[](w -> (w U p))`` can and is refused).
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

Ample sets. Under weak fairness (event or process level) the ample set is the
enabled steps of one instance whose every edge at its location is local and independent
of every other instance (the conditions above). With no whole-system fairness (the
formula alone, or per-event annotations) it may be the enabled steps of a set ``S`` of
instances closed under: the barrier partners of every edge leaving an ``S`` location
(any instance that has the event in its alphabet), and every instance with an edge that
conflicts in data with such an edge (``conflicts_across_instances``). A step outside
the ample set then involves only instances outside ``S``, none of which can enable,
disable or interfere with an ``S`` edge (their partners are in ``S``; their data is
disjoint), which is C1 for synchronising systems (Valmari's stubborn sets, Peled's
persistent sets); the smallest such set found from one enabled instance is proposed.
This is what reduces Milner's cyclic scheduler (000 Table 3: ``ms`` with annotations):
its steps are barriers ``a.i``, ``b.i``, ``c.i`` between two instances.

Fairness (paper 000 section 4). Refused (``ConfigurationError``, by name) under strong
local, strong global and process-level strong fairness over the whole system: paper
001 section 6 gives a globally fair run with no globally fair counterpart in any
reduced graph, and 000 section 4 a strong-local one. Applied with no fairness, with
weak fairness (event or process level: the reduced steps must also be *owned* by their
instance, their action not an event another instance can engage in; Peled's
construction, where C3 forces every postponed step to be taken, keeps a weakly fair
representative) and with per-event annotations ``f``/``wf``/``sf`` (000 Fig. 11). For
annotations every step of a strict ample set must also satisfy one of:

(a) it cannot *enable* an annotated event (``_enabling.may_enable`` is empty: no edge
    of its target location, no annotated guard reading what it writes, is annotated);
(b) it is *inevitable* (no infinite run keeps it enabled without taking it) and every
    annotated event it may enable is *stable* (only its own occurrence disables it).

Annotated events themselves may be in ample sets: fairness does not need their order,
only how often they happen and are enabled. Why this is sound. Let ``rho`` be a fair
accepting run of the full space and ``rho'`` the reduced run Peled's construction
builds from it (Clarke, Grumberg and Peled, ch. 10): every step of ``rho`` is taken in
``rho'`` (C3 puts a fully expanded state on every cycle, and there the construction
takes the next step of ``rho``), visible steps in the same order, and the only extra
steps are ample steps independent of the whole rest of ``rho`` (so enabled forever in
``rho`` and never taken there). ``rho'`` is accepting: it differs from ``rho`` by tau
letters only. Fairness, for an annotated event ``a`` that ``rho`` takes finitely often
(``rho'`` takes it as often, plus extra steps, which only help): every state of
``rho'`` is a state ``s_k`` of ``rho`` (with ``k`` unbounded along ``rho'``) plus
ample steps moved ahead of it or added (they commute with what they pass). If those
steps cannot enable ``a`` (a), ``a`` is enabled in ``rho'`` at most where it is in the
matching ``s_k``, so wf/sf/f hold in ``rho'`` as in ``rho``. If one of them enabled a
stable ``a`` (b), then ``a`` stays enabled in ``rho'`` until taken; that step is not an
extra one (it is inevitable, and extra steps are enabled forever without being taken),
and from then on ``a`` is enabled forever in ``rho`` too: a late state ``s_M`` of
``rho`` plus the extra steps taken so far equals this state of ``rho'`` plus steps
that are not ``a`` (which keep a stable ``a`` enabled), and extra steps cannot enable
``a`` (they are of kind (a)), so ``a`` is enabled in ``s_M``: ``rho`` would not be fair. So ``rho'`` is a fair accepting run of the reduced space;
conversely a reduced run is a full run, and its fairness is judged on the *full*
enabled sets (``enabled_actions``, ``full_successors``: the fair checker must use them,
``ReductionOptions.full_enabled_sets``). Paper 000 calls a step that enables or
disables an annotated event *fairness visible* and keeps it out of ample sets; (a)
allows disabling, (b) allows enabling where the model forces it, which is what the
cyclic scheduler needs: ``work.i`` enables ``sf(b.i)``, and ``b.i`` (stable) cannot wait
forever because the ring stops behind it.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bridge.diagnostics import ConfigurationError
from bridge.ir import FairnessMark, Process, Run, TransitionSystem
from bridge.ir.expr import If, While
from bridge.ir.property import Fairness, Ltl
from bridge.reductions._enabling import EnablingAnalysis, annotated_events
from bridge.reductions._letters import tau_robustness
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
    where = tau_robustness(formula)
    if where is not None:
        return (
            "partial order reduction is not applied: the formula's event atoms "
            f"({', '.join(sorted(observed.events))}) can tell where a step without a "
            f"formula event is inserted (in '{where}'), so reordering invisible steps "
            "could change its truth"
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
        ann_reads: set = set()
        for q in system.processes:
            for i in annotated.get(q.name, ()):
                ann_reads |= self._guard_reads(q, i)
        ann_names = {
            event_name(q.edges[i]) for q in system.processes for i in annotated.get(q.name, ())
        } - {None}
        for p in system.processes:
            atomic = {loc.id for loc in p.locations if loc.atomic}
            annotated_locs = {p.edges[i].source for i in annotated.get(p.name, ())}
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


class _Persistent:
    """Static facts for ample sets of several instances (no whole-system fairness):
    per static instance and edge, the instances its ample set must contain (barrier
    partners, data conflicts), whether it may leave an ample set (C2, atomicity), and
    the annotated events it may enable."""

    def __init__(
        self,
        system: TransitionSystem,
        access: dict[EdgeKey, EdgeAccess],
        observed: Observation,
        annotations: Sequence[tuple[FairnessMark, str]],
    ) -> None:
        procs = {p.name: p for p in system.processes}
        self.processes = [procs[inst.process] for inst in system.instances]
        n = len(self.processes)
        by_template: dict[str, list[int]] = {}
        for k, inst in enumerate(system.instances):
            by_template.setdefault(inst.process, []).append(k)
        self.annotations = annotated_events(system, annotations)
        self.enabling = EnablingAnalysis(system, access, self.annotations)
        # event name -> instances having it in an alphabet of a Parallel operand
        alphabet_members: dict[str, set[int]] = {}
        for name, groups in self.enabling._groups.items():
            for members in groups:
                alphabet_members.setdefault(name, set()).update(members)
        conflicts = _template_conflicts(access, {t: len(ks) for t, ks in by_template.items()})
        self.partners: list[list[frozenset[int] | None]] = []
        self.movable: list[list[bool]] = []
        self.out: list[dict[int, list[int]]] = []
        for k, proc in enumerate(self.processes):
            atomic = {loc.id for loc in proc.locations if loc.atomic}
            row: list[frozenset[int] | None] = []
            movable: list[bool] = []
            out: dict[int, list[int]] = {}
            for i, e in enumerate(proc.edges):
                out.setdefault(e.source, []).append(i)
                acc = access[(proc.name, i)]
                others: set[int] = set()
                for template in conflicts.get((proc.name, i), ()):
                    others.update(by_template.get(template, ()))
                blocked = EVERYTHING in acc.reads or EVERYTHING in acc.writes
                if acc.sync:
                    name = event_name(e)
                    if e.comm is not None or name is None or name.endswith(".*"):
                        blocked = True  # a rendezvous or an unknown barrier
                    else:
                        others.update(alphabet_members.get(name, ()))
                others.discard(k)
                row.append(None if blocked else frozenset(others))
                movable.append(not (
                    e.source in atomic or e.target in atomic
                    or is_visible(acc, proc.name, e, observed)
                ))
            self.partners.append(row)
            self.movable.append(movable)
            self.out.append(out)
        self.count = n

    def closure(self, start: int, location: Any) -> frozenset[int] | None:
        """Return the smallest instance set containing ``start`` closed under partners
        of the edges at their current locations (``location(k)``), or None."""
        members = {start}
        work = [start]
        while work:
            k = work.pop()
            if k >= self.count:
                return None
            loc = location(k)
            if loc is None:
                return None
            for i in self.out[k].get(loc, ()):
                need = self.partners[k][i]
                if need is None:
                    return None
                for m in need:
                    if m not in members:
                        members.add(m)
                        work.append(m)
        return frozenset(members)

    def step_may_leave(self, step: Step) -> bool:
        """Return True if ``step`` may be in a strict ample set: invisible (C2), and for
        annotations, enabling no annotated event, or inevitable and enabling only stable
        ones (module docstring)."""
        enables: set[str] = set()
        for k, i in step.edges:
            if k >= self.count or i < 0 or not self.movable[k][i]:
                return False
            if self.annotations:
                enables |= self.enabling.may_enable(k, i)
        if not enables:
            return True
        if not all(self.enabling.stable(name) for name in enables):
            return False
        return self.enabling.inevitable(step.event, step.edges)


def _template_conflicts(
    access: dict[EdgeKey, EdgeAccess], counts: dict[str, int]
) -> dict[EdgeKey, set[str]]:
    """Return, per edge, the templates one of whose edges (in another instance) may be
    dependent on it (``conflicts_across_instances``), indexed by shared data."""
    def coarse(a: tuple) -> tuple:
        if a[0] == "g":
            return ("g", a[1])
        return ("procs",) if a[0] in ("procs", "procs-end") else (a[0],)

    by_key: dict[tuple, list[EdgeKey]] = {}
    for key, acc in access.items():
        for a in acc.reads | acc.writes:
            if a[0] in ("l", "block"):
                continue
            by_key.setdefault(coarse(a), []).append(key)
        by_key.setdefault(("pc",), []).append(key)  # moves, seen by P@label readers
    out: dict[EdgeKey, set[str]] = {}
    everything = [k for k, acc in access.items() if EVERYTHING in acc.reads | acc.writes]
    for key, acc in access.items():
        found: set[str] = set()
        candidates: set[EdgeKey] = set(everything)
        for a in acc.reads | acc.writes:
            if a[0] in ("l", "block"):
                continue
            candidates.update(by_key.get(coarse(a), ()))
        if any(r[0] in ("pc", "remote-l") for r in acc.reads):
            candidates.update(by_key.get(("pc",), ()))
        for other in candidates:
            if other[0] in found:
                continue
            if other[0] == key[0] and counts.get(key[0], 1) <= 1:
                continue  # the same single instance
            if conflicts_across_instances(acc, key[0], access[other], other[0]):
                found.add(other[0])
        out[key] = found
    return out


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
        observed = observe_formula(system, formula)
        self._analysis = _Analysis(system, observed, fairness, annotations)
        # ample sets of several instances: with no whole-system fairness only
        self._persistent = (
            _Persistent(system, self._analysis.access, observed, annotations)
            if fairness is Fairness.NONE else None
        )
        self._locations: dict[int, dict[int, int]] = {}  # template index -> loc index -> id
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

    def ample_alternatives(
        self, state: StateVector, full: Sequence[tuple[Step, StateVector]]
    ) -> list[list[tuple[Step, StateVector]]]:
        """Return the ample sets of ``state`` under C0-C2 after the one
        ``ample_candidate`` proposes (``ample_candidates`` from the second on), for a
        product whose first candidate failed the cycle proviso C3: it tries these in
        order before expanding fully (Clarke, Grumberg and Peled's heuristic, which PAT
        and SPIN follow; paper 000 section 4)."""
        return self.ample_candidates(state, full)[1:]

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
        C0-C2: the first of ``ample_candidates``, else ``full`` (C3 is the caller's:
        ``ample_candidate``)."""
        if len(full) > 1 and self._persistent is not None:
            return self._persistent_candidates(state, full, first=True)[0] or full
        candidates = self.ample_candidates(state, full)
        return candidates[0] if candidates else full

    def ample_candidates(
        self, state: StateVector, full: Sequence[tuple[Step, StateVector]]
    ) -> list[list[tuple[Step, StateVector]]]:
        """Return every ample set found for ``state`` under C0-C2 (strict subsets of
        ``full``), fewest steps first; deterministic in ``state``.

        A search should keep the first candidate whose successors pass the cycle
        proviso C3 and expand fully only when none does: the heuristic of Clarke,
        Grumberg and Peled that PAT follows (paper 000 section 4) and SPIN's. Trying
        the first candidate only is sound but weak on cyclic systems: on Milner's
        cyclic scheduler with annotations, N = 10, a depth-first search that tries
        every candidate stores 141 states, one that tries the first only 29158 (the
        full space has 787320 states, 4 N 3^(N-1)); see ``benchmarks/reductions.py``.
        """
        if len(full) <= 1:
            return []
        if self._persistent is not None:
            return self._persistent_candidates(state, full)
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
        out = []
        for inst, steps in sorted(by_instance.items(), key=lambda kv: (len(kv[1]), kv[0])):
            if inst in blocked or len(steps) == len(full):
                continue
            if self._qualifies(inst, steps, state):
                out.append(steps)
        return out

    def _persistent_candidates(
        self, state: StateVector, full: Sequence[tuple[Step, StateVector]], first: bool = False
    ) -> list[list[tuple[Step, StateVector]]]:
        """Return the enabled steps of each partner-closed instance set grown from one
        enabled instance, when they may all leave (module docstring), fewest first.
        ``first``: only the first of them (``[[]]`` when there is none), found without
        judging the sets that cannot be smaller."""
        persistent = self._persistent
        assert persistent is not None
        none: list[list[tuple[Step, StateVector]]] = [[]] if first else []
        counts: dict[int, int] = {}
        for step, _t in full:
            if step.stutter or not step.edges:
                return none
            for k in step.processes:
                counts[k] = counts.get(k, 0) + 1
        location = self._location_function(state)
        tried: set[frozenset[int]] = set()
        found: list[tuple[int, int, list[tuple[Step, StateVector]]]] = []
        for k in sorted(counts, key=lambda x: (counts[x], x)):
            members = persistent.closure(k, location)
            if members is None or members in tried:
                continue
            tried.add(members)
            ample = [pair for pair in full if all(p in members for p in pair[0].processes)]
            if not ample or len(ample) == len(full):
                continue
            if first and found and len(ample) >= found[0][0]:
                continue
            if all(persistent.step_may_leave(step) for step, _t in ample):
                if first:
                    found = [(len(ample), 0, ample)]
                    if len(ample) == 1:
                        break
                else:
                    found.append((len(ample), len(found), ample))
        if first:
            return [found[0][2]] if found else none
        return [ample for _n, _i, ample in sorted(found, key=lambda x: (x[0], x[1]))]

    def _location_function(self, state: StateVector) -> Any:
        """Return instance -> its location id in ``state`` (None if unknown)."""
        space = self._space
        layout_of = getattr(space, "layout_of", None)
        if layout_of is None:
            return lambda k: None
        rl = layout_of(state)
        bases = rl.bases
        templates = rl.templates
        processes = space.layout.processes  # type: ignore[attr-defined]
        cache = self._locations

        def location(k: int) -> int | None:
            if k >= len(bases):
                return None
            t = templates[k]
            ids = cache.get(t)
            if ids is None:
                ids = {index: loc for loc, index in processes[t].location_index.items()}
                cache[t] = ids
            return ids.get(state[bases[k]])

        return location

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
