"""Fairness conditions: one ``prune`` per notion behind one interface (paper 000 Figs. 7,
8, 9, 11; paper 001 Theorem 1 and Lemma 2; paper 002 section 4).

A condition looks at a strongly connected subgraph of the product (its nodes and its
internal edges) and returns the nodes that cannot belong to any fair subgraph of it
(``prune``): none (the subgraph is fair), all of them (no subgraph is fair), or some (the
rest must be re-decomposed). The search in ``emptiness.py`` is shared by every notion.

What fairness talks about (DESIGN.md section 3):
- *actions*: ``Step.action`` (CSP#: the event name; Promela: a statement of a process
  instance). ``enabled(s)`` is the set of actions of the steps of system state ``s``.
  Tau steps (``Step.tau``) always count as engaged (PAT), so they never make a subgraph
  unfair under the action-based notions;
- *steps* ``(s, step, s')`` for strong global fairness;
- *processes*: ``Step.processes`` for process-level fairness (002 Defs. 4-5);
- *units* of annotations: ``wf``/``sf``/``f`` on an event name (every step whose event
  is that name), ``wl``/``sl`` on one edge occurrence (every step that takes it).
The stutter step of a deadlocked or terminated state enables and engages nothing: every
notion accepts the stutter loop (a finite run is fair when it ends), except an ``f``
annotation, which by definition demands its event infinitely often.

Enabledness is that of the system state (the automaton never disables a step), and
engagement is what the subgraph's edges do.

Early reports (``onthefly.py``). Besides ``prune``, each notion describes itself to the
on-the-fly emptiness check by *items*: ``step_items(k)`` gives the items step ``k``
makes enabled (in the state it leaves) and the items it engages, and ``item_mark(item)``
what is required of an item: ``REQUIRE_WEAK`` (enabled in every state of the loop =>
engaged in it), ``REQUIRE_STRONG`` (enabled in some state of the loop => engaged),
``REQUIRE_ALWAYS`` (engaged, unconditionally: ``f``), or nothing. ``closed_under_steps``
asks, in addition, that the loop take every step of every system state it visits
(strong global). The search keeps, per partial component, the items enabled in all its
states, in some state, and engaged by its internal edges; a part meeting every
requirement (and every acceptance set) is a fair accepting loop at once. Each class
docstring states its early condition; the argument that it is sound is in
``onthefly.py``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass

from bridge.fairness.product import Product
from bridge.ir.model import FairnessMark
from bridge.ir.property import Fairness
from bridge.ir.verdict import FairnessWitness

Edge = tuple[int, int, int, int]  # (source node, target node, step id, acceptance mask)
LoopEdge = tuple[int, int, int]  # (source node, step id, target node)

# What an item requires of a fair loop (``item_mark``; see the module docstring).
REQUIRE_WEAK = 1  # enabled in every state of the loop => engaged in the loop
REQUIRE_STRONG = 2  # enabled in some state of the loop => engaged in the loop
REQUIRE_ALWAYS = 3  # engaged in the loop (an ``f`` annotation)
NO_ITEMS: tuple[tuple[Hashable, ...], tuple[Hashable, ...]] = ((), ())


@dataclass(frozen=True)
class Deficit:
    """Something a candidate loop lacks: met by taking an edge with one of ``keys``
    (see ``edge_keys``) or by visiting one of ``nodes``."""

    keys: frozenset[Hashable] = frozenset()
    nodes: frozenset[int] = frozenset()


@dataclass
class Subgraph:
    """A strongly connected subgraph of the product: ``nodes`` and internal ``edges``
    (a list, or the flat ``components.EdgeList``; iterated, never indexed).
    ``entry``: a path ``(initial node, [(source, step id, target), ...])`` from an
    initial node into ``nodes``, when the search that found the subgraph knows one."""

    nodes: set[int]
    edges: Collection[Edge]
    entry: tuple[int, list[LoopEdge]] | None = None


class FairnessCondition:
    """One fairness notion (or a conjunction). Subclasses implement ``prune``,
    ``required_keys`` and ``edge_keys``.

    ``prune(g)`` returns the set of nodes of ``g`` that lie in no fair subgraph of ``g``
    (soundness: a node of a fair subgraph is never returned). ``required_keys(g)``, for a
    fair ``g``, lists what a loop through ``g`` must engage (each key is met by some edge
    of ``g``); ``edge_keys(source, step, target)`` the keys one edge meets.
    ``needs_all_states``: a fair loop must also visit every node of ``g`` (notions that
    depend on what is enabled along the loop).
    """

    name = "none"
    needs_all_states = False
    # Whether ``build_lasso`` should grow a small loop from ``loop_deficits`` (False
    # when a fair loop must cover the whole subgraph anyway, as for strong global).
    refine = True
    # Early reports: the notion has requirements on items (``step_items``), and a fair
    # loop takes every step of every system state it visits (strong global).
    uses_items = False
    closed_under_steps = False

    def __init__(self, product: Product) -> None:
        self.product = product

    @property
    def version(self) -> int:
        """Return a number that grows when ``item_mark`` may answer differently
        (annotations learnt from the model while the search meets their steps)."""
        return 0

    def step_items(self, step: int) -> tuple[tuple[Hashable, ...], tuple[Hashable, ...]]:
        """Return ``(items step makes enabled, items it engages)`` for early reports."""
        return NO_ITEMS

    def item_mark(self, item: Hashable) -> int:
        """Return what a fair loop requires of ``item`` (``REQUIRE_*``; 0: nothing)."""
        return 0

    def required_items(self) -> tuple[Hashable, ...]:
        """Return the ``REQUIRE_ALWAYS`` items, met or not (an ``f`` annotation on an
        event no step has is never met)."""
        return ()

    def clear_caches(self) -> None:
        """Forget per-system-state facts cached while judging a component."""
        self.product.clear_caches()

    def prune(self, g: Subgraph) -> set[int]:
        """Return the nodes of ``g`` that belong to no fair subgraph of ``g``."""
        return set()

    def required_keys(self, g: Subgraph) -> set[Hashable]:
        """Return the keys a fair loop through ``g`` must meet."""
        return set()

    def edge_keys(self, source: int, step: int, target: int) -> Iterable[Hashable]:
        """Return the keys met by the edge ``source --step--> target``."""
        return ()

    def loop_deficits(self, g: Subgraph, states: set[int], loop: Sequence[LoopEdge]) -> list[Deficit]:
        """Return why a loop through ``states`` taking ``loop`` (inside the fair ``g``) is
        not fair yet; each deficit can be met inside ``g``. Empty: the loop is fair."""
        return []

    def witness(self, loop: Sequence[tuple[int, int, int]]) -> FairnessWitness:
        """Return why ``loop`` (edges ``(source, step id, target)``) is fair."""
        p = self.product
        en_sets = [_enabled_actions(p, p.node_sys[u]) for u, _k, _v in loop]
        engaged_sets = [set() if p.steps[k].stutter else {p.step_action[k]}
                        for _u, k, _v in loop]
        return _witness(self.name, self.explain(), en_sets, engaged_sets,
                        lambda units: _names(p, units))

    def explain(self) -> str:
        """Return one sentence saying what the loop satisfies."""
        return "no fairness assumed: any accepting loop is a counterexample"


def _witness(notion: str, explanation: str, en_sets: Sequence[Iterable[Hashable]],
             engaged_sets: Sequence[Iterable[Hashable]],
             names: Callable[[Iterable[Hashable]], tuple[str, ...]]) -> FairnessWitness:
    """Return the witness of a loop from what each of its states enables and what each
    of its steps engages (``names`` prints a set of units, sorted)."""
    en_sets = [set(units) for units in en_sets]
    engaged_sets = [set(units) for units in engaged_sets]
    somewhere = set().union(*en_sets)
    everywhere = set.intersection(*en_sets) if en_sets else set()
    engaged = set().union(*engaged_sets)

    def ordered(units: set[Hashable]) -> tuple[tuple[str, ...], dict[Hashable, int]]:
        # the names as ``names`` prints them, and where each unit's name is among them
        printed = names(units)
        where: dict[str, int] = {}
        for i, name in enumerate(printed):
            where.setdefault(name, i)
        return printed, {u: where[names((u,))[0]] for u in units}

    somewhere_names, en_index = ordered(somewhere)
    engaged_names, engaged_index = ordered(engaged)
    return FairnessWitness(
        fairness=notion,
        enabled_somewhere=somewhere_names,
        enabled_everywhere=names(everywhere),
        engaged=engaged_names,
        explanation=explanation,
        enabled_at=tuple(tuple(sorted({en_index[u] for u in units})) for units in en_sets),
        engaged_at=tuple(tuple(sorted({engaged_index[u] for u in units}))
                         for units in engaged_sets),
    )


def _names(p: Product, actions: Iterable[int]) -> tuple[str, ...]:
    return tuple(sorted(p.space.action_name(p.actions[a]) for a in actions))


# ---------------------------------------------------------------------------------
# Cached per-system-state facts


def _enabled_actions(p: Product, s: int) -> frozenset[int]:
    """Return the non-tau actions enabled in system state ``s``."""
    cache = p.__dict__.setdefault("_fair_enabled_actions", {})
    hit = cache.get(s)
    if hit is None:
        hit = frozenset(p.step_action[k] for k in p.enabled_step_ids(s) if not p.steps[k].tau)
        cache[s] = hit
    return hit


def _enabled_processes(p: Product, s: int) -> frozenset[int]:
    """Return the processes that can move in system state ``s``."""
    cache = p.__dict__.setdefault("_fair_enabled_processes", {})
    hit = cache.get(s)
    if hit is None:
        hit = frozenset(q for k in p.enabled_step_ids(s) for q in p.steps[k].processes)
        cache[s] = hit
    return hit


def _weak_deficits(g: Subgraph, states: set[int], engaged: set[int],
                   enabled: Callable[[int], frozenset[int]], kind: str) -> list[Deficit]:
    """Return what a loop through ``states`` lacks for weak fairness: each action or
    process (``kind``) enabled in every one of ``states`` but never ``engaged`` in the
    loop, with the nodes of ``g`` where it is not enabled (where the loop could go)."""
    always: set[int] | None = None
    for n in states:
        en = enabled(n)
        always = set(en) if always is None else always & en
    out = []
    for x in sorted((always or set()) - engaged):
        away = frozenset(n for n in g.nodes if x not in enabled(n))
        out.append(Deficit(frozenset({(kind, x)}), away))
    return out


# ---------------------------------------------------------------------------------
# Event-level notions (paper 000 section 2.2)


class NoFairness(FairnessCondition):
    """Every accepting SCC is a counterexample."""


class WeakFairness(FairnessCondition):
    """Event-level weak fairness (000 Def. 2; prune of Fig. 7): the subgraph is unfair,
    with all its subgraphs, when an action enabled in every state is engaged nowhere.

    Early condition: every non-tau action enabled in all states of the part is engaged
    by an edge inside it (tau actions are never required, and a tau step engages its
    own action, as in ``prune``)."""

    name = Fairness.WEAK.value
    needs_all_states = True
    uses_items = True
    _mark = REQUIRE_WEAK

    def step_items(self, step: int) -> tuple[tuple[Hashable, ...], tuple[Hashable, ...]]:
        p = self.product
        item = ("action", p.step_action[step])
        return ((), (item,)) if p.steps[step].tau else ((item,), (item,))

    def item_mark(self, item: Hashable) -> int:
        return self._mark

    def _engaged(self, g: Subgraph) -> set[int]:
        p = self.product
        return {p.step_action[k] for _u, _v, k, _a in g.edges}

    def _always(self, g: Subgraph) -> set[int]:
        p = self.product
        always: set[int] | None = None
        for n in g.nodes:
            en = _enabled_actions(p, p.node_sys[n])
            always = set(en) if always is None else always & en
            if not always:
                break
        return always or set()

    def prune(self, g: Subgraph) -> set[int]:
        if self._always(g) - self._engaged(g):
            return set(g.nodes)
        return set()

    def required_keys(self, g: Subgraph) -> set[Hashable]:
        return {("action", a) for a in self._always(g)}

    def edge_keys(self, source: int, step: int, target: int) -> Iterable[Hashable]:
        return (("action", self.product.step_action[step]),)

    def loop_deficits(self, g: Subgraph, states: set[int], loop: Sequence[LoopEdge]) -> list[Deficit]:
        p = self.product
        engaged = {p.step_action[k] for _u, k, _v in loop}
        return _weak_deficits(g, states, engaged, lambda n: _enabled_actions(p, p.node_sys[n]),
                              "action")

    def explain(self) -> str:
        return "weak fairness: every action enabled in every state of the loop is engaged in it"


class StrongLocalFairness(WeakFairness):
    """Event-level strong fairness (000 Def. 3; prune of Fig. 8): a state enabling an
    action that the subgraph never engages is in no fair subgraph.

    Early condition: every non-tau action enabled in some state of the part is engaged
    by an edge inside it."""

    name = Fairness.STRONG_LOCAL.value
    _mark = REQUIRE_STRONG

    def prune(self, g: Subgraph) -> set[int]:
        p = self.product
        engaged = self._engaged(g)
        return {n for n in g.nodes if not _enabled_actions(p, p.node_sys[n]) <= engaged}

    def required_keys(self, g: Subgraph) -> set[Hashable]:
        p = self.product
        keys: set[Hashable] = set()
        for n in g.nodes:
            keys.update(("action", a) for a in _enabled_actions(p, p.node_sys[n]))
        return keys

    def loop_deficits(self, g: Subgraph, states: set[int], loop: Sequence[LoopEdge]) -> list[Deficit]:
        p = self.product
        engaged = {p.step_action[k] for _u, k, _v in loop}
        enabled: set[int] = set()
        for n in states:
            enabled |= _enabled_actions(p, p.node_sys[n])
        return [Deficit(frozenset({("action", a)})) for a in sorted(enabled - engaged)]

    def explain(self) -> str:
        return "strong local fairness: every action enabled somewhere in the loop is engaged in it"


class StrongGlobalFairness(FairnessCondition):
    """Strong global fairness (000 Def. 4, prune of Fig. 9; 001 Theorem 1, Lemma 2).

    The subgraph is fair iff every step ``(s, a, s')`` of every system state ``s`` it
    visits is taken by one of its edges. If it fails, so does every subgraph: a fair
    subgraph ``D`` of the SCC ``C`` has its system projection closed under steps, every
    node of ``C`` is reachable from ``D``, so ``C`` projects onto the same states and
    takes every step ``D`` takes (the proof of 001 Lemma 2). Hence all-or-nothing.

    Early condition (``closed_under_steps``): every node of the part is expanded and, for
    each of its system steps ``(s, step, s')``, has an edge inside the part that takes
    it. This asks each product node what ``prune`` asks of each system state, so it
    implies ``prune``'s condition; it may miss a part where another node of the same
    system state takes the step, and such a part is judged when its component is
    complete.
    """

    name = Fairness.STRONG_GLOBAL.value
    closed_under_steps = True
    # A loop taking every step of every system state it visits is closed under steps:
    # covering the required steps suffices, and nothing smaller is fair.
    needs_all_states = False
    refine = False

    def prune(self, g: Subgraph) -> set[int]:
        p = self.product
        engaged = {(p.node_sys[u], k, p.node_sys[v]) for u, v, k, _a in g.edges}
        seen: set[int] = set()
        for n in g.nodes:
            s = p.node_sys[n]
            if s in seen:
                continue
            seen.add(s)
            for k, t in p.system_steps(s):
                if (s, k, t) not in engaged:
                    return set(g.nodes)
        return set()

    def required_keys(self, g: Subgraph) -> set[Hashable]:
        p = self.product
        keys: set[Hashable] = set()
        for s in {p.node_sys[n] for n in g.nodes}:
            keys.update(("step", s, k, t) for k, t in p.system_steps(s))
        return keys

    def edge_keys(self, source: int, step: int, target: int) -> Iterable[Hashable]:
        p = self.product
        return (("step", p.node_sys[source], step, p.node_sys[target]),)

    def loop_deficits(self, g: Subgraph, states: set[int], loop: Sequence[LoopEdge]) -> list[Deficit]:
        p = self.product
        engaged = {(p.node_sys[u], k, p.node_sys[v]) for u, k, v in loop}
        out = []
        for s in sorted({p.node_sys[n] for n in states}):
            for k, t in p.system_steps(s):
                if (s, k, t) not in engaged:
                    out.append(Deficit(frozenset({("step", s, k, t)})))
        return out

    def explain(self) -> str:
        return (
            "strong global fairness: every step enabled in a state of the loop is taken "
            "in the loop (the loop's states are closed under the system's steps)"
        )


# ---------------------------------------------------------------------------------
# Process-level notions (paper 002 section 4: always / once / leave)


class ProcessWeakFairness(FairnessCondition):
    """Process-level weak fairness (002 Def. 4; Lemma 3): ``always(g) <= leave(g)``;
    all-or-nothing, since ``always`` shrinks and ``leave`` grows with the subgraph.

    Early condition: every process enabled in all states of the part (by any step, tau
    included) moves on an edge inside it."""

    name = Fairness.PROCESS_WEAK.value
    needs_all_states = True
    uses_items = True
    _mark = REQUIRE_WEAK

    def step_items(self, step: int) -> tuple[tuple[Hashable, ...], tuple[Hashable, ...]]:
        items = tuple(("process", q) for q in self.product.steps[step].processes)
        return items, items

    def item_mark(self, item: Hashable) -> int:
        return self._mark

    def _leave(self, g: Subgraph) -> set[int]:
        p = self.product
        return {q for _u, _v, k, _a in g.edges for q in p.steps[k].processes}

    def _always(self, g: Subgraph) -> set[int]:
        p = self.product
        always: set[int] | None = None
        for n in g.nodes:
            en = _enabled_processes(p, p.node_sys[n])
            always = set(en) if always is None else always & en
            if not always:
                break
        return always or set()

    def prune(self, g: Subgraph) -> set[int]:
        if self._always(g) - self._leave(g):
            return set(g.nodes)
        return set()

    def required_keys(self, g: Subgraph) -> set[Hashable]:
        return {("process", q) for q in self._always(g)}

    def edge_keys(self, source: int, step: int, target: int) -> Iterable[Hashable]:
        return tuple(("process", q) for q in self.product.steps[step].processes)

    def loop_deficits(self, g: Subgraph, states: set[int], loop: Sequence[LoopEdge]) -> list[Deficit]:
        p = self.product
        moved = {q for _u, k, _v in loop for q in p.steps[k].processes}
        return _weak_deficits(g, states, moved,
                              lambda n: _enabled_processes(p, p.node_sys[n]), "process")

    def witness(self, loop: Sequence[tuple[int, int, int]]) -> FairnessWitness:
        p = self.product
        en_sets = [_enabled_processes(p, p.node_sys[u]) for u, _k, _v in loop]
        engaged_sets = [set(p.steps[k].processes) for _u, k, _v in loop]
        return _witness(self.name, self.explain(), en_sets, engaged_sets,
                        lambda units: _process_names(p, units))

    def explain(self) -> str:
        return "process-level weak fairness: every process enabled in every state of the loop moves in it"


def _process_names(p: Product, procs: Iterable[int]) -> tuple[str, ...]:
    namer = getattr(p.space, "instance_name", None)
    out = []
    for q in sorted(procs):
        try:
            out.append(str(namer(q)) if callable(namer) else f"process {q}")
        except Exception:  # an instance id the space cannot name
            out.append(f"process {q}")
    return tuple(out)


class ProcessStrongFairness(ProcessWeakFairness):
    """Process-level strong fairness (002 Def. 5; Lemma 4 and ``bad(scg)``): a state
    where a process that never moves in the subgraph is enabled is pruned.

    Early condition: every process enabled in some state of the part moves inside it."""

    name = Fairness.PROCESS_STRONG.value
    _mark = REQUIRE_STRONG

    def prune(self, g: Subgraph) -> set[int]:
        p = self.product
        leave = self._leave(g)
        return {n for n in g.nodes if not _enabled_processes(p, p.node_sys[n]) <= leave}

    def required_keys(self, g: Subgraph) -> set[Hashable]:
        p = self.product
        keys: set[Hashable] = set()
        for n in g.nodes:
            keys.update(("process", q) for q in _enabled_processes(p, p.node_sys[n]))
        return keys

    def loop_deficits(self, g: Subgraph, states: set[int], loop: Sequence[LoopEdge]) -> list[Deficit]:
        p = self.product
        moved = {q for _u, k, _v in loop for q in p.steps[k].processes}
        enabled: set[int] = set()
        for n in states:
            enabled |= _enabled_processes(p, p.node_sys[n])
        return [Deficit(frozenset({("process", q)})) for q in sorted(enabled - moved)]

    def explain(self) -> str:
        return "process-level strong fairness: every process enabled somewhere in the loop moves in it"


# ---------------------------------------------------------------------------------
# Annotations (paper 000 section 4, Fig. 11)

StepUnits = Callable[[int], frozenset[Hashable]]


class AnnotatedFairness(FairnessCondition):
    """Per-event annotations (000 Fig. 11). ``units(step id)`` gives the annotation
    units a step engages; ``marks`` maps each unit to ``f``, ``wf``/``wl`` (weak) or
    ``sf``/``sl`` (strong). ``f``: engaged in the loop, or the subgraph is dropped;
    weak: enabled in every state implies engaged, else dropped; strong: a state enabling
    an unengaged strong unit is pruned.

    Early condition (per mark, Fig. 11): every ``f`` unit is engaged inside the part,
    every ``wf``/``wl`` unit enabled in all its states is engaged, every ``sf``/``sl``
    unit enabled in some state is engaged. Items are the units of ``units``; a subclass
    may report more units per step (``step_units``) as long as the marked ones among
    them are exactly ``units(step)``."""

    name = "annotations"
    uses_items = True

    def __init__(self, product: Product, marks: dict[Hashable, FairnessMark], units: StepUnits) -> None:
        super().__init__(product)
        self.marks = marks
        self.units = units
        self.unconditional = {u for u, m in marks.items() if m is FairnessMark.F}
        self.weak = {u for u, m in marks.items() if m in (FairnessMark.WF, FairnessMark.WL)}
        self.strong = {u for u, m in marks.items() if m in (FairnessMark.SF, FairnessMark.SL)}
        self.needs_all_states = bool(self.weak or self.strong)
        self._enabled: dict[int, frozenset[Hashable]] = {}

    def step_units(self, step: int) -> frozenset[Hashable]:
        """Return the units step ``step`` engages, marked or not (see the docstring)."""
        return self.units(step)

    def step_items(self, step: int) -> tuple[tuple[Hashable, ...], tuple[Hashable, ...]]:
        items = tuple(self.step_units(step))
        return items, items

    def item_mark(self, item: Hashable) -> int:
        mark = self.marks.get(item)
        if mark is None:
            return 0
        if mark is FairnessMark.F:
            return REQUIRE_ALWAYS
        if mark in (FairnessMark.SF, FairnessMark.SL):
            return REQUIRE_STRONG
        return REQUIRE_WEAK

    def required_items(self) -> tuple[Hashable, ...]:
        return tuple(u for u, m in self.marks.items() if m is FairnessMark.F)

    def clear_caches(self) -> None:
        super().clear_caches()
        self._enabled.clear()

    def _enabled_units(self, s: int) -> frozenset[Hashable]:
        hit = self._enabled.get(s)
        if hit is None:
            p = self.product
            acc: set[Hashable] = set()
            for k in p.enabled_step_ids(s):
                acc.update(self.units(k))
            hit = frozenset(acc)
            self._enabled[s] = hit
        return hit

    def _engaged(self, g: Subgraph) -> set[Hashable]:
        out: set[Hashable] = set()
        for _u, _v, k, _a in g.edges:
            out.update(self.units(k))
        return out

    def _always_weak(self, g: Subgraph) -> set[Hashable]:
        p = self.product
        weak = set(self.weak)
        for n in g.nodes:
            if not weak:
                break
            weak &= self._enabled_units(p.node_sys[n])
        return weak

    def prune(self, g: Subgraph) -> set[int]:
        engaged = self._engaged(g)
        if not self.unconditional <= engaged or not self._always_weak(g) <= engaged:
            return set(g.nodes)
        p = self.product
        return {
            n
            for n in g.nodes
            if not (self._enabled_units(p.node_sys[n]) & self.strong) <= engaged
        }

    def required_keys(self, g: Subgraph) -> set[Hashable]:
        p = self.product
        keys: set[Hashable] = {("unit", u) for u in self.unconditional}
        keys.update(("unit", u) for u in self._always_weak(g))
        for n in g.nodes:
            keys.update(("unit", u) for u in self._enabled_units(p.node_sys[n]) & self.strong)
        return keys

    def edge_keys(self, source: int, step: int, target: int) -> Iterable[Hashable]:
        return tuple(("unit", u) for u in self.units(step))

    def loop_deficits(self, g: Subgraph, states: set[int], loop: Sequence[LoopEdge]) -> list[Deficit]:
        p = self.product
        engaged: set[Hashable] = set()
        for _u, k, _v in loop:
            engaged.update(self.units(k))
        out = [Deficit(frozenset({("unit", u)})) for u in self.unconditional - engaged]
        weak = set(self.weak)
        somewhere: set[Hashable] = set()
        for n in states:
            en = self._enabled_units(p.node_sys[n])
            weak &= en
            somewhere |= en & self.strong
        for u in weak - engaged:
            away = frozenset(n for n in g.nodes if u not in self._enabled_units(p.node_sys[n]))
            out.append(Deficit(frozenset({("unit", u)}), away))
        out.extend(Deficit(frozenset({("unit", u)})) for u in somewhere - engaged)
        return out

    def explain(self) -> str:
        return (
            "annotated fairness: every f event is engaged in the loop, every wf/wl event "
            "enabled throughout is engaged, every sf/sl event enabled somewhere is engaged"
        )


class AllOf(FairnessCondition):
    """The conjunction of conditions: a node is pruned when any part prunes it (each
    part is sound, so the union is)."""

    def __init__(self, product: Product, parts: Sequence[FairnessCondition]) -> None:
        super().__init__(product)
        self.parts = tuple(parts)
        self.name = " + ".join(c.name for c in self.parts) or "none"
        self.needs_all_states = any(c.needs_all_states for c in self.parts)
        self.refine = all(c.refine for c in self.parts)
        self.closed_under_steps = any(c.closed_under_steps for c in self.parts)
        self.uses_items = any(c.uses_items for c in self.parts)

    @property
    def version(self) -> int:
        return sum(c.version for c in self.parts)

    def step_items(self, step: int) -> tuple[tuple[Hashable, ...], tuple[Hashable, ...]]:
        enabled: list[Hashable] = []
        engaged: list[Hashable] = []
        for i, c in enumerate(self.parts):
            en, eng = c.step_items(step)
            enabled.extend((i, item) for item in en)
            engaged.extend((i, item) for item in eng)
        return tuple(enabled), tuple(engaged)

    def item_mark(self, item: Hashable) -> int:
        i, inner = item  # type: ignore[misc]
        return self.parts[i].item_mark(inner)

    def required_items(self) -> tuple[Hashable, ...]:
        return tuple((i, item) for i, c in enumerate(self.parts) for item in c.required_items())

    def clear_caches(self) -> None:
        for c in self.parts:
            c.clear_caches()

    def prune(self, g: Subgraph) -> set[int]:
        removed: set[int] = set()
        for c in self.parts:
            removed |= c.prune(g)
            if len(removed) == len(g.nodes):
                break
        return removed

    def required_keys(self, g: Subgraph) -> set[Hashable]:
        keys: set[Hashable] = set()
        for i, c in enumerate(self.parts):
            keys.update((i, key) for key in c.required_keys(g))
        return keys

    def edge_keys(self, source: int, step: int, target: int) -> Iterable[Hashable]:
        out: list[Hashable] = []
        for i, c in enumerate(self.parts):
            out.extend((i, key) for key in c.edge_keys(source, step, target))
        return out

    def loop_deficits(self, g: Subgraph, states: set[int], loop: Sequence[LoopEdge]) -> list[Deficit]:
        out: list[Deficit] = []
        for i, c in enumerate(self.parts):
            for d in c.loop_deficits(g, states, loop):
                out.append(Deficit(frozenset((i, key) for key in d.keys), d.nodes))
        return out

    def witness(self, loop: Sequence[tuple[int, int, int]]) -> FairnessWitness:
        if not self.parts:
            return FairnessCondition.witness(self, loop)
        first = self.parts[0].witness(loop)
        explanation = "; ".join(c.explain() for c in self.parts)
        return dataclasses.replace(first, fairness=self.name, explanation=explanation)


_NOTIONS: dict[Fairness, type[FairnessCondition]] = {
    Fairness.NONE: NoFairness,
    Fairness.WEAK: WeakFairness,
    Fairness.STRONG_LOCAL: StrongLocalFairness,
    Fairness.STRONG_GLOBAL: StrongGlobalFairness,
    Fairness.PROCESS_WEAK: ProcessWeakFairness,
    Fairness.PROCESS_STRONG: ProcessStrongFairness,
}


def make_condition(
    product: Product,
    fairness: Fairness,
    marks: dict[Hashable, FairnessMark] | None = None,
    units: StepUnits | None = None,
) -> FairnessCondition:
    """Return the condition for ``fairness`` conjoined with the annotations ``marks``
    (units of each step given by ``units``)."""
    base = _NOTIONS[fairness](product)
    if not marks:
        return base
    assert units is not None
    ann = AnnotatedFairness(product, marks, units)
    if fairness is Fairness.NONE:
        return ann
    return AllOf(product, (base, ann))
