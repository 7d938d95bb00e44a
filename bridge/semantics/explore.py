"""Breadth-first exploration and the non-LTL checks (DESIGN.md sections 3 and 8).

``explore`` counts reachable states and transitions; ``check_property`` answers the
CSP# assertions ``deadlockfree``, ``nonterminating``, ``divergencefree``,
``deterministic``, ``reaches`` (optionally ``with min/max``), invariants, and Promela
safety (assertion violations and invalid end states, SPIN's ``pan`` without ``-E``).
Search is breadth first with parent pointers, so every counterexample trace is a
shortest one. A model error met on the way (failed assert, index out of range, division
by zero, range violation) is a VIOLATED verdict with the trace that reaches it, never an
exception (STYLE.md section 2). A state or time limit gives ``Outcome.UNKNOWN`` with the
statistics gathered so far (the CLI's exit code 3).

Hidden variables (CSP# ``hvar``) are excluded from the visited key
(``CompiledStateSpace.state_key``): the first state reached with a given key stands for
all of them, as in PAT.
"""

from __future__ import annotations

import gc
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bridge.diagnostics import ConfigurationError, ModelRuntimeError
from bridge.ir import (
    Lasso,
    Outcome,
    Property,
    PropertyKind,
    Statistics,
    Trace,
    TransitionSystem,
    Verdict,
)
from bridge.semantics.statespace import CompiledStateSpace, build_state_space
from bridge.semantics.successors import CLOCK_GAP, StateVector, Step
from bridge.semantics.trace import make_steps, make_trace

ProgressCallback = Callable[[int, int, float], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class ExploreOptions:
    """Options of ``explore``/``check_property``.

    ``max_states``/``timeout`` (seconds) bound the search (None: no bound);
    ``ignore_end_states``: SAFETY does not report invalid end states (``pan -E``);
    ``progress``: True prints ``states, transitions, states/s`` to stderr about every
    second; a callable receives ``(states, transitions, seconds)`` instead.
    ``max_memory``: bytes of the process's peak resident memory (checked with the time
    limit, about every ``CLOCK_GAP`` seconds). Keyword-only: tests that passed
    ``(max_states, timeout, False)`` set ``max_memory`` to False without knowing it.
    """

    max_states: int | None = None
    timeout: float | None = None
    max_memory: int | None = None
    ignore_end_states: bool = False
    progress: bool | ProgressCallback = False


class _Limit(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class _Found(Exception):
    """Stops the search: ``state_id`` is where the property failed."""

    def __init__(self, state_id: int, reason: str, extra: Any = None) -> None:
        self.state_id = state_id
        self.reason = reason
        self.extra = extra
        super().__init__(reason)


def _space(system: TransitionSystem | CompiledStateSpace) -> CompiledStateSpace:
    if isinstance(system, TransitionSystem):
        return build_state_space(system)
    return system


class _Search:
    """Breadth-first search with dense ids and parent pointers."""

    def __init__(self, space: CompiledStateSpace, options: ExploreOptions, keep_parents: bool) -> None:
        self.space = space
        self.options = options
        self.keep_parents = keep_parents
        self.states: list[StateVector] = []
        self.parent: list[int] = []
        self.via: list[Step | None] = []
        self.depth_of: list[int] = []
        self.visited: dict[StateVector, int] = {}
        self.transitions = 0
        self.start = time.perf_counter()
        self.depth = 0

    def add(self, state: StateVector, parent: int, step: Step | None) -> int:
        key = self.space.state_key(state)
        sid = self.visited.get(key)
        if sid is not None:
            return sid
        sid = len(self.states)
        self.visited[key] = sid
        self.states.append(state)
        if self.keep_parents:
            self.parent.append(parent)
            self.via.append(step)
        return sid

    def run(
        self,
        on_state: Callable[[int, StateVector, list[tuple[Step, StateVector]]], None] | None = None,
        on_error: Callable[[int, ModelRuntimeError], None] | None = None,
        on_edge: Callable[[int, Step, int], None] | None = None,
    ) -> None:
        """Explore everything reachable; the callbacks may raise ``_Found``."""
        space = self.space
        options = self.options
        max_states = options.max_states
        timeout = options.timeout
        progress = options.progress
        succ = space.successors
        key_of = space.state_key
        hidden = space.layout.hidden_count != 0
        visited = self.visited
        states = self.states
        keep = self.keep_parents
        parent, via = self.parent, self.via
        for s in space.initial_states():
            self.add(s, -1, None)
        start = self.start
        # States are tuples of ints: no reference cycles, but the cyclic collector would
        # still traverse every stored tuple again and again as the visited map grows.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        next_check = 1
        check_every = 1
        last_check = last_print = start
        head = 0
        level_end = len(states)
        transitions = 0
        try:
            while head < len(states):
                if head == level_end:
                    self.depth += 1
                    level_end = len(states)
                s = states[head]
                try:
                    out = succ(s)
                except ModelRuntimeError as err:
                    if on_error is not None:
                        on_error(head, err)
                    raise _Found(head, err.kind, err) from None
                transitions += len(out)
                if on_state is not None:
                    on_state(head, s, out)
                for step, n in out:
                    k = key_of(n) if hidden else n
                    nid = visited.get(k)
                    if nid is None:
                        nid = len(states)
                        visited[k] = nid
                        states.append(n)
                        if keep:
                            parent.append(head)
                            via.append(step)
                    if on_edge is not None:
                        on_edge(head, step, nid)
                head += 1
                if max_states is not None and len(states) > max_states:
                    raise _Limit(f"state limit {max_states} reached")
                if head >= next_check:
                    now = time.perf_counter()
                    # read the clock about every CLOCK_GAP s whatever a state costs
                    # (10,000-slot states take milliseconds; small ones microseconds)
                    gap, last_check = now - last_check, now
                    if gap < CLOCK_GAP / 4:
                        check_every = min(check_every * 2, 1024)
                    elif gap > CLOCK_GAP:
                        check_every = max(1, check_every // 4)
                    next_check = head + check_every
                    if timeout and now - start > timeout:
                        raise _Limit(f"time limit {timeout}s reached")
                    if options.max_memory and _resident_bytes() > options.max_memory:
                        raise _Limit(f"memory limit {options.max_memory} bytes reached")
                    if progress and now - last_print >= 1.0:
                        last_print = now
                        self.transitions = transitions
                        _report(progress, len(states), transitions, now - start)
        finally:
            if gc_was_enabled:
                gc.enable()
            self.transitions = transitions
            self.explored = head

    def statistics(self) -> Statistics:
        seconds = time.perf_counter() - self.start
        n = len(self.states)
        per_state = _bytes_per_state(self.visited, self.states) if n else 0
        rate = n / seconds if seconds > 0 else 0.0
        return Statistics(
            states=n,
            transitions=self.transitions,
            seconds=seconds,
            peak_memory_bytes=int(per_state * n),
            depth=self.depth,
            extra=(("bytes_per_state", round(per_state, 1)), ("states_per_second", round(rate))),
        )

    def path_to(self, sid: int) -> list[tuple[Step, StateVector]]:
        path: list[tuple[Step, StateVector]] = []
        while sid > 0 and self.parent[sid] >= 0:
            step = self.via[sid]
            assert step is not None
            path.append((step, self.states[sid]))
            sid = self.parent[sid]
        path.reverse()
        return path

    def trace_to(self, sid: int) -> Trace:
        return make_trace(self.space, self.states[0], self.path_to(sid))


def _resident_bytes() -> int:
    """Return the peak resident memory of this process in bytes (Linux: ru_maxrss KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _report(progress: bool | ProgressCallback, states: int, transitions: int, seconds: float) -> None:
    if callable(progress):
        progress(states, transitions, seconds)
        return
    rate = states / seconds if seconds > 0 else 0.0
    print(
        f"bridge: {states} states, {transitions} transitions, {seconds:.1f}s, "
        f"{rate:,.0f} states/s",
        file=sys.stderr,
        flush=True,
    )


def _bytes_per_state(visited: dict, states: list) -> float:
    """Return the approximate memory per stored state: the tuple, its share of the
    visited map and of the state list, and int objects outside CPython's small-int
    cache (measured on a sample)."""
    n = len(states)
    sample = states[:: max(1, n // 200)]
    tuple_bytes = sum(sys.getsizeof(s) for s in sample) / len(sample)
    big_ints = sum(
        sys.getsizeof(v) for s in sample for v in s
        if not isinstance(v, int) or not -5 <= v <= 256  # library values are tuples
    ) / len(sample)
    return tuple_bytes + big_ints + sys.getsizeof(visited) / n + sys.getsizeof(states) / n


def explore(
    system: TransitionSystem | CompiledStateSpace, options: ExploreOptions = ExploreOptions()
) -> Statistics:
    """Return the statistics of a full breadth-first exploration.

    Raises ``ResourceLimitReached`` (with the statistics) when a limit stops it, and
    lets a ``ModelRuntimeError`` through (``check_property`` reports those as verdicts).
    """
    from bridge.diagnostics import ResourceLimitReached

    space = _space(system)
    search = _Search(space, options, keep_parents=False)
    try:
        search.run()
    except _Limit as limit:
        raise ResourceLimitReached(limit.reason, search.statistics()) from None
    except _Found as found:
        raise found.extra from None
    return search.statistics()


def _verdict(space: CompiledStateSpace, prop: Property, outcome: Outcome, search: _Search,
             reason: str = "", trace: Trace | None = None, **kw: Any) -> Verdict:
    return Verdict(
        space.system.name, prop.name, outcome, reason, "none", trace, kw.pop("lasso", None),
        search.statistics(), **kw,
    )


def check_property(
    system: TransitionSystem | CompiledStateSpace,
    prop: Property,
    options: ExploreOptions = ExploreOptions(),
) -> Verdict:
    """Return the verdict for a non-LTL property (see the module docstring).

    DEADLOCK_FREE: no reachable state without steps that is not terminated;
    NONTERMINATING: no reachable state without steps; DIVERGENCE_FREE: no reachable
    cycle of internal (event-less) steps (violations come as a ``Lasso``);
    DETERMINISTIC: no state with two steps on one visible event to different states;
    REACHES: HOLDS with a shortest witness trace when a state satisfies the condition
    (``with min/max``: explores everything, ``value`` is the extreme of the expression
    over satisfying states, the trace reaches one such state), else VIOLATED; INVARIANT:
    the condition holds in every reachable state; SAFETY: no assertion violation and,
    unless ``ignore_end_states``, no invalid end state (cspsharp.md sections 6-7,
    promela-spin.md section 11).
    """
    try:
        space = _space(system)
    except ModelRuntimeError as err:  # the initial state itself is erroneous
        name = system.system.name if isinstance(system, CompiledStateSpace) else system.name
        return Verdict(name, prop.name, Outcome.VIOLATED, err.kind, notes=(str(err),))
    kind = prop.kind
    if kind is PropertyKind.LTL:
        raise ConfigurationError(
            "check_property does not check LTL; use bridge.fairness.check.check_ltl"
        )
    search = _Search(space, options, keep_parents=True)
    holds_reason = ""
    on_state = None
    on_edge = None
    tau_edges: list[tuple[int, Step, int]] = []
    best: list[Any] = [None, -1]  # value, state id

    if kind is PropertyKind.DEADLOCK_FREE:
        def on_state(sid: int, s: StateVector, out: list) -> None:
            if not out and not space.is_terminal(s):
                raise _Found(sid, "deadlock")
    elif kind is PropertyKind.NONTERMINATING:
        def on_state(sid: int, s: StateVector, out: list) -> None:
            if not out:
                raise _Found(sid, "terminated" if space.is_terminal(s) else "deadlock")
    elif kind is PropertyKind.SAFETY:
        if not options.ignore_end_states:
            def on_state(sid: int, s: StateVector, out: list) -> None:
                if not out and not space.is_valid_end(s):
                    raise _Found(sid, "invalid end state")
    elif kind is PropertyKind.DETERMINISTIC:
        def on_state(sid: int, s: StateVector, out: list) -> None:
            event = nondeterministic_event(space, out)
            if event is not None:
                raise _Found(sid, f"nondeterministic on event '{event}'")
    elif kind in (PropertyKind.INVARIANT, PropertyKind.REACHES):
        if prop.condition is None:
            raise ConfigurationError(f"property '{prop.name}' has no condition")
        pred = space.predicate(prop.condition)
        if kind is PropertyKind.INVARIANT:
            def on_state(sid: int, s: StateVector, out: list) -> None:
                if not pred(s):
                    raise _Found(sid, "invariant violated")
        elif prop.optimise is None:
            def on_state(sid: int, s: StateVector, out: list) -> None:
                if pred(s):
                    raise _Found(sid, "reached")
        else:
            direction, expr = prop.optimise
            if direction not in ("min", "max"):
                raise ConfigurationError(
                    f"unknown optimisation '{direction}'; expected 'min' or 'max'"
                )
            value_of = space.evaluator(expr)

            def on_state(sid: int, s: StateVector, out: list) -> None:
                if pred(s):
                    v = value_of(s)
                    if best[1] < 0 or (v < best[0] if direction == "min" else v > best[0]):
                        best[0], best[1] = v, sid
    elif kind is PropertyKind.DIVERGENCE_FREE:
        def on_edge(sid: int, step: Step, nid: int) -> None:
            if step.event is None and not step.stutter:
                tau_edges.append((sid, step, nid))
    else:
        raise ConfigurationError(
            f"unsupported property kind {kind.value}; expected one of "
            + ", ".join(k.value for k in PropertyKind if k is not PropertyKind.LTL)
        )

    try:
        # Predicates can fail on the initial state too: evaluate inside the search.
        search.run(on_state=on_state, on_edge=on_edge)
    except _Limit as limit:
        return _verdict(space, prop, Outcome.UNKNOWN, search, limit.reason)
    except ModelRuntimeError as err:
        # Raised by a predicate (not by successors): the state being visited.
        sid = getattr(search, "explored", 0)
        return _verdict(space, prop, Outcome.VIOLATED, search, err.kind,
                        search.trace_to(sid), notes=(str(err),))
    except _Found as found:
        trace = search.trace_to(found.state_id)
        if isinstance(found.extra, ModelRuntimeError):
            return _verdict(space, prop, Outcome.VIOLATED, search, found.reason, trace,
                            notes=(str(found.extra),))
        if kind is PropertyKind.REACHES:
            return _verdict(space, prop, Outcome.HOLDS, search, "reached", trace)
        return _verdict(space, prop, Outcome.VIOLATED, search, found.reason, trace)

    if kind is PropertyKind.REACHES:
        if best[1] >= 0:
            return _verdict(space, prop, Outcome.HOLDS, search, "reached",
                            search.trace_to(best[1]), value=best[0])
        return _verdict(space, prop, Outcome.VIOLATED, search, "condition not reachable")
    if kind is PropertyKind.DIVERGENCE_FREE:
        cycle = _find_cycle(len(search.states), tau_edges)
        if cycle is not None:
            entry = cycle[0][0]
            prefix = search.trace_to(entry)
            loop_path = [(step, search.states[dst]) for _, step, dst in cycle]
            loop = make_steps(space, search.states[entry], loop_path)
            return _verdict(space, prop, Outcome.VIOLATED, search, "divergence", prefix,
                            lasso=Lasso(prefix, loop))
    return _verdict(space, prop, Outcome.HOLDS, search, holds_reason)


def nondeterministic_event(space: CompiledStateSpace,
                           out: list[tuple[Step, StateVector]]) -> str | None:
    """Return the event on which the steps ``out`` of one state go to two different
    states (each visible step compared with the last earlier step on its event), or
    None when they are deterministic (cspsharp.md section 6, ``deterministic``)."""
    seen: dict[str, StateVector] = {}
    for step, n in out:
        if step.event is None:
            continue
        other = seen.get(step.event)
        if other is not None and space.state_key(other) != space.state_key(n):
            return step.event
        seen[step.event] = n
    return None


def _find_cycle(n: int, edges: list[tuple[int, Step, int]]) -> list[tuple[int, Step, int]] | None:
    """Return the edges of a cycle in the graph ``edges`` (iterative DFS), or None."""
    adjacency: dict[int, list[tuple[int, Step, int]]] = {}
    for e in edges:
        adjacency.setdefault(e[0], []).append(e)
    color = [0] * n  # 0 new, 1 on stack, 2 done
    for root in sorted(adjacency):
        if color[root]:
            continue
        stack: list[tuple[int, int]] = [(root, 0)]
        path: list[tuple[int, Step, int]] = []
        color[root] = 1
        while stack:
            v, i = stack[-1]
            out = adjacency.get(v, [])
            if i < len(out):
                stack[-1] = (v, i + 1)
                e = out[i]
                w = e[2]
                if color[w] == 1:
                    # A back edge closes a cycle: from w along the DFS path to v, then e.
                    if w == v:
                        return [e]
                    start = next(j for j, pe in enumerate(path) if pe[0] == w)
                    return path[start:] + [e]
                if color[w] == 0:
                    color[w] = 1
                    path.append(e)
                    stack.append((w, 0))
            else:
                color[v] = 2
                stack.pop()
                if path:
                    path.pop()
    return None


def simulate(system: TransitionSystem | CompiledStateSpace, steps: int, seed: int | None = None) -> Trace:
    """Return a random run of at most ``steps`` steps (uniform choice among enabled
    steps); it stops early in a state without steps or at a model error (the error is
    the last step's text)."""
    space = _space(system)
    rng = random.Random(seed)
    state = space.initial_states()[0]
    path: list[tuple[Step, StateVector]] = []
    for _ in range(steps):
        try:
            out = space.successors(state)
        except ModelRuntimeError:
            break
        if not out:
            break
        step, state = out[rng.randrange(len(out))]
        path.append((step, state))
    return make_trace(space, space.initial_states()[0], path)


__all__ = ["ExploreOptions", "check_property", "explore", "nondeterministic_event", "simulate"]
