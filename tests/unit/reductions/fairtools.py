"""Test helpers for the reductions: a fair LTL check on any ``StateSpace`` (built from the
fairness room's product and emptiness search), explicit reachability, lasso replay.

The reductions must give the same verdict as the unreduced space; these helpers run the
*same* checker on both, so any difference comes from the reduction alone.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass

from bridge.ir import Fairness, LtlEvent, LtlState
from bridge.ir.property import Ltl
from bridge.semantics.successors import StateSpace, StateVector, Step

fairness_room = importlib.import_module("bridge.fairness.emptiness")
from bridge.automata.ltl import translate_formula  # noqa: E402
from bridge.fairness.conditions import make_condition  # noqa: E402
from bridge.fairness.emptiness import find_fair_lasso  # noqa: E402
from bridge.fairness.product import Product  # noqa: E402


@dataclass
class Outcome:
    violated: bool
    prefix: list[tuple[Step, StateVector]]
    loop: list[tuple[Step, StateVector]]
    initial: StateVector | None
    nodes: int


def check(
    space: StateSpace, formula: Ltl, fairness: Fairness = Fairness.NONE, full_enabled: bool = False
) -> Outcome:
    """Return whether some fair run of ``space`` violates ``formula``, with the lasso.

    ``full_enabled``: judge enabledness with ``space.full_successors`` (the unreduced
    steps of a POR wrapper) instead of the successors the search explores; this is how
    the fairness engine must treat ``PartialOrderReduction`` under weak fairness.
    """
    if full_enabled:
        return _with_full_enabled_sets(space, formula, fairness)
    aut = translate_formula(formula)
    atoms = aut.binding.atoms
    preds = []
    for i, atom in enumerate(atoms):
        if isinstance(atom, LtlState):
            preds.append((1 << i, space.predicate(atom.expr)))  # type: ignore[attr-defined]
    events = {atom.name: 1 << i for i, atom in enumerate(atoms) if isinstance(atom, LtlEvent)}

    def state_letter(s: StateVector) -> int:
        return sum(bit for bit, p in preds if p(s))

    def event_letter(e: str | None) -> int:
        return events.get(e, 0) if e is not None else 0

    product = Product(space, aut.buchi, state_letter, event_letter)
    condition = make_condition(product, fairness)
    lasso = find_fair_lasso(product, condition)
    if lasso is None:
        return Outcome(False, [], [], None, product.num_nodes)

    def walk(edges) -> list[tuple[Step, StateVector]]:
        return [
            (product.steps[k], product.sys_states[product.node_sys[t]]) for _s, k, t in edges
        ]

    initial = product.sys_states[product.node_sys[lasso.initial]]
    return Outcome(True, walk(lasso.prefix), walk(lasso.loop), initial, product.num_nodes)


def _with_full_enabled_sets(space, formula, fairness) -> Outcome:
    from unittest import mock

    import bridge.fairness.conditions as conditions

    def actions(p, s):
        cache = p.__dict__.setdefault("_full_enabled_actions", {})
        hit = cache.get(s)
        if hit is None:
            ids = [p._intern_step(step) for step, _t in space.full_successors(p.sys_states[s])]
            hit = frozenset(
                p.step_action[k] for k in ids if not p.steps[k].tau and not p.steps[k].stutter
            )
            cache[s] = hit
        return hit

    def processes(p, s):
        return frozenset(
            q for step, _t in space.full_successors(p.sys_states[s]) for q in step.processes
        )

    with mock.patch.object(conditions, "_enabled_actions", actions), \
            mock.patch.object(conditions, "_enabled_processes", processes):
        return check(space, formula, fairness)


def reachable(space: StateSpace, limit: int = 200_000) -> set[StateVector]:
    """Return every reachable state (iterative BFS)."""
    seen = set(space.initial_states())
    todo = list(seen)
    while todo:
        s = todo.pop()
        for _step, t in space.successors(s):
            if t not in seen:
                seen.add(t)
                todo.append(t)
                if len(seen) > limit:
                    raise AssertionError("state space too large for a test")
    return seen


def replay(space: StateSpace, start: StateVector, path: Sequence[tuple[Step, StateVector]]) -> None:
    """Assert that every step of ``path`` is a step of ``space`` from the state before."""
    cur = start
    for step, target in path:
        if step.stutter:
            assert not space.successors(cur), "stutter step from a state with steps"
            assert target == cur
            continue
        options = space.successors(cur)
        assert (step, target) in [(a, b) for a, b in options], (
            f"step {step} to {target} is not a step of {cur}"
        )
        cur = target
