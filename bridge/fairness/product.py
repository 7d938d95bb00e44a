"""The on-the-fly product of a ``StateSpace`` with the Büchi automaton of ``!phi``.

Product states are dense ints; a product state is a pair (system state id, automaton
state). The system side is interned too: each system state gets an id, its steps are
computed once and shared by every automaton state paired with it (DESIGN.md section 7).

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

Finite runs: a state without steps (deadlock or valid termination) gets one idle
self-loop ``STUTTER_STEP`` (SPIN and PAT extend finite runs by stuttering). The stutter
step has no event (event atoms are false on it), no process and no action: it engages
nothing and, because the state enables nothing, every fairness notion accepts a run that
ends stuttering there (``conditions.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence

from bridge.automata.buchi import Buchi
from bridge.semantics.successors import StateSpace, StateVector, Step

INIT_EVENT = "init"
STUTTER_STEP = Step(event=None, action=("stutter",), processes=(), stutter=True)


class LimitReached(Exception):
    """The product grew past ``max_states`` or the search passed its deadline."""

    def __init__(self, what: str) -> None:
        self.what = what
        super().__init__(what)


class ModelErrorAt(Exception):
    """A ``ModelRuntimeError`` raised while expanding product node ``node``."""

    def __init__(self, node: int, error: Exception) -> None:
        self.node = node
        self.error = error
        super().__init__(str(error))


class Product:
    """The product graph, built on the fly; nodes are dense ints from 0.

    ``successors(node)`` returns the target nodes of ``node`` (computed and stored on
    the first call); ``edges(node)`` the parallel ``(target, step id, acceptance mask)``
    triples. The system side: ``sys_states[i]`` is system state ``i``, ``sys_steps[i]``
    its ``(step id, target system id)`` list (a deadlock gets the stutter step),
    ``steps[k]`` the interned ``Step`` with id ``k`` and ``step_action[k]`` the id of its
    action in ``actions``.

    Partial order reduction: when the space has ``ample_candidate`` (the wrapper of
    ``bridge/reductions/por.py``), a node explores the ample candidate of its system
    state unless one of the product nodes it leads to is marked in ``search_stack``
    (the searching Tarjan's stack, set by ``emptiness.find_fair_subgraph``): SPIN's
    stack proviso per product node, decided once, when the node is expanded.
    ``sys_steps`` stays the full list (fairness and annotations read it).
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
        # Hidden variables (CSP# ``hvar``) are kept in the state but ignored when states
        # are compared: intern system states by ``state_key`` when the space has one.
        self._key_of: Callable[[StateVector], StateVector] | None = getattr(space, "state_key", None)
        layout = getattr(space, "layout", None)
        if self._key_of is not None and getattr(layout, "hidden_count", 1) == 0:
            self._key_of = None  # no hidden variables: the state is its own key
        # system side
        self.sys_states: list[StateVector] = []
        self._sys_index: dict[StateVector, int] = {}
        self.sys_letter: list[int] = []
        self.sys_steps: list[list[tuple[int, int]] | None] = []
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
        self.node_sys: list[int] = []
        self.node_q: list[int] = []
        self._node_index: dict[int, int] = {}
        # Edges of each expanded node as parallel lists (no tuple per edge: memory):
        # targets, step ids, and acceptance masks (None when every mask is 0).
        self._out_dst: list[list[int] | None] = []
        self._out_step: list[list[int] | None] = []
        self._out_acc: list[list[int] | None] = []
        self.transitions = 0
        self._full_successors: Callable[[StateVector], Sequence[tuple[Step, StateVector]]] | None = getattr(
            space, "full_successors", None
        )
        self._enabled_ids: dict[int, list[int]] = {}
        # Partial order reduction on the fly (``bridge/reductions/por.py``): a space with
        # ``ample_candidate(state, steps)`` proposes an ample subset of a state's steps
        # (conditions C0-C2); the product applies the cycle proviso C3 per product node
        # when the node is expanded, against Tarjan's stack (``search_stack``, set by the
        # search in ``emptiness.py``). The choice is stored with the node's edges, so any
        # later search of the same nodes sees the same successors.
        self._ample_candidate: Callable[..., Sequence[tuple[Step, StateVector]]] | None = getattr(
            space, "ample_candidate", None
        )
        self._ample_steps: dict[int, list[tuple[int, int]]] = {}
        self.search_stack: bytearray | None = None
        self.ample_nodes = 0  # nodes expanded with a reduced ample set
        self.proviso_nodes = 0  # nodes with an ample candidate, fully expanded (C3)
        self.stutter_id = self._intern_step(STUTTER_STEP)
        self.initial_nodes_list: list[int] = []
        self.initial_sys: list[int] = []
        for state in space.initial_states():
            s = self._intern_sys(state)
            self.initial_sys.append(s)
            letter = self.sys_letter[s] | event_letter(INIT_EVENT)
            for q, _acc in buchi.successors(buchi.initial, letter):
                node = self._intern_node(s, q)
                if node not in self.initial_nodes_list:
                    self.initial_nodes_list.append(node)

    # -- interning -------------------------------------------------------------------

    def _intern_sys(self, state: StateVector) -> int:
        key = state if self._key_of is None else self._key_of(state)
        s = self._sys_index.get(key)
        if s is None:
            s = len(self.sys_states)
            self._sys_index[key] = s
            self.sys_states.append(state)
            self.sys_letter.append(self._state_letter(state))
            self.sys_steps.append(None)
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

    def _intern_node(self, s: int, q: int) -> int:
        key = s * self._nq + q
        node = self._node_index.get(key)
        if node is None:
            node = len(self.node_sys)
            if self.max_states is not None and node >= self.max_states:
                raise LimitReached("states")
            if (node & 1023) == 0:
                now = time.monotonic()
                if self.deadline is not None and now > self.deadline:
                    raise LimitReached("time")
                if self.progress is not None and now >= self._next_report:
                    self._next_report = now + 1.0
                    self.progress(node, self.transitions, now - self.started)
            self._node_index[key] = node
            self.node_sys.append(s)
            self.node_q.append(q)
            self._out_dst.append(None)
            self._out_step.append(None)
            self._out_acc.append(None)
        return node

    # -- system side -----------------------------------------------------------------

    def system_steps(self, s: int) -> list[tuple[int, int]]:
        """Return ``(step id, target system id)`` of system state ``s`` (stutter for a
        state without steps)."""
        steps = self.sys_steps[s]
        if steps is None:
            state = self.sys_states[s]
            succ = self.space.successors(state)
            if succ:
                steps = self._intern_pairs(state, succ)
                if self._ample_candidate is not None:
                    ample = self._ample_candidate(state, succ)
                    if len(ample) < len(succ):
                        self._ample_steps[s] = self._intern_pairs(state, ample)
            else:
                steps = [(self.stutter_id, s)]
            self.sys_steps[s] = steps
        return steps

    def _intern_pairs(
        self, state: StateVector, pairs: Sequence[tuple[Step, StateVector]]
    ) -> list[tuple[int, int]]:
        by_id = self._step_by_id.get
        sys_get = self._sys_index.get
        key_of = self._key_of
        steps = []
        for step, t in pairs:
            k = by_id(id(step))
            if k is None:
                k = self._intern_step(step, state)
            target = sys_get(t if key_of is None else key_of(t))
            if target is None:
                target = self._intern_sys(t)
            steps.append((k, target))
        return steps

    def _node_steps(self, s: int, q: int, full: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Return the steps product node ``(s, q)`` explores: the ample candidate of
        ``s`` unless a product successor through it is on the search's stack (the
        stack proviso C3, per product node as in SPIN; Peled, "Combining partial order
        reductions with on-the-fly model-checking", CAV 1994), else ``full``. Outside a
        search that reports its stack, ``full``."""
        ample = self._ample_steps.get(s)
        if ample is None:
            return full
        stack = self.search_stack
        if stack is None:
            self.proviso_nodes += 1
            return full
        nq = self._nq
        node_get = self._node_index.get
        sys_letter = self.sys_letter
        step_letter = self.step_letter
        marked = len(stack)
        for k, t in ample:
            for q2, _acc in self.buchi.successors(q, sys_letter[t] | step_letter[k]):
                n2 = node_get(t * nq + q2)
                if n2 is not None and n2 < marked and stack[n2]:
                    self.proviso_nodes += 1
                    return full
        self.ample_nodes += 1
        return ample

    def enabled_step_ids(self, s: int) -> list[int]:
        """Return the ids of the steps enabled in system state ``s`` for judging
        fairness: the wrapped space's ``full_successors`` when it has them (a partial
        order reduction explores ample sets, but fairness is judged on every enabled
        step, paper 000 section 4), else the explored steps; never the stutter step."""
        cache = self._enabled_ids
        hit = cache.get(s)
        if hit is None:
            full = self._full_successors
            if full is None:
                hit = [k for k, _t in self.system_steps(s) if k != self.stutter_id]
            else:
                state = self.sys_states[s]
                by_id = self._step_by_id.get
                hit = []
                for step, _t in full(state):
                    k = by_id(id(step))
                    hit.append(self._intern_step(step, state) if k is None else k)
            cache[s] = hit
        return hit

    # -- product side ----------------------------------------------------------------

    @property
    def num_nodes(self) -> int:
        """Return the number of product states reached so far."""
        return len(self.node_sys)

    def initial_nodes(self) -> list[int]:
        """Return the initial product states."""
        return self.initial_nodes_list

    def is_expanded(self, node: int) -> bool:
        """Return True if the successors of ``node`` have been computed."""
        return self._out_dst[node] is not None

    def successors(self, node: int) -> list[int]:
        """Return the target nodes of ``node`` (one per edge, in edge order)."""
        dst = self._out_dst[node]
        if dst is None:
            self._expand(node)
            dst = self._out_dst[node]
            assert dst is not None
        return dst

    def edges(self, node: int) -> list[tuple[int, int, int]]:
        """Return ``(target node, step id, acceptance mask)`` for each edge of ``node``."""
        dst = self._out_dst[node]
        if dst is None:
            self._expand(node)
            dst = self._out_dst[node]
            assert dst is not None
        steps = self._out_step[node]
        accs = self._out_acc[node]
        if accs is None:
            return [(v, k, 0) for v, k in zip(dst, steps, strict=True)]  # type: ignore[arg-type]
        return list(zip(dst, steps, accs, strict=True))  # type: ignore[arg-type]

    def _expand(self, node: int) -> None:
        s = self.node_sys[node]
        q = self.node_q[node]
        try:
            sys_steps = self.system_steps(s)
            if self._ample_candidate is not None:
                sys_steps = self._node_steps(s, q, sys_steps)
        except LimitReached:
            raise
        except Exception as error:  # ModelRuntimeError (and only that, in practice)
            from bridge.diagnostics import ModelRuntimeError

            if isinstance(error, ModelRuntimeError):
                raise ModelErrorAt(node, error) from error
            raise
        buchi_succ = self.buchi.successors
        bcache = self.buchi._cache  # the automaton's (state, letter) cache, read inline
        nqb = self.buchi.num_states
        sys_letter = self.sys_letter
        step_letter = self.step_letter
        node_get = self._node_index.get
        nq = self._nq
        dst: list[int] = []
        steps: list[int] = []
        accs: list[int] = []
        any_acc = 0
        for k, t in sys_steps:
            letter = sys_letter[t] | step_letter[k]
            succ = bcache.get(letter * nqb + q)
            if succ is None:
                succ = buchi_succ(q, letter)
            if len(succ) > 1:
                # Parallel automaton edges to one target: merge their acceptance marks
                # (a run may alternate between them, so the union is met infinitely
                # often; it also keeps one product edge per (step, target)).
                merged: dict[int, int] = {}
                for q2, acc in succ:
                    merged[q2] = merged.get(q2, 0) | acc
                succ = tuple(merged.items())
            for q2, acc in succ:
                n2 = node_get(t * nq + q2)
                if n2 is None:
                    n2 = self._intern_node(t, q2)
                dst.append(n2)
                steps.append(k)
                accs.append(acc)
                any_acc |= acc
        self.transitions += len(dst)
        self._out_dst[node] = dst
        self._out_step[node] = steps
        self._out_acc[node] = accs if any_acc else None

    def describe_node(self, node: int) -> str:
        """Return ``(system state, automaton state)`` as text (debugging)."""
        return f"({self.sys_states[self.node_sys[node]]}, q{self.node_q[node]})"

    def path_from_initial(self, targets: set[int] | frozenset[int]) -> tuple[int, list[tuple[int, int, int]]]:
        """Return ``(initial node, edges)`` of a shortest path (over the part explored so
        far) from an initial node to some node of ``targets``; edges are
        ``(source, step id, target)``."""
        parent: dict[int, tuple[int, int] | None] = {}
        queue: list[int] = []
        for n in self.initial_nodes_list:
            if n not in parent:
                parent[n] = None
                queue.append(n)
        head = 0
        found = -1
        while head < len(queue):
            v = queue[head]
            head += 1
            if v in targets:
                found = v
                break
            out = self._out_dst[v]
            if out is None:
                continue
            for w, k in zip(out, self._out_step[v], strict=True):  # type: ignore[arg-type]
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
