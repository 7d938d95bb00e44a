"""Judging one complete strongly connected component: paper 000 Fig. 5.

``search_component`` is the recursion of Fig. 5 applied to one maximal SCC of the
product that the on-the-fly search (``onthefly.py``) closed without an early report: an
SCC is examined only if it is accepting (its edges meet every acceptance set of the
TGBA; a subgraph of a non-accepting SCC is never accepting); the fairness condition
prunes its bad states; if none is pruned the SCC is fair, otherwise what remains is
re-decomposed into SCCs and each is examined the same way. The recursion is a worklist
(no recursion limit). Soundness rests on each ``prune`` never removing a node of a fair
subgraph (000 Theorem 1).

The product keeps no edges (``product.py``): the component's internal edges are
recomputed once, kept in flat arrays (``EdgeList``: 4 bytes per field and edge) while
the component is judged, and dropped afterwards.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from bridge.fairness.conditions import Edge, FairnessCondition, Subgraph
from bridge.fairness.product import Product
from bridge.fairness.scc import sccs_within


@dataclass
class SearchStatistics:
    """What the search did: SCCs closed, non-trivial ones, subgraphs examined by Fig. 5,
    accepting ones, pruned nodes, and whether the verdict came from an early report
    (a fair accepting part found before its component was complete)."""

    sccs: int = 0
    nontrivial_sccs: int = 0
    accepting_sccs: int = 0
    subgraphs: int = 0
    pruned: int = 0
    early_report: bool = False


class EdgeList:
    """Edges ``(source, target, step id, acceptance mask)`` in four flat arrays."""

    __slots__ = ("src", "dst", "step", "acc")

    def __init__(self) -> None:
        self.src = array("i")
        self.dst = array("i")
        self.step = array("i")
        self.acc = array("Q")

    def append(self, u: int, v: int, k: int, a: int) -> None:
        """Add the edge ``u --k--> v`` with acceptance mask ``a``."""
        self.src.append(u)
        self.dst.append(v)
        self.step.append(k)
        self.acc.append(a)

    def __len__(self) -> int:
        return len(self.src)

    def __iter__(self) -> Iterator[Edge]:
        return zip(self.src, self.dst, self.step, self.acc, strict=True)

    def restricted(self, nodes: set[int]) -> EdgeList:
        """Return the edges with both ends in ``nodes``."""
        out = EdgeList()
        for u, v, k, a in self:
            if u in nodes and v in nodes:
                out.append(u, v, k, a)
        return out


def internal_edges(product: Product, nodes: Iterable[int], members: set[int]) -> EdgeList:
    """Return the edges between ``members`` leaving ``nodes`` (recomputed)."""
    out = EdgeList()
    for u in nodes:
        for v, k, a in product.edges(u):
            if v in members:
                out.append(u, v, k, a)
    return out


def component_subgraph(product: Product, nodes: set[int]) -> Subgraph:
    """Return ``nodes`` with every product edge between them (recomputed)."""
    return Subgraph(nodes, internal_edges(product, nodes, nodes))


def _split(nodes: set[int], edges: EdgeList) -> list[tuple[set[int], EdgeList]]:
    """Return the SCCs of the graph ``(nodes, edges)``, each with its internal edges."""
    adj: dict[int, list[int]] = {}
    for u, v, _k, _a in edges:
        adj.setdefault(u, []).append(v)
    parts = sccs_within(nodes, lambda v: adj.get(v, ()))
    where: dict[int, int] = {}
    for i, part in enumerate(parts):
        for v in part:
            where[v] = i
    out = [(set(part), EdgeList()) for part in parts]
    for u, v, k, a in edges:
        i = where[u]
        if where[v] == i:
            out[i][1].append(u, v, k, a)
    return out


def search_component(
    product: Product,
    condition: FairnessCondition,
    component: set[int],
    all_sets: int,
    stats: SearchStatistics,
) -> Subgraph | None:
    """Return a fair accepting strongly connected subgraph of the SCC ``component``, or
    None (paper 000 Fig. 5 with the prunes of Figs. 7-9, 11)."""
    # Worklist of (node set, its internal edges, is it already known to be one SCC?)
    work: list[tuple[set[int], EdgeList, bool]] = [
        (component, internal_edges(product, component, component), True)]
    while work:
        nodes, edges, is_scc = work.pop()
        parts = [(nodes, edges)] if is_scc else _split(nodes, edges)
        for part, part_edges in parts:
            if not part_edges:
                continue  # a single node without a self-loop
            stats.subgraphs += 1
            acc = 0
            for a in part_edges.acc:
                acc |= a
            if acc & all_sets != all_sets:
                continue
            stats.accepting_sccs += 1
            g = Subgraph(part, part_edges)
            removed = condition.prune(g)
            if not removed:
                return g
            stats.pruned += len(removed)
            rest = part - removed
            if rest:
                work.append((rest, part_edges.restricted(rest), False))
    return None


def shortest_path(start: int, successors: Callable[[int], Iterable[tuple[int, int]]],
                  goal: Callable[[int], bool], budget: int | None = None,
                  ) -> list[tuple[int, int, int]] | None:
    """Return the edges ``(source, step id, target)`` of a shortest path from ``start``
    to a node satisfying ``goal`` (``[]`` if ``start`` does), following
    ``successors(u)`` (pairs ``(step id, target)``); None if there is none, or none
    within ``budget`` dequeued nodes."""
    if goal(start):
        return []
    parent: dict[int, tuple[int, int]] = {start: (-1, -1)}
    queue = [start]
    head = 0
    while head < len(queue):
        if budget is not None and head >= budget:
            return None
        u = queue[head]
        head += 1
        for k, v in successors(u):
            if v in parent:
                continue
            parent[v] = (u, k)
            if goal(v):
                path = []
                while v != start:
                    u, k = parent[v]
                    path.append((u, k, v))
                    v = u
                path.reverse()
                return path
            queue.append(v)
    return None


def path_within(product: Product, start: int, members: set[int],
                targets: set[int]) -> list[tuple[int, int, int]]:
    """Return the edges ``(source, step id, target)`` of a shortest path from ``start``
    to a node of ``targets``, through ``members`` only (edges recomputed)."""

    def inside(u: int) -> Iterator[tuple[int, int]]:
        for v, k, _a in product.edges(u):
            if v in members:
                yield k, v

    path = shortest_path(start, inside, targets.__contains__)
    if path is None:
        raise ValueError("no path to the subgraph inside the component")
    return path
