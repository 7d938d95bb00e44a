"""Regression: a model with more processes than Python's recursion limit (LE of paper
002 at N = 1000) crashed with RecursionError in the state layout (one recursion level
per process prefix in ``_layout_for``); the layout chain is now built iteratively."""

from __future__ import annotations

import sys

from bridge.frontends.csp import load_csp
from bridge.semantics.explore import ExploreOptions, explore
from bridge.semantics.statespace import build_state_space

N = sys.getrecursionlimit() + 200

MODEL = f"""#define N {N};
var count = 0;
Node(i) = [count < 2] step.i{{count = count + 1;}} -> Node(i);
Sys = ||| x:{{0..N - 1}}@Node(x);
#assert Sys deadlockfree;
"""


def test_more_processes_than_the_recursion_limit() -> None:
    system = load_csp("many.csp", MODEL).systems[0]
    assert len(system.instances) == N
    space = build_state_space(system)
    (initial,) = space.initial_states()
    assert len(space.successors(initial)) == N
    # count goes 0 -> 1 -> 2 whichever node moves: three states in all.
    assert explore(system, ExploreOptions(max_states=10)).states == 3


def test_layouts_of_many_processes_are_built_in_linear_work(monkeypatch) -> None:
    """Regression (issue 11, LE at N = 1000 took a minute before its first state): each
    of the N nested prefix layouts re-specialised every older instance (N^2 / 2 calls of
    ``_specialised``) and every template walked every edge of the system for its
    assigned locals. Now a layout extends its prefix: one specialisation per instance."""
    from bridge.semantics import statespace

    calls = {"specialised": 0, "walks": 0}
    original = statespace.CompiledStateSpace._specialised
    original_roots = statespace.remotely_assigned

    def counting(self, *args):
        calls["specialised"] += 1
        return original(self, *args)

    def counting_roots(edges):
        calls["walks"] += 1
        return original_roots(edges)

    monkeypatch.setattr(statespace.CompiledStateSpace, "_specialised", counting)
    monkeypatch.setattr(statespace, "remotely_assigned", counting_roots)
    system = load_csp("many.csp", MODEL).systems[0]
    space = build_state_space(system)
    space.initial_states()
    assert calls["specialised"] <= 2 * N
    assert calls["walks"] == 1


def test_csp_builds_no_prefix_layouts() -> None:
    """Regression (issue 11, LE at N = 10 000 did not reach its first verdict in 250 s
    and 3.4 GB): the N prefix layouts of N processes were built for every model, each
    copying its prefix's runners, bases and atomic edges (quadratic time and memory),
    though only Promela processes die and so only Promela states ever use a prefix
    layout. A CSP# model now builds the one layout its states have."""
    system = load_csp("many.csp", MODEL).systems[0]
    space = build_state_space(system)
    (initial,) = space.initial_states()
    space.successors(initial)
    assert len(space._layouts) == 1


def test_promela_still_builds_the_prefix_its_dying_process_needs() -> None:
    """The other side of the rule above: when the youngest Promela process dies, the
    state gets its prefix's layout (three processes, the last ends at once)."""
    from bridge.frontends.promela import load_promela

    text = """byte x;
active [2] proctype P() { do :: x < 3 -> x++ :: x >= 3 -> break od }
active proctype Q() { skip }
"""
    system = load_promela("die.pml", text).systems[0]
    assert explore(system, ExploreOptions(max_states=1000)).states > 0
    space = build_state_space(system)
    (initial,) = space.initial_states()
    frontier, died = [initial], []
    for _ in range(3):  # Q: skip, then it may die
        successors = [(step, t) for s in frontier for step, t in space.successors(s)]
        died += [t for step, t in successors if step.action[1] == -1]
        frontier = [t for _step, t in successors]
    assert died, "Q dies within three steps"
    assert len(space.layout_of(died[0]).templates) == 2
