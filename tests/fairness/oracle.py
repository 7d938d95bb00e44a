"""Independent oracles for the fair SCC search, written straight from the definitions.

- ``brute_force_fair_exists``: builds its own product of an ``ExplicitLts`` with a
  ``Buchi`` (PAT convention: the automaton reads the target state's labels and the
  step's event; ``init`` first; deadlocks stutter), enumerates every set of product
  states, keeps those whose induced subgraph is strongly connected with at least one
  edge, and tests acceptance and the fairness definitions on the loop that traverses
  all its states and edges (paper 000 Props. 1-3, Def. 4; 002 Defs. 4-5; 000 section 4
  for annotations). A fair loop exists iff such a subgraph exists (adding the induced
  edges to a loop's subgraph only adds engagements and accepting edges).
- ``check_lasso``: replays a lasso returned by the engine against the LTS and the
  automaton and re-checks acceptance and fairness of its loop from the definitions.

Nothing here uses ``bridge.fairness``; only ``evaluate_condition`` of the automaton view.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from itertools import combinations

from bridge.automata.buchi import Buchi, evaluate_condition
from bridge.ir.model import FairnessMark
from bridge.ir.property import Fairness
from tests.fairness.explicit import ExplicitLts

STUTTER = "<stutter>"

# A system transition as the oracle sees it: (action, target, processes, tau, event)
SysStep = tuple[Hashable, int, tuple[int, ...], bool, "str | None"]


def system_steps(lts: ExplicitLts, s: int) -> list[SysStep]:
    """Return the steps of ``s``; a state without steps gets the stutter loop."""
    out: list[SysStep] = []
    for t in lts.transitions.get(s, ()):
        action, target = t[0], t[1]
        procs = tuple(t[2]) if len(t) > 2 else ()
        tau = bool(t[3]) if len(t) > 3 else False
        out.append((action, target, procs, tau, None if tau else str(action)))
    if not out:
        out.append((STUTTER, s, (), False, None))
    return out


def enabled_actions(lts: ExplicitLts, s: int) -> set[Hashable]:
    return {a for a, _t, _p, tau, _e in system_steps(lts, s) if not tau and a != STUTTER}


def enabled_processes(lts: ExplicitLts, s: int) -> set[int]:
    return {q for a, _t, procs, _tau, _e in system_steps(lts, s) if a != STUTTER for q in procs}


def loop_is_fair(
    lts: ExplicitLts,
    states: set[int],
    steps: set[tuple[int, Hashable, int]],
    fairness: Fairness,
    marks: Mapping[str, FairnessMark] | None = None,
) -> bool:
    """Return whether a loop visiting exactly ``states`` (system states) and taking
    exactly the system ``steps`` ``(s, (action, processes), s')`` infinitely often is
    fair (a step is identified by its action and the processes that move)."""
    engaged = {a for _s, (a, _p), _t in steps if a != STUTTER}
    # tau actions never need to be engaged (PAT): ``enabled_actions`` leaves them out
    step_info = {}
    for s in states:
        for a, t, procs, tau, ev in system_steps(lts, s):
            step_info[(s, (a, procs), t)] = (procs, tau, ev)
    moved = {q for st in steps for q in step_info[st][0]}
    ok = True
    if fairness is Fairness.WEAK:
        always = set.intersection(*(enabled_actions(lts, s) for s in states))
        ok = always <= engaged
    elif fairness is Fairness.STRONG_LOCAL:
        ok = all(enabled_actions(lts, s) <= engaged for s in states)
    elif fairness is Fairness.STRONG_GLOBAL:
        ok = all((s, (a, p), t) in steps for s in states for a, t, p, *_ in system_steps(lts, s))
    elif fairness is Fairness.PROCESS_WEAK:
        always_p = set.intersection(*(enabled_processes(lts, s) for s in states))
        ok = always_p <= moved
    elif fairness is Fairness.PROCESS_STRONG:
        ok = all(enabled_processes(lts, s) <= moved for s in states)
    if not ok:
        return False
    if marks:
        engaged_events = {step_info[st][2] for st in steps} - {None}

        def enabled_events(s: int) -> set[str]:
            return {ev for a, _t, _p, _tau, ev in system_steps(lts, s) if ev is not None}

        for event, mark in marks.items():
            if mark is FairnessMark.F and event not in engaged_events:
                return False
            if mark in (FairnessMark.WF, FairnessMark.WL):
                if all(event in enabled_events(s) for s in states) and event not in engaged_events:
                    return False
            if mark in (FairnessMark.SF, FairnessMark.SL):
                if any(event in enabled_events(s) for s in states) and event not in engaged_events:
                    return False
    return True


def _oracle_product(
    lts: ExplicitLts,
    buchi: Buchi,
    state_letter: Callable[[int], int],
    event_letter: Callable[[str | None], int],
):
    """Return (initial nodes, edges) of the product; nodes are (s, q); edges are
    ((s, q), (t, q2), action, acceptance mask)."""
    init = set()
    for e in buchi.edges[buchi.initial]:
        if evaluate_condition(e.condition, state_letter(lts.initial) | event_letter("init")):
            init.add((lts.initial, e.target))
    edges = []
    seen = set(init)
    todo = list(init)
    while todo:
        s, q = todo.pop()
        for a, t, procs, _tau, ev in system_steps(lts, s):
            letter = state_letter(t) | event_letter(ev)
            for e in buchi.edges[q]:
                if evaluate_condition(e.condition, letter):
                    n2 = (t, e.target)
                    edges.append(((s, q), n2, (a, procs), e.acceptance))
                    if n2 not in seen:
                        seen.add(n2)
                        todo.append(n2)
    return init, seen, edges


def _strongly_connected(nodes: frozenset, edges: list) -> bool:
    if not edges:
        return False
    start = next(iter(nodes))
    fwd = {n: [] for n in nodes}
    bwd = {n: [] for n in nodes}
    for u, v, *_ in edges:
        fwd[u].append(v)
        bwd[v].append(u)
    for adj in (fwd, bwd):
        seen = {start}
        stack = [start]
        while stack:
            u = stack.pop()
            for v in adj[u]:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        if len(seen) != len(nodes):
            return False
    return True


def brute_force_fair_exists(
    lts: ExplicitLts,
    buchi: Buchi,
    state_letter: Callable[[int], int],
    event_letter: Callable[[str | None], int],
    fairness: Fairness,
    marks: Mapping[str, FairnessMark] | None = None,
    max_nodes: int = 14,
) -> bool:
    """Return whether a fair accepting loop exists, by enumerating subgraphs."""
    _init, nodes, edges = _oracle_product(lts, buchi, state_letter, event_letter)
    nodes = sorted(nodes)
    if len(nodes) > max_nodes:
        raise ValueError(f"oracle limited to {max_nodes} product states, got {len(nodes)}")
    all_sets = (1 << buchi.num_sets) - 1
    for size in range(1, len(nodes) + 1):
        for subset in combinations(nodes, size):
            d = frozenset(subset)
            inner = [e for e in edges if e[0] in d and e[1] in d]
            if not _strongly_connected(d, inner):
                continue
            acc = 0
            for e in inner:
                acc |= e[3]
            if acc & all_sets != all_sets:
                continue
            states = {s for s, _q in d}
            steps = {(u[0], a, v[0]) for u, v, a, _acc in inner}
            if loop_is_fair(lts, states, steps, fairness, marks):
                return True
    return False


def check_lasso(
    lts: ExplicitLts,
    buchi: Buchi,
    state_letter: Callable[[int], int],
    event_letter: Callable[[str | None], int],
    run: list[tuple[int, int]],
    actions: list[Hashable],
    loop_start: int,
    fairness: Fairness,
    marks: Mapping[str, FairnessMark] | None = None,
) -> None:
    """Raise AssertionError unless ``run`` is an accepting fair lasso.

    ``run`` lists the product states ``(system state, automaton state)`` from the
    initial one; ``actions[i]`` is the ``(action, processes)`` taken from ``run[i]`` to ``run[i+1]``;
    the loop is ``run[loop_start:]`` and its last state equals ``run[loop_start]``.
    """
    assert len(actions) == len(run) - 1
    assert len(run) - 1 > loop_start, "empty loop"
    assert run[-1] == run[loop_start], "loop does not close"
    s0, q0 = run[0]
    assert s0 == lts.initial
    assert any(
        e.target == q0 and evaluate_condition(e.condition, state_letter(s0) | event_letter("init"))
        for e in buchi.edges[buchi.initial]
    ), "initial automaton state not reachable by the init pseudo-step"
    acc_loop = 0
    for i, a in enumerate(actions):
        (s, q), (t, q2) = run[i], run[i + 1]
        matching = [st for st in system_steps(lts, s) if (st[0], st[2]) == a and st[1] == t]
        assert matching, f"no system step {s} -{a}-> {t}"
        ev = matching[0][4]
        letter = state_letter(t) | event_letter(ev)
        masks = [e.acceptance for e in buchi.edges[q] if e.target == q2 and evaluate_condition(e.condition, letter)]
        assert masks, f"no automaton edge q{q} -> q{q2} on letter {letter:b}"
        if i >= loop_start:
            m = 0
            for x in masks:
                m |= x
            acc_loop |= m
    all_sets = (1 << buchi.num_sets) - 1
    assert acc_loop & all_sets == all_sets, "loop is not accepting"
    states = {run[i][0] for i in range(loop_start, len(run) - 1)}
    steps = {(run[i][0], actions[i], run[i + 1][0]) for i in range(loop_start, len(actions))}
    assert loop_is_fair(lts, states, steps, fairness, marks), f"loop is not {fairness.value} fair"
