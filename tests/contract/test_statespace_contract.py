"""One contract suite for every ``StateSpace`` (STYLE.md section 6, dd's shared tests).

``SPACES`` lists factories ``name -> () -> StateSpace``; reductions and wrappers add
theirs (``SPACES["por:..."] = ...``) so every implementation meets the same protocol
invariants: successors are deterministic, steps hashable and interned-equal, initial
states non-empty, valuation names stable across states of one layout, terminal states
are valid end states, and explored state counts agree with a reference BFS.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import pytest

from bridge.ir import (
    BYTE,
    Builtin,
    Channel,
    ElseGuard,
    Instance,
    Receive,
    RecvBind,
    Run,
    Send,
    SourceLanguage,
    Var,
)
from bridge.semantics.statespace import build_state_space
from tests.irbuild import (
    G,
    L,
    add,
    assign,
    counter,
    edge,
    eq,
    int_var,
    lt,
    op,
    parallel,
    process,
    system,
)


def _counters() -> Any:
    procs = [counter(f"C{i}", f"x{i}", 3, event=f"t{i}") for i in range(3)]
    return build_state_space(system(procs, [int_var(f"x{i}") for i in range(3)],
                                    language=SourceLanguage.CSP))


def _barrier() -> Any:
    p = process("P", [edge(0, 1, event="a"), edge(1, 0, event="b")])
    q = process("Q", [edge(0, 1, event="a"), edge(1, 0, event="c")])
    return build_state_space(system([p, q], composition=parallel([0, 1], [{"a", "b"}, {"a", "c"}]),
                                    language=SourceLanguage.CSP))


def _promela_channels() -> Any:
    mk = edge(0, 1).__class__
    c = Var("c", "global")
    prod = process("Prod", [], n_locations=1)
    prod = prod.__class__("Prod", (), (), prod.locations, (
        mk(0, 0, lt(G("n"), 3), Send(c, (G("n"),)), (assign("n", add(G("n"), 1)),), None, None,
           None, "c!n; n++"),
    ), 0)
    cons = process("Cons", [], n_locations=1, locals_=[int_var("v")])
    cons = cons.__class__("Cons", (), cons.locals, cons.locations, (
        mk(0, 0, None, Receive(c, (RecvBind(L("v")),)), (), None, None, None, "c?v"),
        mk(0, 0, ElseGuard(), None, (), None, None, None, "else"),
    ), 0)
    return build_state_space(system([prod, cons], [int_var("n")], [Channel("c", 2, (BYTE,))],
                                    language=SourceLanguage.PROMELA))


def _promela_run() -> Any:
    child = process("Child", [edge(0, 1, effect=[assign("seen", Builtin("_nr_pr"))])],
                    n_locations=2, terminal=[1])
    init = process("init", [
        edge(0, 0, guard=lt(L("i"), 2), effect=[Run("Child", ()), assign(L("i"), add(L("i"), 1))]),
        edge(0, 1, guard=eq(L("i"), 2)),
    ], n_locations=2, terminal=[1], locals_=[int_var("i")])
    return build_state_space(system([init, child], [int_var("seen")],
                                    instances=[Instance("init", (), "init")],
                                    language=SourceLanguage.PROMELA))


def _rendezvous() -> Any:
    mk = edge(0, 1).__class__
    c = Var("c", "global")
    s = process("S", [], n_locations=1)
    s = s.__class__("S", (), (), s.locations, (
        mk(0, 0, None, Send(c, (op("mod", add(G("k"), 1), 2),)), (assign("k", op("mod", add(G("k"), 1), 2)),),
           None, None, None, "c!k"),), 0)
    r = process("R", [], n_locations=1, locals_=[int_var("v")])
    r = r.__class__("R", (), r.locals, r.locations, (
        mk(0, 0, None, Receive(c, (RecvBind(L("v")),)), (), None, None, None, "c?v"),), 0)
    return build_state_space(system([s, r], [int_var("k")], [Channel("c", 0, (BYTE,))]))


SPACES: dict[str, Callable[[], Any]] = {
    "compiled:counters": _counters,
    "compiled:barrier": _barrier,
    "compiled:promela-channels": _promela_channels,
    "compiled:promela-run": _promela_run,
    "compiled:rendezvous": _rendezvous,
}


def _reachable(space: Any, limit: int = 5000) -> list:
    init = list(space.initial_states())
    seen = set(init)
    queue = deque(init)
    order = []
    while queue and len(order) < limit:
        s = queue.popleft()
        order.append(s)
        for _, n in space.successors(s):
            if n not in seen:
                seen.add(n)
                queue.append(n)
    return order


@pytest.fixture(params=sorted(SPACES))
def space(request):
    return SPACES[request.param]()


def test_initial_states_are_tuples_of_ints(space):
    init = space.initial_states()
    assert len(init) >= 1
    for s in init:
        assert isinstance(s, tuple) and all(isinstance(v, int) for v in s)


def test_successors_are_deterministic_and_steps_hashable(space):
    for s in _reachable(space):
        first = space.successors(s)
        second = space.successors(s)
        assert first == second
        for step, n in first:
            hash(step)
            hash(step.action)
            assert isinstance(n, tuple)
            assert step.processes == tuple(sorted(set(step.processes)))


def test_steps_are_interned(space):
    by_key: dict = {}
    for s in _reachable(space):
        for step, _ in space.successors(s):
            other = by_key.setdefault((step.event, step.action, step.edges), step)
            assert other is step


def test_valuation_names_are_stable_for_one_layout(space):
    names_by_layout: dict = {}
    for s in _reachable(space):
        key = space.layout_of(s).id if hasattr(space, "layout_of") else None
        names = list(space.valuation(s))
        assert names_by_layout.setdefault(key, names) == names


def test_terminal_states_are_valid_ends_and_actions_printable(space):
    for s in _reachable(space):
        if space.is_terminal(s):
            assert space.is_valid_end(s)
        for step, _ in space.successors(s):
            assert isinstance(space.action_name(step.action), str)
