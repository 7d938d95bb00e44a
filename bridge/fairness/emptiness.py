"""The fair accepting lasso search: find a fair accepting subgraph, build a fair lasso.

``find_fair_lasso`` is paper 000 Fig. 5 applied to the product with the automaton of
``!phi`` (000 section 3.2, last paragraph), run on the fly (``onthefly.py``): a
depth-first search keeps the partial SCCs of the explored product, reports a part as
soon as it is a fair accepting loop, and otherwise judges each complete SCC with the
Fig. 5 recursion (``components.py``: accepting? prune the states the fairness condition
rules out; re-decompose what remains).

The lasso: a prefix from an initial product state into the fair subgraph (the search's
depth-first path to it, ``Subgraph.entry``), then
a loop inside it that is a walk covering an edge of every acceptance set and everything
the fairness condition requires of the states it visits: it starts as a small accepting
walk and grows from the condition's ``loop_deficits`` (an action enabled throughout but
never engaged: engage it or visit a state that disables it; for strong global fairness:
every step of every system state visited). Such a loop repeated forever is an accepting
fair run; ``build_lasso`` asserts that the loop it returns is.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from bridge.fairness.components import SearchStatistics, shortest_path
from bridge.fairness.conditions import Deficit, FairnessCondition, Subgraph
from bridge.fairness.onthefly import find_fair_subgraph_on_the_fly
from bridge.fairness.product import Product

PathEdge = tuple[int, int, int]  # (source node, step id, target node)
REFINEMENT_ROUNDS = 16  # loop refinements before covering everything the subgraph needs

__all__ = ["FairLasso", "SearchStatistics", "build_lasso", "find_fair_lasso", "find_fair_subgraph"]


@dataclass
class FairLasso:
    """A fair accepting lasso of the product: ``initial`` (an initial node), ``prefix``
    edges from it to the loop's first node, and the ``loop`` edges (non-empty, closed)."""

    initial: int
    prefix: list[PathEdge]
    loop: list[PathEdge]
    subgraph_size: int

    @property
    def loop_start(self) -> int:
        """Return the product node where the loop starts and ends."""
        return self.loop[0][0]


def find_fair_subgraph(
    product: Product, condition: FairnessCondition, stats: SearchStatistics | None = None,
    early: bool = True,
) -> Subgraph | None:
    """Return a fair accepting strongly connected subgraph of the product, or None.

    Explores the product on the fly from its initial states; stops at the first one.
    ``early``: report a fair accepting part before its SCC is complete (``onthefly.py``);
    False judges complete SCCs only (the same verdicts; for tests and comparisons).
    """
    return find_fair_subgraph_on_the_fly(product, condition, stats, early)


def build_lasso(product: Product, condition: FairnessCondition, g: Subgraph) -> FairLasso:
    """Return a lasso whose loop, inside the fair accepting subgraph ``g``, is accepting
    and fair.

    The loop is refined: first a walk from the entry node back to itself meeting every
    acceptance set; then, while the condition finds the loop unfair
    (``loop_deficits``: an always-enabled action not engaged, a step not taken...), the
    deficits become new targets and the walk is rebuilt. Each deficit can be met inside
    ``g`` because ``g`` is fair, and meeting it never undoes an earlier one, so this
    ends; after a bounded number of rounds the loop simply covers everything ``g``
    requires (``required_keys``, and every node when fairness depends on enabledness).
    """
    initial, prefix = g.entry if g.entry is not None else product.path_from_initial(g.nodes)
    root = prefix[-1][2] if prefix else initial
    adj: dict[int, list[tuple[int, int]]] = {n: [] for n in g.nodes}
    radj: dict[int, list[tuple[int, int]]] = {n: [] for n in g.nodes}
    edge_keys: dict[tuple[int, int, int], list[Hashable]] = {}
    num_sets = product.buchi.num_sets
    for u, v, k, acc in g.edges:
        adj[u].append((k, v))
        radj[v].append((k, u))
        keys: list[Hashable] = [("acc", i) for i in range(num_sets) if (acc >> i) & 1]
        keys.extend(condition.edge_keys(u, k, v))
        edge_keys.setdefault((u, k, v), []).extend(keys)
    out_parent = _bfs_tree(adj, root)
    in_next = _bfs_tree(radj, root)
    groups: list[Deficit] = [Deficit(frozenset({("acc", i)})) for i in range(num_sets)]
    for _round in range(REFINEMENT_ROUNDS if condition.refine else 0):
        loop = _tour(root, adj, edge_keys, groups, out_parent, in_next)
        deficits = condition.loop_deficits(g, {u for u, _k, _v in loop}, loop)
        if not deficits:
            return _rechecked(product, condition, g, FairLasso(initial, prefix, loop, len(g.nodes)))
        groups.extend(deficits)
    groups.extend(Deficit(frozenset({key})) for key in condition.required_keys(g))
    if condition.needs_all_states:
        groups.extend(Deficit(nodes=frozenset({n})) for n in sorted(g.nodes))
    loop = _tour(root, adj, edge_keys, groups, out_parent, in_next)
    return _rechecked(product, condition, g, FairLasso(initial, prefix, loop, len(g.nodes)))


def _rechecked(product: Product, condition: FairnessCondition, g: Subgraph,
               lasso: FairLasso) -> FairLasso:
    """Return ``lasso`` after replaying it on the product (every edge recomputed from
    the successor function, starting at an initial node, the loop closed) and checking
    that the loop meets every acceptance set and leaves no fairness requirement unmet
    (``loop_deficits``). A failure is a bug of the search: it raises AssertionError."""
    node = lasso.initial
    if node not in product.initial_nodes():
        raise AssertionError(f"counterexample starts at {node}, not an initial node")
    acc = 0
    for i, (u, k, v) in enumerate(lasso.prefix + lasso.loop):
        masks = [a for w, kk, a in product.edges(u) if (w, kk) == (v, k)]
        if u != node or not masks:
            raise AssertionError(f"counterexample edge {(u, k, v)} is not a product edge")
        if i >= len(lasso.prefix):
            for a in masks:
                acc |= a
        node = v
    if not lasso.loop or node != lasso.loop_start:
        raise AssertionError("the counterexample's loop does not close")
    all_sets = product.buchi.all_sets
    if acc & all_sets != all_sets:
        raise AssertionError("the counterexample's loop misses an acceptance set")
    if condition.loop_deficits(g, {u for u, _k, _v in lasso.loop}, lasso.loop):
        raise AssertionError("the counterexample's loop is not fair")
    return lasso


def _tour(
    root: int,
    adj: dict[int, list[tuple[int, int]]],
    edge_keys: dict[tuple[int, int, int], list[Hashable]],
    groups: list[Deficit],
    out_parent: dict[int, tuple[int, int]],
    in_next: dict[int, tuple[int, int]],
) -> list[PathEdge]:
    """Return a closed walk from ``root`` meeting every group (an edge with one of its
    keys, or a visit to one of its nodes).

    Greedy: take a pending edge out of the current node when there is one, else walk to
    the nearest useful node (breadth-first, small budget), else back to ``root`` along
    the in-tree and out to a pending group along the out-tree. Linear in the walk's
    length, itself at most the number of groups times (budget + twice the diameter).
    """
    key_groups: dict[Hashable, list[int]] = {}
    node_groups: dict[int, list[int]] = {}
    for j, group in enumerate(groups):
        for key in group.keys:
            key_groups.setdefault(key, []).append(j)
        for n in group.nodes:
            node_groups.setdefault(n, []).append(j)
    pending = set(range(len(groups)))
    for j in node_groups.get(root, ()):
        pending.discard(j)
    edge_groups: dict[tuple[int, int, int], list[int]] = {}
    sources_of: dict[int, list[tuple[int, int, int]]] = {}
    candidates: dict[int, int] = {}  # group -> a node from which it can be met
    for e, keys in edge_keys.items():
        gs = [j for key in keys for j in key_groups.get(key, ())]
        gs.extend(node_groups.get(e[2], ()))
        if gs:
            edge_groups[e] = gs
            sources_of.setdefault(e[0], []).append(e)
            for j in gs:
                candidates.setdefault(j, e[0])
    loop: list[PathEdge] = []

    def walk(edge: PathEdge) -> None:
        loop.append(edge)
        for j in edge_groups.get(edge, ()):
            pending.discard(j)

    def pending_edge(n: int) -> tuple[int, int, int] | None:
        # Edges whose groups are all met are dropped for good (amortised linear).
        edges = sources_of.get(n)
        while edges:
            e = edges[-1]
            for j in edge_groups[e]:
                if j in pending:
                    return e
            edges.pop()
        return None

    def useful(n: int) -> bool:
        return pending_edge(n) is not None

    current = root
    next_group = 0
    while pending:
        e = pending_edge(current)
        if e is not None:
            walk(e)
            current = e[2]
            continue
        path = _bfs(adj, current, useful, budget=64)
        if path is None:
            # Groups only ever get met, so the first pending one moves forward.
            while next_group not in pending:
                next_group += 1
            j = next_group
            if j not in candidates:  # pragma: no cover - g is fair
                raise AssertionError(f"requirement {groups[j]} cannot be met in the subgraph")
            path = _path_to_root(in_next, current) + _path_from_root(out_parent, candidates[j])
        for step in path:
            walk(step)
        if path:
            current = path[-1][2]
    if not loop:
        k, v = adj[root][0]
        walk((root, k, v))
        current = v
    for step in _path_to_root(in_next, current):
        walk(step)
    assert loop[0][0] == root and loop[-1][2] == root
    return loop


def _bfs_tree(adj: dict[int, list[tuple[int, int]]], root: int) -> dict[int, tuple[int, int]]:
    """Return, for every node reached from ``root`` in ``adj``, its BFS parent and the
    step id of the edge (``(-1, -1)`` for the root)."""
    parent: dict[int, tuple[int, int]] = {root: (-1, -1)}
    queue = [root]
    head = 0
    while head < len(queue):
        u = queue[head]
        head += 1
        for k, v in adj[u]:
            if v not in parent:
                parent[v] = (u, k)
                queue.append(v)
    return parent


def _path_from_root(out_parent: dict[int, tuple[int, int]], node: int) -> list[PathEdge]:
    path: list[PathEdge] = []
    while out_parent[node][0] != -1:
        u, k = out_parent[node]
        path.append((u, k, node))
        node = u
    path.reverse()
    return path


def _path_to_root(in_next: dict[int, tuple[int, int]], node: int) -> list[PathEdge]:
    # ``in_next`` is a BFS tree of the reversed graph: its "parent" is the next hop.
    path: list[PathEdge] = []
    while in_next[node][0] != -1:
        v, k = in_next[node]
        path.append((node, k, v))
        node = v
    return path


def _bfs(
    adj: dict[int, list[tuple[int, int]]], start: int, goal: Callable[[int], bool],
    budget: int | None = None,
) -> list[PathEdge] | None:
    """Return the edges of a shortest path from ``start`` to a node satisfying ``goal``
    (``[]`` if ``start`` does), inside ``adj``; None if none is found within ``budget``
    dequeued nodes."""
    return shortest_path(start, adj.__getitem__, goal, budget)


def find_fair_lasso(
    product: Product, condition: FairnessCondition, stats: SearchStatistics | None = None,
    early: bool = True,
) -> FairLasso | None:
    """Return a fair accepting lasso of the product, or None if there is none.

    Deadlocked and terminated states stutter (``product.py``), so finite runs are
    judged too. Raises ``LimitReached`` when the product passes its limits and
    ``ModelErrorAt`` on a model error met while expanding a state. Algorithm: paper 000
    Fig. 5 with the prunes of Figs. 7-9, 11 (``conditions.py``) on the fly, reporting
    fair accepting parts early (``onthefly.py``: Couvreur, FM'99; Renault et al., LPAR
    2013); ``early`` as in ``find_fair_subgraph``.
    """
    g = find_fair_subgraph(product, condition, stats, early)
    if g is None:
        return None
    return build_lasso(product, condition, g)
