"""Strongly connected components, iteratively (process graphs and abstract products are
searched without recursion: their depth is not bounded by Python's stack)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator


def iter_sccs(nodes: Iterable[int], succ: Callable[[int], Iterable[int]]) -> Iterator[list[int]]:
    """Yield the SCCs of the subgraph reachable from ``nodes`` as Tarjan's search
    completes them (each is final when yielded: an on-the-fly caller may stop early)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on: set[int] = set()
    stack: list[int] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ(w))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                yield comp
