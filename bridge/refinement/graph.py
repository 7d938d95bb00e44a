"""Labelled graphs seen one node at a time, and their tau cycles (for refinement).

A refinement check (``check.py``) reads both processes through ``LabelledGraph``: the
initial nodes and, for a node, its moves ``(event, target, payload)`` where ``event``
is None for tau (an internal step: hidden events, choice resolution) and ``payload``
is what a counterexample reports for the move (the engine's ``Step``; None in tests).
``TauCycles`` answers whether a node lies on a cycle of tau moves, which is what
divergence means (Roscoe, *Understanding Concurrent Systems*, section 6.1: a process
diverges when it can perform an infinite sequence of internal actions).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Sequence
from typing import Any, Protocol

Node = Hashable
Move = tuple[str | None, Node, Any]


class LabelledGraph(Protocol):
    """A finite labelled transition system with tau moves."""

    def initial(self) -> Sequence[Node]:
        """Return the initial nodes (usually exactly one)."""

    def moves(self, node: Node) -> Sequence[Move]:
        """Return the moves of ``node``: ``(event or None for tau, target, payload)``.

        May raise ``ModelRuntimeError`` (a model error met computing them)."""


class CachedGraph:
    """A ``LabelledGraph`` that computes each node's moves once."""

    def __init__(self, graph: LabelledGraph) -> None:
        self.graph = graph
        self._moves: dict[Node, Sequence[Move]] = {}

    def initial(self) -> Sequence[Node]:
        """Return the initial nodes of the wrapped graph."""
        return self.graph.initial()

    def moves(self, node: Node) -> Sequence[Move]:
        """Return the moves of ``node`` (computed on first use)."""
        found = self._moves.get(node)
        if found is None:
            found = self._moves[node] = tuple(self.graph.moves(node))
        return found

    def taus(self, node: Node) -> list[Move]:
        """Return the tau moves of ``node``."""
        return [m for m in self.moves(node) if m[0] is None]

    @property
    def size(self) -> int:
        """Return how many nodes have been expanded."""
        return len(self._moves)


class TauCycles:
    """Whether a node lies on a cycle of tau moves, decided lazily with Tarjan's SCC
    algorithm (iterative) on the tau moves reachable from it; results are kept."""

    def __init__(self, graph: CachedGraph) -> None:
        self.graph = graph
        self._on_cycle: dict[Node, bool] = {}

    def on_cycle(self, node: Node) -> bool:
        """Return True when ``node`` lies on a cycle of tau moves (a self-loop counts)."""
        known = self._on_cycle.get(node)
        if known is None:
            self._explore(node)
            known = self._on_cycle[node]
        return known

    def _explore(self, root: Node) -> None:
        done = self._on_cycle
        index: dict[Node, int] = {root: 0}
        low: dict[Node, int] = {root: 0}
        stack: list[Node] = [root]
        on_stack: set[Node] = {root}
        work: list[tuple[Node, list[Node], int]] = [(root, self._targets(root), 0)]
        while work:
            v, targets, i = work[-1]
            if i < len(targets):
                work[-1] = (v, targets, i + 1)
                w = targets[i]
                if w in done:
                    continue  # in an SCC finished earlier: no effect on lowlinks
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, self._targets(w), 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                cyclic = len(component) > 1 or v in targets
                for w in component:
                    done[w] = cyclic

    def _targets(self, node: Node) -> list[Node]:
        return [target for _, target, _ in self.graph.taus(node)]

    def cycle_from(self, node: Node) -> list[tuple[Any, Node]]:
        """Return the moves ``(payload, target)`` of a shortest tau cycle from ``node``
        back to it; ``node`` must lie on one (``on_cycle``)."""
        parent: dict[Node, tuple[Node, Any]] = {}
        queue: deque[Node] = deque([node])
        seen = {node}
        while queue:
            v = queue.popleft()
            for _, w, payload in self.graph.taus(v):
                if w == node:
                    path = [(payload, w)]
                    while v != node:
                        u, via = parent[v]
                        path.append((via, v))
                        v = u
                    path.reverse()
                    return path
                if w not in seen:
                    seen.add(w)
                    parent[w] = (v, payload)
                    queue.append(w)
        raise ValueError("the node lies on no tau cycle")  # pragma: no cover
