"""The on-the-fly product of a ``StateSpace`` with the Büchi automaton of ``!phi``.

Product states (nodes) are dense ints ``0, 1, ...``; a node is a pair (system state id,
automaton state). The product is *lean* (DESIGN.md section 7): it keeps no edge list of
any node. What it stores per product node is three typed arrays (``node_sys``,
``node_q``, ``node_flags``: 4 + 2 + 1 bytes) and an entry of the node index; per system
state, the state packed into bytes (``packed.py``) and its letter (the state atoms true
in it). The edges of a node are computed when the search first expands it
(``expand``) and recomputed from the successor function whenever they are needed again
(``edges``, ``successors``): to re-examine one strongly connected component (paper 000
Fig. 5), to build a lasso inside it, or to find a path from an initial node.

State/event convention (paper 000 section 2.1; 001 Def. 2; documented in the README):
the automaton reads, on each product transition ``(s, q) --step--> (s', q')``, the
state atoms of the *target* state ``s'`` and the event atoms of ``step``. The run starts
with an initial pseudo-step whose event is ``init`` and whose target is the initial
state, so the automaton reads ``(L(s0), init), (L(s1), e0), (L(s2), e1), ...``. This is
PAT's convention (a configuration is the pair of the event that led to it and the state
it reached; the initial configuration carries ``init``), and for state atoms it is the
same sequence of states that a SPIN never claim reads (the claim sees ``s0`` first, then
every state after a move). So ``[](eat.0 -> full)`` says the state reached by ``eat.0``
satisfies ``full``.

Atomic sequences (Promela): the automaton does not read a state in which a process
holds atomicity (the space's ``atomic_holder``) and can move on, as a SPIN never claim
does not step inside an atomic sequence (promela-spin.md section 9); a state where the
holder is blocked is read (pan loses atomicity there). A step into a state that is not
read is an *idle* product edge ``(s, q) -> (s', q)``; it carries the acceptance sets that
every edge leaving ``q`` carries (for a state-based automaton, ``q``'s own acceptance,
as pan judges a cycle that never leaves an atomic sequence by the claim state it is
parked in). The stutter step of a state without steps is never idle (pan's claim moves
alone on a final state). Checked with pan 6.5.2 on m88-m91.

Finite runs: a state without steps (deadlock or valid termination) gets one idle
self-loop ``STUTTER_STEP`` (SPIN and PAT extend finite runs by stuttering). The stutter
step has no event (event atoms are false on it), no process and no action: it engages
nothing and, because the state enables nothing, every fairness notion accepts a run that
ends stuttering there (``conditions.py``).

Partial order reduction: a space with ``ample_candidate`` (``bridge/reductions/por.py``)
proposes an ample subset of a state's steps (C0-C2); its ``successors`` are every
enabled step. When a node is expanded, the product keeps the ample candidate unless one
of the product nodes it leads to is on the search's DFS stack (``search_stack[n] >= 0``,
set by ``onthefly.py``), SPIN's stack proviso C3 per product node. When the first candidate fails C3, the others the space
offers (``ample_alternatives``: every ample set under C0-C2, fewest steps first) are tried
in turn before the node is expanded fully, the heuristic of Clarke, Grumberg and Peled
that PAT (paper 000 section 4) and SPIN follow; each candidate satisfies C0-C2 and the
kept one C3, so the choice is as sound as the first one. The choice (whether reduced, and
which candidate) is kept in ``node_flags``, so recomputing a node's edges later gives
the same edges.
"""

from __future__ import annotations

import gc
import time
from array import array
from collections.abc import Callable, Hashable, Sequence

from bridge.automata.buchi import Buchi
from bridge.fairness.packed import PackedStates
from bridge.semantics.successors import CLOCK_GAP, StateSpace, StateVector, Step

INIT_EVENT = "init"
STUTTER_STEP = Step(event=None, action=("stutter",), processes=(), stutter=True)

EXPANDED = 1  # node_flags: the search expanded the node (its targets are interned)
AMPLE = 2  # node_flags: the node explores an ample candidate of its system state
# node_flags >> CANDIDATE_SHIFT: which candidate (0: ``ample_candidate``, i >= 1: the
# i-th of ``ample_alternatives``); at most MAX_CANDIDATE are tried
CANDIDATE_SHIFT = 2
MAX_CANDIDATE = 63
# Automata with at most this many states index nodes by a flat array (4 bytes per
# system state and automaton state); bigger ones (never claims) by a dict.
FLAT_INDEX_STATES = 8

# Nodes with at least this many edges keep them for recomputation, the last
# RECENT_NODES of them (a state of thousands of instances has thousands of successors,
# each a copy of its thousands of slots: a lasso through it would compute them again).
RECENT_MIN_EDGES = 256
RECENT_NODES = 8
# Expanding a state of at least this many slots pauses the cyclic garbage collector.
GC_PAUSE_SLOTS = 1024
# The clock is read about every CLOCK_GAP seconds of search, and at least every
# CLOCK_MAX_TICKS interned nodes or expansions (``Product._clock``).
CLOCK_MAX_TICKS = 1024


class LimitReached(Exception):
    """The product grew past ``max_states`` or the search passed its deadline."""

    def __init__(self, what: str) -> None:
        self.what = what
        super().__init__(what)


class ModelErrorAt(Exception):
    """A ``ModelRuntimeError`` raised while expanding product node ``node``; ``path``:
    ``(initial node, edges)`` leading to it, when the search knows one."""

    def __init__(self, node: int, error: Exception) -> None:
        self.node = node
        self.error = error
        self.path: tuple[int, list[tuple[int, int, int]]] | None = None
        super().__init__(str(error))


class Expansion:
    """The edges of one node as parallel lists, computed by ``Product.expand``.

    ``targets[i]``, ``steps[i]`` (step id), ``accs[i]`` (acceptance mask) and
    ``system_index[i]`` (index of the edge's system step ``(step, target state)`` among
    the distinct system steps of the node's state, for strong global fairness);
    ``enabled``: the ids of the steps enabled in the node's state (fairness is judged on
    every enabled step, even when a reduction explores fewer; never the stutter step);
    ``system_steps``: the number of distinct system steps of the state.
    """

    __slots__ = ("targets", "steps", "accs", "system_index", "enabled", "system_steps")

    def __init__(self) -> None:
        self.targets: list[int] = []
        self.steps: list[int] = []
        self.accs: list[int] = []
        self.system_index: list[int] = []
        self.enabled: list[int] = []
        self.system_steps = 0


def _common_marks(buchi: Buchi, q: int) -> int:
    """Return the acceptance sets carried by every edge leaving ``q`` (0 if none)."""
    out = buchi.edges[q]
    if not out:
        return 0
    marks = buchi.all_sets
    for e in out:
        marks &= e.acceptance
    return marks


class Product:
    """The product graph, built on the fly; nodes are dense ints from 0.

    ``expand(node)`` computes a node's edges the first time (interning its targets,
    applying the POR proviso); ``edges(node)`` / ``successors(node)`` recompute them.
    Per node: ``node_sys[n]`` (system state id), ``node_q[n]`` (automaton state),
    ``node_flags[n]`` (``EXPANDED``, ``AMPLE``). System side: ``sys_states[i]`` is system
    state ``i`` (unpacked on access), ``sys_letter[i]`` its letter; ``steps[k]`` the
    interned ``Step`` with id ``k``, ``step_action[k]`` the id of its action in
    ``actions``, ``step_source[k]`` a state where it was first seen.
    """

    def __init__(
        self,
        space: StateSpace,
        buchi: Buchi,
        state_letter: Callable[[StateVector], int],
        event_letter: Callable[[str | None], int],
        *,
        max_states: int | None = None,
        timeout: float | None = None,
        progress: Callable[[int, int, float], None] | None = None,
    ) -> None:
        self.space = space
        self.buchi = buchi
        self._state_letter = state_letter
        self._event_letter = event_letter
        self.max_states = max_states
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.started = time.monotonic()
        self.progress = progress
        self._next_report = self.started + 1.0
        self._last_clock = self.started
        self._clock_every = 1  # ticks between two clock readings (``_clock``)
        self._until_clock = 1
        # Hidden variables (CSP# ``hvar``) are kept in the state but ignored when states
        # are compared: intern system states by ``state_key`` when the space has one.
        key_of: Callable[[StateVector], StateVector] | None = getattr(space, "state_key", None)
        layout = getattr(space, "layout", None)
        if key_of is not None and getattr(layout, "hidden_count", 1) == 0:
            key_of = None  # no hidden variables: the state is its own key
        # system side
        self.sys_states = PackedStates(key_of)
        self.sys_letter: list[int] = []
        # Promela atomicity: sys_wait[i] is 1 when the holder of atomicity in system
        # state i can move on (the automaton waits: idle edges into it), 0 when it
        # cannot or nobody holds it, 2 while unknown; None when no state can wait.
        self._holder: Callable[[StateVector], int] | None = getattr(space, "atomic_holder", None)
        self.sys_wait: bytearray | None = None if self._holder is None else bytearray()
        self._idle: list[tuple[tuple[int, int], ...]] = [
            ((q, _common_marks(buchi, q)),) for q in range(buchi.num_states)
        ]
        self.steps: list[Step] = []
        self._step_index: dict[Step, int] = {}
        # Steps are interned by the successor generator: look them up by identity first
        # (ids stay valid: ``steps`` keeps every interned object alive).
        self._step_by_id: dict[int, int] = {}
        self.step_action: list[int] = []
        self.step_letter: list[int] = []
        self.step_source: list[StateVector | None] = []  # a state where the step was first seen
        self.actions: list[Hashable] = []
        self._action_index: dict[Hashable, int] = {}
        # product side
        self._nq = max(1, buchi.num_states)
        self.node_sys = array("i")
        self.node_q = array("H" if self._nq <= 0xFFFF else "i")
        self.node_flags = bytearray()
        self._flat = self._nq <= FLAT_INDEX_STATES
        self._node_of = array("i")  # flat: node of (s, q) at s * nq + q, -1 if none
        self._no_nodes = array("i", [-1] * self._nq)
        self._node_dict: dict[int, int] = {}  # not flat: s * nq + q -> node
        self.transitions = 0
        # (letter * automaton states + q) -> automaton successors of q on letter, with
        # the acceptance marks of parallel edges to one target merged (see _moves).
        self._moves_cache: dict[int, tuple[tuple[int, int], ...]] = {}
        # The edges of the last few expanded nodes with many edges (``_remember``), and
        # the steps of their system states: recomputing them (for a lasso, for the
        # fairness of a component) would copy and pack every successor again.
        self._recent_edges: dict[int, tuple[tuple[int, ...], ...]] = {}
        self._recent_steps: dict[int, tuple[int, ...]] = {}
        self._full_successors: Callable[[StateVector], Sequence[tuple[Step, StateVector]]] | None = getattr(
            space, "full_successors", None
        )
        self._ample_candidate: Callable[..., Sequence[tuple[Step, StateVector]]] | None = getattr(
            space, "ample_candidate", None
        )
        self._ample_alternatives: Callable[..., list[Sequence[tuple[Step, StateVector]]]] | None = (
            getattr(space, "ample_alternatives", None) if self._ample_candidate is not None
            else None
        )
        # ``search_stack[n] >= 0`` iff node ``n`` is on the searching emptiness check's
        # stack of live nodes (set by ``onthefly.py``); read by the POR proviso.
        self.search_stack: array | None = None
        self.ample_nodes = 0  # nodes expanded with a reduced ample set
        self.proviso_nodes = 0  # nodes with an ample candidate, fully expanded (C3)
        self.stutter_id = self._intern_step(STUTTER_STEP)
        self.initial_nodes_list: list[int] = []
        for state in space.initial_states():
            s = self._intern_sys(state)
            letter = self.sys_letter[s] | event_letter(INIT_EVENT)
            for q, _acc in buchi.successors(buchi.initial, letter):
                node = self._find_node(s, q)
                if node < 0:
                    node = self._intern_node(s, q)
                if node not in self.initial_nodes_list:
                    self.initial_nodes_list.append(node)

    # -- interning -------------------------------------------------------------------

    def _intern_sys(self, state: StateVector, key: bytes | None = None) -> int:
        states = self.sys_states
        before = len(states)
        s = states.add(state, key)
        if s == before:
            self.sys_letter.append(self._state_letter(state))
            if self.sys_wait is not None:
                self.sys_wait.append(2 if self._holder(state) >= 0 else 0)  # type: ignore[misc]
            if self._flat:
                self._node_of.extend(self._no_nodes)
        return s

    def _intern_step(self, step: Step, source: StateVector | None = None) -> int:
        k = self._step_index.get(step)
        if k is None:
            k = len(self.steps)
            self._step_index[step] = k
            self._step_by_id[id(step)] = k
            self.steps.append(step)
            self.step_source.append(source)
            a = self._action_index.get(step.action)
            if a is None:
                a = len(self.actions)
                self._action_index[step.action] = a
                self.actions.append(step.action)
            self.step_action.append(a)
            self.step_letter.append(self._event_letter(step.event))
        return k

    def _clock(self) -> None:
        """Read the clock: raise ``LimitReached("time")`` past the deadline, report
        progress once a second, and set how many ticks (interned nodes, expansions) pass
        before the next reading: about every ``CLOCK_GAP`` seconds whatever a tick costs
        (microseconds on small states, milliseconds on the 10,000-slot states of LE
        N = 10000, where a reading every 1024 nodes overran the deadline by 15 s)."""
        now = time.monotonic()
        gap = now - self._last_clock
        self._last_clock = now
        if gap < CLOCK_GAP / 4:
            self._clock_every = min(self._clock_every * 2, CLOCK_MAX_TICKS)
        elif gap > CLOCK_GAP:
            self._clock_every = max(1, self._clock_every // 4)
        self._until_clock = self._clock_every
        if self.deadline is not None and now > self.deadline:
            raise LimitReached("time")
        if self.progress is not None and now >= self._next_report:
            self._next_report = now + 1.0
            self.progress(len(self.node_sys), self.transitions, now - self.started)

    def _find_node(self, s: int, q: int) -> int:
        if self._flat:
            return self._node_of[s * self._nq + q]
        return self._node_dict.get(s * self._nq + q, -1)

    def _intern_node(self, s: int, q: int) -> int:
        node = len(self.node_sys)
        if self.max_states is not None and node >= self.max_states:
            raise LimitReached("states")
        self._until_clock -= 1
        if self._until_clock <= 0:
            self._clock()
        if self._flat:
            self._node_of[s * self._nq + q] = node
        else:
            self._node_dict[s * self._nq + q] = node
        self.node_sys.append(s)
        self.node_q.append(q)
        self.node_flags.append(0)
        return node

    # -- system side -----------------------------------------------------------------

    def _system_pairs(self, state: StateVector, pairs: Sequence[tuple[Step, StateVector]],
                      intern: bool, tick: bool = False) -> list[tuple[int, int]]:
        """Return ``(step id, target system id)`` of ``pairs`` (a successor list of
        ``state``); new target states are interned when ``intern``, else they must be
        known already (recomputing the edges of an expanded node). ``tick``: each new
        target is a tick of the clock (``_clock``: a search's expansion may stop there
        at its deadline; 20,003 targets of 10,000 slots each take seconds to pack)."""
        by_id = self._step_by_id.get
        states = self.sys_states
        sys_get = states.index.get
        key_of = states.key_of
        pack = states.pack
        out = []
        for step, t in pairs:
            k = by_id(id(step))
            if k is None:
                k = self._intern_step(step, state)
            key = pack(t if key_of is None else key_of(t))
            target = sys_get(key)
            if target is None:
                if not intern:
                    raise AssertionError("a recomputed successor was never interned")
                target = self._intern_sys(t, key)
                if tick:
                    self._until_clock -= 1
                    if self._until_clock <= 0:
                        self._clock()
            out.append((k, target))
        return out

    def system_steps(self, s: int) -> list[tuple[int, int]]:
        """Return ``(step id, target system id)`` of every step of system state ``s``
        (the stutter step for a state without steps), recomputed."""
        state = self.sys_states[s]
        succ = self.space.successors(state)
        if not succ:
            return [(self.stutter_id, s)]
        return self._system_pairs(state, succ, True)

    def enabled_step_ids(self, s: int) -> list[int]:
        """Return the ids of the steps enabled in system state ``s`` for judging
        fairness: the wrapped space's ``full_successors`` when it has them (a partial
        order reduction explores ample sets, but fairness is judged on every enabled
        step, paper 000 section 4), else every step; never the stutter step."""
        full = self._full_successors
        if full is None and s in self._recent_steps:
            return list(self._recent_steps[s])
        state = self.sys_states[s]
        pairs = full(state) if full is not None else self.space.successors(state)
        by_id = self._step_by_id.get
        out = []
        for step, _t in pairs:
            k = by_id(id(step))
            out.append(self._intern_step(step, state) if k is None else k)
        return out

    # -- product side ----------------------------------------------------------------

    @property
    def num_nodes(self) -> int:
        """Return the number of product states reached so far."""
        return len(self.node_sys)

    def initial_nodes(self) -> list[int]:
        """Return the initial product states."""
        return self.initial_nodes_list

    def is_expanded(self, node: int) -> bool:
        """Return True if the search has expanded ``node``."""
        return bool(self.node_flags[node] & EXPANDED)

    def expand(self, node: int, enabled: bool = False, system_index: bool = False) -> Expansion:
        """Return the edges of ``node``, computed for the first time: targets are
        interned (``LimitReached`` past the limits), the POR proviso is decided against
        ``search_stack``, ``transitions`` grows. ``enabled``/``system_index``: also fill
        those fields of the ``Expansion``. A model error raises ``ModelErrorAt``."""
        if self.node_flags[node] & EXPANDED:
            raise AssertionError(f"node {node} is expanded twice")
        self._until_clock -= 1
        if self._until_clock <= 0:
            self._clock()
        s = self.node_sys[node]
        state = self.sys_states[s]
        if len(state) < GC_PAUSE_SLOTS or not gc.isenabled():
            return self._expand(node, s, state, enabled, system_index)
        # Thousands of successors of thousands of slots each: the cyclic collector
        # would walk every new tuple (they hold only ints, and die with this call).
        gc.disable()
        try:
            return self._expand(node, s, state, enabled, system_index)
        finally:
            gc.enable()

    def _expand(self, node: int, s: int, state: StateVector, enabled: bool,
                system_index: bool) -> Expansion:
        q = self.node_q[node]
        out = Expansion()
        pairs: list[tuple[int, int]] | None = None
        explored: list[tuple[int, int]] | None = None
        try:
            succ = self.space.successors(state)
            if not succ:
                pairs = explored = [(self.stutter_id, s)]
            else:
                if self._ample_candidate is not None:
                    explored = self._choose_ample(node, q, state, succ)
                # Targets a reduction does not explore are not interned (unless strong
                # global fairness needs every system step).
                if explored is None or system_index:
                    pairs = self._system_pairs(state, succ, True, tick=True)
                    if explored is None:
                        explored = pairs
            if enabled and succ:
                if self._full_successors is not None and self._ample_candidate is None:
                    out.enabled = self.enabled_step_ids(s)
                elif pairs is not None:
                    out.enabled = [k for k, _t in pairs]
                else:
                    by_id = self._step_by_id.get
                    for step, _t in succ:
                        k = by_id(id(step))
                        out.enabled.append(self._intern_step(step, state) if k is None else k)
        except LimitReached:
            raise
        except Exception as error:  # ModelRuntimeError (and only that, in practice)
            from bridge.diagnostics import ModelRuntimeError

            if isinstance(error, ModelRuntimeError):
                raise ModelErrorAt(node, error) from error
            raise
        position: dict[tuple[int, int], int] | None = None
        if system_index:
            assert pairs is not None
            position = {}
            for pair in pairs:
                if pair not in position:
                    position[pair] = len(position)
            out.system_steps = len(position)
        self.node_flags[node] |= EXPANDED
        self._product_edges(q, explored, True, out, position)
        self.transitions += len(out.targets)
        if pairs is not None and len(pairs) >= RECENT_MIN_EDGES:
            self._remember_steps(s, pairs)
        if len(out.targets) >= RECENT_MIN_EDGES:
            self._remember(node, out)
        return out

    def _remember(self, node: int, e: Expansion) -> None:
        """Keep the edges of ``node`` for ``_recompute`` (the last ``RECENT_NODES``)."""
        recent = self._recent_edges
        if len(recent) >= RECENT_NODES:
            del recent[next(iter(recent))]
        recent[node] = (tuple(e.targets), tuple(e.steps), tuple(e.accs))

    def _remember_steps(self, s: int, pairs: list[tuple[int, int]]) -> None:
        """Keep the step ids of system state ``s`` (all its steps, ``pairs``) for
        ``enabled_step_ids``."""
        recent = self._recent_steps
        if len(recent) >= RECENT_NODES:
            del recent[next(iter(recent))]
        recent[s] = tuple(k for k, _t in pairs)

    def _choose_ample(
        self, node: int, q: int, state: StateVector, succ: Sequence[tuple[Step, StateVector]]
    ) -> list[tuple[int, int]] | None:
        """Return the system pairs of the first ample candidate of ``state`` that passes
        the proviso C3 at ``node`` (its choice recorded in ``node_flags``), or None for a
        full expansion (module docstring)."""
        assert self._ample_candidate is not None
        ample = self._ample_candidate(state, succ)
        if len(ample) == len(succ):
            return None
        if self.search_stack is None:  # no stack to judge C3 against: expand fully
            self.proviso_nodes += 1
            return None
        reduced = self._system_pairs(state, ample, True)
        if self._proviso_allows(q, reduced):
            self.node_flags[node] |= AMPLE
            self.ample_nodes += 1
            return reduced
        if self._ample_alternatives is not None:
            others = self._ample_alternatives(state, succ)
            for i, other in enumerate(others[:MAX_CANDIDATE], start=1):
                if len(other) == len(succ):
                    continue
                reduced = self._system_pairs(state, other, True)
                if self._proviso_allows(q, reduced):
                    self.node_flags[node] |= AMPLE | (i << CANDIDATE_SHIFT)
                    self.ample_nodes += 1
                    return reduced
        self.proviso_nodes += 1
        return None

    def _chosen_ample(
        self, node: int, state: StateVector, succ: Sequence[tuple[Step, StateVector]]
    ) -> Sequence[tuple[Step, StateVector]]:
        """Return the ample candidate ``_choose_ample`` kept for ``node``."""
        i = self.node_flags[node] >> CANDIDATE_SHIFT
        if i == 0:
            assert self._ample_candidate is not None
            return self._ample_candidate(state, succ)
        assert self._ample_alternatives is not None
        return self._ample_alternatives(state, succ)[i - 1]

    def _proviso_allows(self, q: int, ample: list[tuple[int, int]]) -> bool:
        """Return False if a product successor of ``(s, q)`` through ``ample`` is on the
        search's stack (the stack proviso C3, per product node as in SPIN; Peled,
        "Combining partial order reductions with on-the-fly model-checking", CAV 1994)."""
        marks = self.search_stack
        assert marks is not None
        sys_letter = self.sys_letter
        step_letter = self.step_letter
        known = len(marks)
        wait = self.sys_wait
        for k, t in ample:
            if wait is not None and wait[t] and k != self.stutter_id and self._waits(t):
                moves = self._idle[q]
            else:
                moves = self._moves(q, sys_letter[t] | step_letter[k])
            for q2, _acc in moves:
                n2 = self._find_node(t, q2)
                if 0 <= n2 < known and marks[n2] >= 0:
                    return False
        return True

    def _waits(self, t: int) -> bool:
        """Return True if the holder of atomicity in system state ``t`` can move there
        (decided once, from the state's steps)."""
        wait = self.sys_wait
        assert wait is not None and self._holder is not None
        if wait[t] == 2:
            from bridge.diagnostics import ModelRuntimeError

            state = self.sys_states[t]
            holder = self._holder(state)
            try:
                wait[t] = 1 if any(holder in step.processes
                                   for step, _u in self.space.successors(state)) else 0
            except ModelRuntimeError:
                wait[t] = 0  # read: the error is reported when t is expanded
        return wait[t] == 1

    def _moves(self, q: int, letter: int) -> tuple[tuple[int, int], ...]:
        """Return ``(q', acceptance)`` of the automaton edges of ``q`` on ``letter``.
        Parallel automaton edges to one target merge their acceptance marks (a run may
        alternate between them, so the union is met infinitely often; it also keeps one
        product edge per target)."""
        key = letter * self.buchi.num_states + q
        hit = self._moves_cache.get(key)
        if hit is None:
            merged: dict[int, int] = {}
            for q2, acc in self.buchi.successors(q, letter):
                merged[q2] = merged.get(q2, 0) | acc
            hit = tuple(merged.items())
            self._moves_cache[key] = hit
        return hit

    def _product_edges(self, q: int, pairs: list[tuple[int, int]], intern: bool,
                       out: Expansion, position: dict[tuple[int, int], int] | None) -> None:
        """Append to ``out`` the product edges of ``(s, q)`` for the system steps
        ``pairs``: one per (step, automaton successor, ``_moves``)."""
        moves_get = self._moves_cache.get
        moves = self._moves
        nqb = self.buchi.num_states
        sys_letter = self.sys_letter
        step_letter = self.step_letter
        nq = self._nq
        flat = self._flat
        node_of = self._node_of
        node_get = self._node_dict.get
        targets = out.targets
        steps = out.steps
        accs = out.accs
        index = out.system_index
        wait = self.sys_wait
        stutter = self.stutter_id
        for pair in pairs:
            k, t = pair
            if wait is not None and wait[t] and k != stutter and self._waits(t):
                succ = self._idle[q]  # inside an atomic sequence: the automaton waits
            else:
                letter = sys_letter[t] | step_letter[k]
                succ = moves_get(letter * nqb + q)
                if succ is None:
                    succ = moves(q, letter)
            base = t * nq
            for q2, acc in succ:
                n2 = node_of[base + q2] if flat else node_get(base + q2, -1)
                if n2 < 0:
                    if not intern:
                        raise AssertionError("a recomputed edge leads to a node never interned")
                    n2 = self._intern_node(t, q2)
                targets.append(n2)
                steps.append(k)
                accs.append(acc)
                if position is not None:
                    index.append(position[pair])

    def _recompute(self, node: int) -> Expansion:
        """Return the edges of an expanded ``node`` again (same POR choice)."""
        kept = self._recent_edges.get(node)
        if kept is not None:
            out = Expansion()
            out.targets, out.steps, out.accs = list(kept[0]), list(kept[1]), list(kept[2])
            return out
        s = self.node_sys[node]
        state = self.sys_states[s]
        succ = self.space.successors(state)
        if not succ:
            pairs = [(self.stutter_id, s)]
        elif self.node_flags[node] & AMPLE:
            pairs = self._system_pairs(state, self._chosen_ample(node, state, succ), False)
        else:
            pairs = self._system_pairs(state, succ, False)
        out = Expansion()
        self._product_edges(self.node_q[node], pairs, False, out, None)
        if len(out.targets) >= RECENT_MIN_EDGES:
            self._remember(node, out)
        return out

    def step_edges(self, node: int) -> Expansion:
        """Return the edges of ``node`` with ``system_index`` and ``system_steps`` (every
        distinct system step of its state, the stutter step for a state without any),
        expanding the node when no search has, else recomputing them (interning targets
        never met: a node expanded by another search may have edges into states its
        search did not keep). For checking a strong globally fair part in one pass."""
        if not self.node_flags[node] & EXPANDED:
            return self.expand(node, system_index=True)
        s = self.node_sys[node]
        pairs = self.system_steps(s)
        position: dict[tuple[int, int], int] = {}
        for pair in pairs:
            if pair not in position:
                position[pair] = len(position)
        out = Expansion()
        out.system_steps = len(position)
        self._product_edges(self.node_q[node], pairs, True, out, position)
        return out

    def successors(self, node: int) -> list[int]:
        """Return the target nodes of ``node`` (one per edge, in edge order); expands
        the node if no search has."""
        if not self.node_flags[node] & EXPANDED:
            return self.expand(node).targets
        return self._recompute(node).targets

    def edges(self, node: int) -> list[tuple[int, int, int]]:
        """Return ``(target node, step id, acceptance mask)`` for each edge of ``node``
        (recomputed; expands the node if no search has)."""
        if not self.node_flags[node] & EXPANDED:
            e = self.expand(node)
        else:
            e = self._recompute(node)
        return list(zip(e.targets, e.steps, e.accs, strict=True))

    def describe_node(self, node: int) -> str:
        """Return ``(system state, automaton state)`` as text (debugging)."""
        return f"({self.sys_states[self.node_sys[node]]}, q{self.node_q[node]})"

    def path_from_initial(self, targets: set[int] | frozenset[int]) -> tuple[int, list[tuple[int, int, int]]]:
        """Return ``(initial node, edges)`` of a shortest path (over the expanded part
        of the product, edges recomputed) from an initial node to some node of
        ``targets``; edges are ``(source, step id, target)``."""
        parent: dict[int, tuple[int, int] | None] = {}
        queue: list[int] = []
        for n in self.initial_nodes_list:
            if n not in parent:
                parent[n] = None
                queue.append(n)
        head = 0
        found = -1
        flags = self.node_flags
        while head < len(queue):
            v = queue[head]
            head += 1
            if v in targets:
                found = v
                break
            if not flags[v] & EXPANDED:
                continue
            e = self._recompute(v)
            for w, k in zip(e.targets, e.steps, strict=True):
                if w not in parent:
                    parent[w] = (v, k)
                    queue.append(w)
        if found < 0:
            raise ValueError("target not reachable in the explored product")
        path: list[tuple[int, int, int]] = []
        v = found
        while parent[v] is not None:
            u, k = parent[v]  # type: ignore[misc]
            path.append((u, k, v))
            v = u
        path.reverse()
        return v, path

    def elapsed(self) -> float:
        """Return seconds since the product was created."""
        return time.monotonic() - self.started

    def system_path(self, edges: Sequence[tuple[int, int, int]]) -> list[tuple[Step, StateVector]]:
        """Return the system steps of product ``edges`` as ``(Step, target state)``."""
        return [(self.steps[k], self.sys_states[self.node_sys[v]]) for _u, k, v in edges]

    def clear_caches(self) -> None:
        """Forget the per-system-state facts the fairness conditions cached while
        judging one component (``conditions.py``): they are recomputed on demand."""
        for name in [n for n in self.__dict__ if n.startswith("_fair_")]:
            self.__dict__[name].clear()
