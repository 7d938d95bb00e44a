"""The fair accepting SCC search and the construction of a fair lasso.

``find_fair_lasso`` is paper 000 Fig. 5 applied to the product with the automaton of
``!phi`` (000 section 3.2, last paragraph): Tarjan's algorithm finds one maximal SCC at a
time on the fly; an SCC is examined only if it is accepting (its edges meet every
acceptance set of the TGBA; a subgraph of a non-accepting SCC is never accepting); the
fairness condition prunes its bad states; if none is pruned the SCC is fair and a
counterexample is built, otherwise what remains is re-decomposed into SCCs and each is
examined the same way. The recursion of Fig. 5 is a worklist here (no recursion limit).
Soundness rests on each ``prune`` never removing a node of a fair subgraph (000
Theorem 1).

The lasso: a shortest prefix from an initial product state into the fair subgraph, then
a loop inside it that is a walk covering an edge of every acceptance set, an engagement
of everything the fairness condition requires (for strong global fairness: every step of
every system state visited), and, when fairness depends on what is enabled, every node
of the subgraph (so that "enabled everywhere in the loop" is exactly "enabled everywhere
in the subgraph"). Such a loop repeated forever is an accepting fair run.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from bridge.fairness.conditions import FairnessCondition, Subgraph
from bridge.fairness.product import Product
from bridge.fairness.scc import is_trivial, iter_sccs, sccs_within

PathEdge = tuple[int, int, int]  # (source node, step id, target node)


@dataclass
class FairLasso:
    """A fair accepting lasso of the product: ``initial`` (an initial node), ``prefix``
    edges from it to the loop's first node, and the ``loop`` edges (non-empty, closed)."""

    initial: int
    prefix: list[PathEdge]
    loop: list[PathEdge]
    subgraph_size: int
    covered: frozenset[Hashable] = field(default_factory=frozenset)

    @property
    def loop_start(self) -> int:
        """Return the product node where the loop starts and ends."""
        return self.loop[0][0]


@dataclass
class SearchStatistics:
    """What the search did: SCCs examined, sub-SCCs after pruning, pruned nodes."""

    sccs: int = 0
    nontrivial_sccs: int = 0
    accepting_sccs: int = 0
    subgraphs: int = 0
    pruned: int = 0


def _internal_edges(product: Product, nodes: set[int]) -> list[tuple[int, int, int, int]]:
    edges = []
    for u in nodes:
        for v, k, acc in product.edges(u):
            if v in nodes:
                edges.append((u, v, k, acc))
    return edges


def find_fair_subgraph(
    product: Product, condition: FairnessCondition, stats: SearchStatistics | None = None
) -> Subgraph | None:
    """Return a fair accepting strongly connected subgraph of the product, or None.

    Explores the product on the fly from its initial states; stops at the first one.
    """
    stats = stats if stats is not None else SearchStatistics()
    all_sets = product.buchi.all_sets
    successors = product.successors
    for component in iter_sccs(product.initial_nodes(), successors):
        stats.sccs += 1
        if is_trivial(component, successors):
            continue
        stats.nontrivial_sccs += 1
        found = _search_component(product, condition, set(component), all_sets, stats)
        if found is not None:
            return found
    return None


def _search_component(
    product: Product,
    condition: FairnessCondition,
    component: set[int],
    all_sets: int,
    stats: SearchStatistics,
) -> Subgraph | None:
    # Worklist of (node set, is it already known to be one SCC?)
    work: list[tuple[set[int], bool]] = [(component, True)]
    successors = product.successors
    while work:
        nodes, is_scc = work.pop()
        parts = [nodes] if is_scc else [set(c) for c in sccs_within(nodes, successors)]
        for part in parts:
            edges = _internal_edges(product, part)
            if not edges:
                continue  # a single node without a self-loop
            stats.subgraphs += 1
            acc = 0
            for _u, _v, _k, a in edges:
                acc |= a
            if acc & all_sets != all_sets:
                continue
            stats.accepting_sccs += 1
            g = Subgraph(part, edges)
            removed = condition.prune(g)
            if not removed:
                return g
            stats.pruned += len(removed)
            rest = part - removed
            if rest:
                work.append((rest, False))
    return None


def build_lasso(product: Product, condition: FairnessCondition, g: Subgraph) -> FairLasso:
    """Return a lasso whose loop covers what ``condition`` and acceptance require in the
    fair accepting subgraph ``g``.

    The loop is a walk from the entry node ``root`` back to itself: it takes a pending
    required edge out of the current node when there is one, else walks to the nearest
    node with one (a breadth-first search with a small budget), else goes back to
    ``root`` along a shortest-path in-tree and out to the next target along a
    shortest-path out-tree. The cost is linear in the loop's length, which is at most
    the number of targets times (budget + twice the diameter of ``g``).
    """
    initial, prefix = product.path_from_initial(g.nodes)
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
        key = (u, k, v)
        if key in edge_keys:
            edge_keys[key].extend(keys)
        else:
            edge_keys[key] = keys
    pending: set[Hashable] = {("acc", i) for i in range(num_sets)}
    pending |= set(condition.required_keys(g))
    sources_of: dict[int, list[tuple[int, int, int]]] = {}
    targets: list[tuple[int, int, int] | int] = []
    for e, keys in edge_keys.items():
        if any(key in pending for key in keys):
            sources_of.setdefault(e[0], []).append(e)
            targets.append(e)
    unvisited: set[int] = set(g.nodes) if condition.needs_all_states else set()
    unvisited.discard(root)
    targets.extend(sorted(unvisited))
    # Shortest-path trees inside g: from root (out) and to root (in).
    out_parent = _bfs_tree(adj, root)
    in_next = _bfs_tree(radj, root)
    loop: list[PathEdge] = []
    covered: set[Hashable] = set()

    def walk(edge: PathEdge) -> None:
        loop.append(edge)
        unvisited.discard(edge[2])
        for key in edge_keys.get(edge, ()):
            if key in pending:
                pending.discard(key)
                covered.add(key)

    def pending_edge(n: int) -> tuple[int, int, int] | None:
        # Edges whose keys are all covered are dropped for good (amortised linear).
        candidates = sources_of.get(n)
        while candidates:
            e = candidates[-1]
            for k in edge_keys[e]:
                if k in pending:
                    return e
            candidates.pop()
        return None

    def useful(n: int) -> bool:
        return n in unvisited or pending_edge(n) is not None

    current = root
    next_target = 0
    while pending or unvisited:
        e = pending_edge(current)
        if e is not None:
            walk(e)
            current = e[2]
            continue
        path = _bfs(adj, current, useful, budget=256)
        if path is None:
            # Far away: back to root, then out to the next target still pending.
            while True:
                if next_target >= len(targets):  # pragma: no cover - g is fair
                    raise AssertionError("fair subgraph does not cover its requirements")
                t = targets[next_target]
                next_target += 1
                node = t if isinstance(t, int) else t[0]
                if useful(node):
                    break
            path = _path_to_root(in_next, current) + _path_from_root(out_parent, node)
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
    return FairLasso(initial, prefix, loop, len(g.nodes), frozenset(covered))


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
    adj: dict[int, list[tuple[int, int]]], start: int, goal: object, budget: int | None = None
) -> list[PathEdge] | None:
    """Return the edges of a shortest path from ``start`` to a node satisfying ``goal``
    (``[]`` if ``start`` does), inside ``adj``; None if none is found within ``budget``
    dequeued nodes."""
    test = goal  # callable
    if test(start):  # type: ignore[operator]
        return []
    parent: dict[int, tuple[int, int]] = {start: (-1, -1)}
    queue = [start]
    head = 0
    while head < len(queue):
        if budget is not None and head >= budget:
            return None
        u = queue[head]
        head += 1
        for k, v in adj[u]:
            if v in parent:
                continue
            parent[v] = (u, k)
            if test(v):  # type: ignore[operator]
                path: list[PathEdge] = []
                w = v
                while w != start:
                    pu, pk = parent[w]
                    path.append((pu, pk, w))
                    w = pu
                path.reverse()
                return path
            queue.append(v)
    return None


def find_fair_lasso(
    product: Product, condition: FairnessCondition, stats: SearchStatistics | None = None
) -> FairLasso | None:
    """Return a fair accepting lasso of the product, or None if there is none.

    Deadlocked and terminated states stutter (``product.py``), so finite runs are
    judged too. Raises ``LimitReached`` when the product passes its limits and
    ``ModelErrorAt`` on a model error met while expanding a state. Algorithm: paper 000
    Fig. 5 with the prunes of Figs. 7-9, 11 (``conditions.py``); Couvreur (FM'99) for
    SCC-based emptiness of generalized Büchi products.
    """
    g = find_fair_subgraph(product, condition, stats)
    if g is None:
        return None
    return build_lasso(product, condition, g)
