"""Complete a lazy unfolding: search the system, unfold the pending locations it reaches.

A CSP# leaf whose static unfolding passes the front-end's limit keeps locations whose
edges are not computed yet (``ir.Process.pending``; ``ir.TransitionSystem.unfolding``).
``complete_unfolding`` explores the whole state space (plain reachability, no
reduction), collects the pending locations that some reachable state occupies, asks
the front-end to unfold them, and explores again, until a search reaches none. Then
every reachable state has all its steps: the pending locations left are unreachable,
and the system is an ordinary one for every engine and check (PAT explores only the
combinations the data allow in the same way; cspsharp.md section 7).

A round goes on from the previous one when the unfolding only added locations and
edges (same variables, the old locations and edges a prefix of the new ones): the
states seen are kept, and only the states that sat at a location unfolded since are
expanded again (their other steps lead to states seen already). Otherwise (new
locals change the state layout, or a leaf was unfolded anew) it explores from
scratch. The front-end unfolds ahead of the reached locations to keep the rounds few.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge.diagnostics import ModelRuntimeError, ResourceLimitReached, past_time_limit
from bridge.ir import Process, TransitionSystem
from bridge.semantics.statespace import build_state_space

# States one round of the search may visit before the unfolding gives up.
UNFOLDING_MAX_STATES = 2_000_000

StateVector = tuple[int, ...]


@dataclass
class Round:
    """What a search of a partly unfolded system leaves for the next round: the
    system, the keys of the states seen, the states that sat at pending locations (by
    process name and location), and the number of states expanded (all rounds)."""

    system: TransitionSystem
    seen: set[StateVector] = field(default_factory=set)
    parked: dict[tuple[str, int], list[StateVector]] = field(default_factory=dict)
    expanded: int = 0


def complete_unfolding(system: TransitionSystem,
                       max_states: int = UNFOLDING_MAX_STATES) -> TransitionSystem:
    """Return ``system`` with its lazy unfolding completed (``unfolding`` None), or
    ``system`` itself when it has none.

    Raises ``ResourceLimitReached`` when a search visits more than ``max_states``
    states or runs past the time limit (``diagnostics.time_limit``), and what ``Unfolding.expand`` raises (a construct that cannot be unfolded
    lazily, named)."""
    previous: Round | None = None
    while system.unfolding is not None:
        if past_time_limit():
            raise ResourceLimitReached(f"{system.name}: unfolding the processes lazily: "
                                       "time limit reached")
        reached, previous = search_round(system, max_states, previous)
        system = system.unfolding.expand(reached)
    return system


def search_round(system: TransitionSystem, max_states: int, previous: Round | None
                 ) -> tuple[dict[str, frozenset[int]], Round]:
    """Return the pending locations, by process name, that a reachable state of
    ``system`` occupies, and the round to go on from (pending locations have no steps
    yet). With ``previous`` (the round of the system this one was unfolded from) and
    only locations and edges added since, the search goes on from its states. A state
    whose successors raise a model error has none: every search reports the error
    there and goes no further."""
    space = build_state_space(system, partial=True)
    lay = space.layout
    pending = [tpl.process.pending for tpl in lay.processes]
    names = [tpl.process.name for tpl in lay.processes]
    stack: list[StateVector] = []
    if previous is not None and only_added(previous.system, system):
        state = Round(system, previous.seen, {}, previous.expanded)
        by_name = {p.name: p.pending for p in system.processes}
        for (name, loc), states in previous.parked.items():
            if loc in by_name.get(name, frozenset()):
                state.parked[(name, loc)] = states  # still pending: still reached
            else:
                stack.extend(states)
    else:
        state = Round(system, set(), {}, previous.expanded if previous else 0)
        for s in space.initial_states():
            key = space.state_key(s)
            if key not in state.seen:
                state.seen.add(key)
                stack.append(s)
    if not any(pending):
        return {}, state
    seen = state.seen
    parked = state.parked
    while stack:
        s = stack.pop()
        state.expanded += 1
        if not state.expanded & 1023 and past_time_limit():
            raise ResourceLimitReached(
                f"{system.name}: unfolding the processes lazily: time limit reached after "
                f"{len(seen)} states")
        rl = space.layout_of(s)
        for tpl, base in zip(rl.templates, rl.bases, strict=True):
            if pending[tpl] and s[base] in pending[tpl]:
                parked.setdefault((names[tpl], s[base]), []).append(s)
        try:
            steps = space.successors(s)
        except ModelRuntimeError:
            continue  # a model error here: every search stops at this state
        for _, t in steps:
            key = space.state_key(t)
            if key not in seen:
                if len(seen) >= max_states:
                    raise ResourceLimitReached(
                        f"{system.name}: unfolding the processes lazily: a search passed "
                        f"{max_states} states")
                seen.add(key)
                stack.append(t)
    found: dict[str, set[int]] = {}
    for name, loc in parked:
        found.setdefault(name, set()).add(loc)
    return {name: frozenset(locs) for name, locs in found.items()}, state


def only_added(old: TransitionSystem, new: TransitionSystem) -> bool:
    """Return True if ``new`` is ``old`` with locations and edges added to its
    processes and nothing else changed (so a state of one is a state of the other,
    with the same steps wherever ``old`` had them all)."""
    if (old.globals != new.globals or old.channels != new.channels
            or old.instances != new.instances or old.composition != new.composition
            or old.enums != new.enums or old.max_instances != new.max_instances
            or old.never != new.never or old.priority_scheduling != new.priority_scheduling
            or len(old.processes) != len(new.processes)):
        return False
    return all(p is q or grown(p, q) for p, q in zip(old.processes, new.processes, strict=True))


def grown(old: Process, new: Process) -> bool:
    """Return True if ``new`` is ``old`` with locations and edges appended (edges only
    from locations that were pending in ``old``)."""
    if (old.name != new.name or old.parameters != new.parameters or old.locals != new.locals
            or old.initial != new.initial or old.channels != new.channels
            or old.provided != new.provided
            or old.channel_assertions != new.channel_assertions):
        return False
    n, m = len(old.locations), len(old.edges)
    if new.locations[:n] != old.locations or new.edges[:m] != old.edges:
        return False
    return all(e.source >= n or e.source in old.pending for e in new.edges[m:])
