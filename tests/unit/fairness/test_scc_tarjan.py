"""Unit tests for the iterative Tarjan search (``bridge.fairness.scc``)."""

from __future__ import annotations

import random

import networkx as nx

from bridge.fairness.scc import is_trivial, iter_sccs, sccs_within


def test_matches_networkx_on_random_graphs():
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(1, 25)
        adj = {v: [rng.randrange(n) for _ in range(rng.randint(0, 3))] for v in range(n)}
        ours = {frozenset(c) for c in iter_sccs(range(n), lambda v, adj=adj: adj[v])}
        g = nx.DiGraph()
        g.add_nodes_from(range(n))
        g.add_edges_from((u, v) for u, vs in adj.items() for v in vs)
        assert ours == {frozenset(c) for c in nx.strongly_connected_components(g)}


def test_reverse_topological_order():
    adj = {0: [1], 1: [2], 2: [1, 3], 3: []}
    order = [sorted(c) for c in iter_sccs([0], lambda v: adj[v])]
    assert order == [[3], [1, 2], [0]]


def test_deep_graph_does_not_recurse():
    n = 200_000  # a chain closed into one cycle: depth n
    comps = list(iter_sccs([0], lambda v: [(v + 1) % n]))
    assert len(comps) == 1 and len(comps[0]) == n


def test_successors_called_once_per_node_and_lazily():
    calls: list[int] = []

    def succ(v: int) -> list[int]:
        calls.append(v)
        return [v + 1] if v < 5 else [5]

    it = iter_sccs([0], succ)
    first = next(it)
    assert first == [5]  # the sink closes first; 0..4 still open
    rest = list(it)
    assert len(rest) == 5
    assert sorted(calls) == [0, 1, 2, 3, 4, 5]


def test_sccs_within_ignores_outside_nodes_and_trivial():
    adj = {0: [1], 1: [0, 2], 2: [0]}
    assert {frozenset(c) for c in sccs_within({0, 2}, lambda v: adj[v])} == {frozenset({0}), frozenset({2})}
    assert is_trivial([0], lambda v: adj[v])
    assert not is_trivial([0], lambda v: [0])
    assert not is_trivial([0, 1], lambda v: adj[v])


def test_dense_variant_matches_on_random_growing_graphs():
    from bridge.fairness.scc import iter_sccs_dense

    rng = random.Random(11)
    for _ in range(200):
        n = rng.randint(1, 30)
        adj = {v: [rng.randrange(n) for _ in range(rng.randint(0, 3))] for v in range(n)}
        # nodes "appear" only when a successor list mentions them, as in the product
        known = [1]

        def succ(v, adj=adj, known=known):
            out = adj[v]
            known[0] = max([known[0]] + [w + 1 for w in out] + [v + 1])
            return out

        ours = [frozenset(c) for c in iter_sccs_dense([0], succ, lambda known=known: known[0])]
        expected = [frozenset(c) for c in iter_sccs([0], lambda v, adj=adj: adj[v])]
        assert ours == expected  # same components, same order
