"""The refinement search against the definitions, on small random processes.

The oracle knows nothing of normal forms or products: it enumerates every trace of
visible events up to ``DEPTH`` and applies the definitions of the three models
(Roscoe, *Understanding Concurrent Systems*, sections 1.3, 6.1, 16.1) to the sets of
states each process can be in after the trace:
- T: every trace of the implementation is a trace of the specification;
- F: for every stable implementation state after t, offering O, some stable
  specification state after t offers a subset of O (so the implementation's maximal
  refusal there is a refusal of the specification);
- FD: unless the specification diverged after a prefix of t (then anything goes),
  the implementation does not diverge after t, and the T and F conditions hold.
Divergence in the oracle: a tau path longer than the number of states (pigeonhole),
not a cycle search. The checks: a refinement the search says holds has no violation
up to ``DEPTH``; a violation the oracle finds is found by the search; and the search's
counterexample is itself a violation by the definitions, no longer than the oracle's
shortest when that is within ``DEPTH``.
"""

from __future__ import annotations

from itertools import product as cartesian

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.ir import RefinementModel
from bridge.refinement import check_refinement
from tests.unit.refinement.graphs import Edges, ExplicitGraph

EVENTS = ("a", "b")
DEPTH = 5


@st.composite
def graphs(draw: st.DrawFn) -> Edges:
    n = draw(st.integers(1, 4))
    labels = st.sampled_from((None, *EVENTS))
    edges: Edges = {}
    for v in range(n):
        edges[v] = draw(st.lists(st.tuples(labels, st.integers(0, n - 1)), max_size=3,
                                 unique=True))
    return edges


class Definitions:
    """The semantics of one explicit process, by the definitions."""

    def __init__(self, edges: Edges) -> None:
        self.edges = edges
        n = len(edges)
        longer = set(edges)  # states with a tau path of length >= k, for k = 0..n+1
        for _ in range(n + 1):
            longer = {v for v in edges if any(e is None and w in longer for e, w in edges[v])}
        self.diverging = longer

    def closure(self, states: set[int]) -> frozenset[int]:
        seen = set(states)
        todo = list(seen)
        while todo:
            for e, w in self.edges[todo.pop()]:
                if e is None and w not in seen:
                    seen.add(w)
                    todo.append(w)
        return frozenset(seen)

    def after(self, trace: tuple[str, ...]) -> frozenset[int]:
        states = self.closure({0})
        for event in trace:
            states = self.closure({w for v in states for e, w in self.edges[v] if e == event})
        return states

    def offers(self, states: frozenset[int]) -> list[frozenset[str]]:
        """The offers of the stable states among ``states``."""
        return [frozenset(e for e, _ in self.edges[v]) for v in states
                if all(e is not None for e, _ in self.edges[v])]

    def diverges(self, states: frozenset[int]) -> bool:
        return any(v in self.diverging for v in states)


def violated_at(impl: Definitions, spec: Definitions, model: RefinementModel,
                trace: tuple[str, ...]) -> bool:
    """Return True when ``trace`` witnesses a violation (see the module docstring)."""
    mine = impl.after(trace)
    if not mine:
        return False
    if model is RefinementModel.FAILURES_DIVERGENCE:
        if any(spec.diverges(spec.after(trace[:k])) for k in range(len(trace) + 1)
               if spec.after(trace[:k])):
            return False
    theirs = spec.after(trace)
    if not theirs:
        return True
    if model is RefinementModel.TRACES:
        return False
    if model is RefinementModel.FAILURES_DIVERGENCE and impl.diverges(mine):
        return True
    allowed = spec.offers(theirs)
    return any(not any(a <= offer for a in allowed) for offer in impl.offers(mine))


def shortest_violation(impl: Definitions, spec: Definitions, model: RefinementModel
                       ) -> int | None:
    for length in range(DEPTH + 1):
        for trace in cartesian(EVENTS, repeat=length):
            if violated_at(impl, spec, model, trace):
                return length
    return None


@settings(max_examples=400, deadline=None)
@given(graphs(), graphs(), st.sampled_from(list(RefinementModel)))
def test_search_agrees_with_the_definitions(impl_edges: Edges, spec_edges: Edges,
                                            model: RefinementModel) -> None:
    impl, spec = Definitions(impl_edges), Definitions(spec_edges)
    oracle = shortest_violation(impl, spec, model)
    result = check_refinement(ExplicitGraph(impl_edges), ExplicitGraph(spec_edges), model)
    assert result.limit is None
    found = result.counterexample
    if found is None:
        assert oracle is None
        return
    trace = tuple(e for e, _ in found.path if e is not None)
    assert violated_at(impl, spec, model, trace), (found, trace)
    if oracle is not None:
        assert oracle <= len(trace)
    # the counterexample is a real path of the implementation
    node = found.start
    for event, target in found.path + found.loop:
        assert (event, target) in impl_edges[node]
        node = target
    if found.loop:
        assert node == found.path[-1][1] if found.path else node == found.start
