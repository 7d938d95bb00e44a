"""Strongly connected components by an iterative Tarjan search (no recursion).

Tarjan (SIAM J. Comput. 1972), written with an explicit stack of successor iterators so
that the depth of the search is bounded by memory, not by Python's recursion limit
(paper 001 section 5: "we use the iterative version of Tarjan's SCC algorithm"). The
search is on the fly: successors are asked for when a node is first reached, and SCCs
are yielded as soon as they are complete (in reverse topological order), so the caller
can stop at the first interesting one (paper 000 Fig. 5, ``findSCC``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import TypeVar

N = TypeVar("N", bound=Hashable)


def iter_sccs(
    roots: Iterable[N], successors: Callable[[N], Iterable[N]]
) -> Iterator[list[N]]:
    """Yield the SCCs reachable from ``roots``, each as a list of nodes, as they close.

    Every reachable node appears in exactly one yielded list (trivial SCCs included:
    use ``is_trivial`` to skip single nodes without a self-loop). ``successors`` is
    called once per node, when the node is first reached.
    """
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    on_stack: set[N] = set()
    stack: list[N] = []
    counter = 0
    for root in roots:
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work: list[tuple[N, Iterator[N]]] = [(root, iter(successors(root)))]
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(successors(w))))
                    break
                if w in on_stack:
                    iw = index[w]
                    if iw < low[v]:
                        low[v] = iw
            else:
                work.pop()
                lv = low[v]
                if work:
                    u = work[-1][0]
                    if lv < low[u]:
                        low[u] = lv
                if lv == index[v]:
                    component: list[N] = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    yield component


def sccs_within(
    nodes: Sequence[N] | set[N], successors: Callable[[N], Iterable[N]]
) -> list[list[N]]:
    """Return the SCCs of the subgraph induced by ``nodes`` (edges leaving it ignored).

    Used to re-decompose an SCC after pruning (paper 000 Fig. 5 line 10).
    """
    allowed = nodes if isinstance(nodes, (set, frozenset)) else set(nodes)

    def inside(v: N) -> Iterator[N]:
        for w in successors(v):
            if w in allowed:
                yield w

    return list(iter_sccs(allowed, inside))


def is_trivial(component: Sequence[N], successors: Callable[[N], Iterable[N]]) -> bool:
    """Return True if ``component`` is one node without a self-loop (no cycle)."""
    if len(component) != 1:
        return False
    v = component[0]
    return all(w != v for w in successors(v))


def iter_sccs_dense(
    roots: Iterable[int],
    successors: Callable[[int], Sequence[int]],
    size: Callable[[], int],
    on_stack: bytearray | None = None,
) -> Iterator[list[int]]:
    """Yield the SCCs reachable from ``roots`` like ``iter_sccs``, for nodes that are
    dense ints ``0 .. size() - 1`` (``size`` may grow as successors are computed, as in
    an on-the-fly product). Lists instead of dicts: less memory and time per node.

    ``on_stack``: an empty ``bytearray`` owned by the caller, used (and grown) as the
    search's stack marks, so that ``successors(w)`` can see which nodes are on Tarjan's
    stack when ``w`` is first reached (``w`` itself and the whole DFS path to it are
    marked). The partial order reduction's stack proviso reads it (``product.py``).
    """
    index: list[int] = []
    low: list[int] = []
    if on_stack is None:
        on_stack = bytearray()
    elif on_stack:
        raise ValueError("iter_sccs_dense: on_stack must start empty")
    stack: list[int] = []
    counter = 0

    def grow() -> None:
        n = size()
        if n > len(index):
            extra = n - len(index)
            index.extend([-1] * extra)
            low.extend([0] * extra)
            on_stack.extend(bytes(extra))

    for root in roots:
        grow()
        if index[root] >= 0:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = 1
        work: list[tuple[int, Iterator[int]]] = [(root, iter(successors(root)))]
        grow()
        while work:
            v, it = work[-1]
            for w in it:
                iw = index[w]
                if iw < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = 1
                    work.append((w, iter(successors(w))))
                    grow()
                    break
                if on_stack[w] and iw < low[v]:
                    low[v] = iw
            else:
                work.pop()
                lv = low[v]
                if work:
                    u = work[-1][0]
                    if lv < low[u]:
                        low[u] = lv
                if lv == index[v]:
                    component: list[int] = []
                    while True:
                        w = stack.pop()
                        on_stack[w] = 0
                        component.append(w)
                        if w == v:
                            break
                    yield component
