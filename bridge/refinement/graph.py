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

import time
from collections import deque
from collections.abc import Hashable, Sequence
from typing import Any, Protocol

from bridge.diagnostics import BridgeError
from bridge.fairness.scc import is_trivial, iter_sccs

Node = Hashable
Move = tuple[str | None, Node, Any]


class LabelledGraph(Protocol):
    """A finite labelled transition system with tau moves."""

    def initial(self) -> Sequence[Node]:
        """Return the initial nodes (usually exactly one)."""

    def moves(self, node: Node) -> Sequence[Move]:
        """Return the moves of ``node``: ``(event or None for tau, target, payload)``.

        May raise ``ModelRuntimeError`` (a model error met computing them)."""


class TimeUp(BridgeError):
    """A ``CachedGraph`` passed its deadline expanding a node (``expanded`` nodes so far):
    a search reports its time limit (a specification's tau closure or its normal form
    can take long before the product search takes its first step)."""

    def __init__(self, expanded: int) -> None:
        self.expanded = expanded
        super().__init__(f"time limit reached after expanding {expanded} states")


class CachedGraph:
    """A ``LabelledGraph`` that computes each node's moves once; past ``deadline`` (a
    ``time.perf_counter()`` value) expanding a node raises ``TimeUp`` (checked every
    256 expansions)."""

    def __init__(self, graph: LabelledGraph, deadline: float | None = None) -> None:
        self.graph = graph
        self._moves: dict[Node, Sequence[Move]] = {}
        self.deadline = deadline

    def initial(self) -> Sequence[Node]:
        """Return the initial nodes of the wrapped graph."""
        return self.graph.initial()

    def moves(self, node: Node) -> Sequence[Move]:
        """Return the moves of ``node`` (computed on first use)."""
        found = self._moves.get(node)
        if found is None:
            if (self.deadline is not None and not len(self._moves) & 255
                    and time.perf_counter() > self.deadline):
                raise TimeUp(len(self._moves))
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
    algorithm (``fairness.scc.iter_sccs``) on the tau moves reachable from it; results
    are kept."""

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
        # Nodes decided earlier lie in SCCs closed earlier: leaving them out of the
        # successors does not change the components found now.
        done = self._on_cycle

        def fresh(node: Node) -> list[Node]:
            return [w for w in self._targets(node) if w not in done]

        for component in iter_sccs([root], fresh):
            cyclic = not is_trivial(component, self._targets)
            for node in component:
                done[node] = cyclic

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
