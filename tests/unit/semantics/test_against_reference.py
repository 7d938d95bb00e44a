"""The compiled engine against a tiny tree-walking reference interpreter written here,
on random small CSP-style systems (hypothesis): globals in 0..2, guarded edges with
``x = (x + c) mod 3`` effects, optional events, atomic locations, interleaving or an
alphabetised parallel with barriers. Reachable valuations and transition counts must agree."""

from __future__ import annotations

import itertools
from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.ir import Binary, Const, Event, SourceLanguage, Var
from bridge.semantics.explore import explore
from bridge.semantics.statespace import build_state_space
from tests.irbuild import assign, edge, int_var, interleave, op, parallel, process, system

GLOBALS = ("x", "y")
EVENTS = ("a", "b", "c")


@st.composite
def edges_of(draw, n_locations: int):
    result = []
    for _ in range(draw(st.integers(1, 3))):
        source = draw(st.integers(0, n_locations - 1))
        target = draw(st.integers(0, n_locations - 1))
        guard = None
        if draw(st.booleans()):
            guard = Binary(draw(st.sampled_from(["==", "!=", "<"])),
                           Var(draw(st.sampled_from(GLOBALS))), Const(draw(st.integers(0, 2))))
        effect = []
        if draw(st.booleans()):
            g = draw(st.sampled_from(GLOBALS))
            effect = [assign(g, op("mod", op("+", Var(g), draw(st.integers(1, 2))), 3))]
        event = draw(st.sampled_from((None,) + EVENTS))
        result.append(edge(source, target, guard=guard, effect=effect, event=event))
    return result


@st.composite
def systems(draw):
    procs = []
    for i in range(draw(st.integers(1, 3))):
        n = draw(st.integers(1, 3))
        atomic = draw(st.sets(st.integers(0, n - 1), max_size=1))
        procs.append(process(f"P{i}", draw(edges_of(n)), n_locations=n, atomic=atomic))
    ids = list(range(len(procs)))
    if len(procs) > 1 and draw(st.booleans()):
        alphabets = [
            {e.event.base for e in p.edges if e.event is not None and not e.data_operation}
            for p in procs
        ]
        comp = parallel(ids, alphabets)
    else:
        comp = interleave(*ids)
    return system(procs, [int_var(g) for g in GLOBALS], composition=comp,
                  language=SourceLanguage.CSP)


def _eval(e, env):
    if isinstance(e, Const):
        return int(e.value)
    if isinstance(e, Var):
        return env[e.name]
    a, b = _eval(e.left, env), _eval(e.right, env)
    ops = {"==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b,
           "+": lambda: a + b, "mod": lambda: a % b}
    return ops[e.op]()


def _reference(ts):
    """Return (reachable valuations, transitions) by walking the IR directly."""
    procs = ts.processes
    comp = ts.composition
    alphabets = comp.alphabets if hasattr(comp, "alphabets") else [frozenset()] * len(procs)
    counts = {}
    for a in alphabets:
        for name in a:
            counts[name] = counts.get(name, 0) + 1

    atomic = [{loc.id for loc in p.locations if loc.atomic} for p in procs]

    def apply(env, locs, moves):
        env = dict(env)
        locs = list(locs)
        for i, e in moves:
            locs[i] = e.target
            for s in e.effect:
                env[s.target.name] = _eval(s.value, env)
        return env, tuple(locs)

    def succ(env, locs):
        out = []
        offers = {}
        for i, p in enumerate(procs):
            for e in p.edges:
                if e.source != locs[i] or (e.guard is not None and not _eval(e.guard, env)):
                    continue
                name = e.event.base if isinstance(e.event, Event) else None
                if name is not None and not e.data_operation and counts.get(name, 0) >= 2 \
                        and name in alphabets[i]:
                    offers.setdefault(name, {}).setdefault(i, []).append(e)
                else:
                    out.append(apply(env, locs, [(i, e)]) + ((i,),))
        for name, by in offers.items():
            need = [i for i, a in enumerate(alphabets) if name in a]
            if all(i in by for i in need):
                for combo in itertools.product(*[by[i] for i in need]):
                    out.append(apply(env, locs, list(zip(need, combo, strict=True)),
                                     ) + (tuple(need),))
        # Atomicity (CSP#): steps of instances at atomic locations first, if any.
        inside = {i for i in range(len(procs)) if locs[i] in atomic[i]}
        chosen = [x for x in out if inside & set(x[2])]
        return [x[:2] for x in (chosen or out)]

    start = ({g: 0 for g in GLOBALS}, tuple(p.initial for p in procs))
    key = lambda s: (tuple(sorted(s[0].items())), s[1])  # noqa: E731
    seen = {key(start)}
    queue = deque([start])
    transitions = 0
    while queue:
        s = queue.popleft()
        nxt = succ(*s)
        transitions += len(nxt)
        for n in nxt:
            if key(n) not in seen:
                seen.add(key(n))
                queue.append(n)
    return seen, transitions


@settings(max_examples=150, deadline=None)
@given(systems())
def test_compiled_engine_matches_reference(ts):
    reference, transitions = _reference(ts)
    space = build_state_space(ts)
    stats = explore(space)
    assert stats.transitions == transitions
    got = set()
    queue = deque(space.initial_states())
    seen = set(queue)
    while queue:
        s = queue.popleft()
        val = space.valuation(s)
        got.add((tuple(sorted((g, val[g]) for g in GLOBALS)),
                 tuple(val[f"P{i}@"] for i in range(len(ts.processes)))))
        for _, n in space.successors(s):
            if n not in seen:
                seen.add(n)
                queue.append(n)
    assert got == reference
