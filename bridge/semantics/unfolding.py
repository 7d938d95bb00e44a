"""Complete a lazy unfolding: search the system, unfold the pending locations it reaches.

A CSP# leaf whose static unfolding passes the front-end's limit keeps locations whose
edges are not computed yet (``ir.Process.pending``; ``ir.TransitionSystem.unfolding``).
``complete_unfolding`` explores the whole state space (plain reachability, no
reduction), collects the pending locations that some reachable state occupies, asks
the front-end to unfold them, and explores again, until a search reaches none. Then
every reachable state has all its steps: the pending locations left are unreachable,
and the system is an ordinary one for every engine and check (PAT explores only the
combinations the data allow in the same way; cspsharp.md section 7).

Each round explores from scratch (new locals can change the state layout), so a
model costs a few full searches; the front-end unfolds ahead of the reached locations
to keep the rounds few.
"""

from __future__ import annotations

from bridge.diagnostics import ModelRuntimeError, ResourceLimitReached
from bridge.ir import TransitionSystem
from bridge.semantics.statespace import build_state_space

# States one round of the search may visit before the unfolding gives up.
UNFOLDING_MAX_STATES = 2_000_000


def complete_unfolding(system: TransitionSystem,
                       max_states: int = UNFOLDING_MAX_STATES) -> TransitionSystem:
    """Return ``system`` with its lazy unfolding completed (``unfolding`` None), or
    ``system`` itself when it has none.

    Raises ``ResourceLimitReached`` when one round visits more than ``max_states``
    states, and what ``Unfolding.expand`` raises (a construct that cannot be unfolded
    lazily, named)."""
    while system.unfolding is not None:
        reached = reached_pending(system, max_states)
        system = system.unfolding.expand(reached)
    return system


def reached_pending(system: TransitionSystem, max_states: int) -> dict[str, frozenset[int]]:
    """Return the pending locations, by process name, that a reachable state of
    ``system`` occupies (a search of the whole state space; pending locations have
    no steps yet). A state whose successors raise a model error has none: every
    search reports the error there and goes no further."""
    space = build_state_space(system, partial=True)
    lay = space.layout
    pending = [tpl.process.pending for tpl in lay.processes]
    if not any(pending):
        return {}
    found: dict[int, set[int]] = {}
    seen = set()
    stack = []
    for s in space.initial_states():
        key = space.state_key(s)
        if key not in seen:
            seen.add(key)
            stack.append(s)
    while stack:
        s = stack.pop()
        rl = space.layout_of(s)
        for tpl, base in zip(rl.templates, rl.bases, strict=True):
            if pending[tpl] and s[base] in pending[tpl]:
                found.setdefault(tpl, set()).add(s[base])
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
    return {lay.processes[tpl].process.name: frozenset(locs) for tpl, locs in found.items()}
