"""Return the normal form of a specification, built lazily by subset construction.

Roscoe, *Understanding Concurrent Systems* (2010), section 16.1 ("normalisation"), as
FDR and PAT use it: a node of the normal form is the set of specification states the
specification can be in after a trace of visible events, closed under tau moves; the
node after event ``a`` is the tau closure of the ``a``-successors of its states. The
node also keeps what the failures models need: its *acceptances* (the sets of visible
events offered by its stable states, i.e. those without tau moves; only the minimal
ones matter) and whether it is *divergent* (one of its states lies on a tau cycle).
Nodes are built only where the product search (``check.py``) asks for them.
"""

from __future__ import annotations

from collections.abc import Iterable

from bridge.refinement.graph import CachedGraph, Node, TauCycles

NodeId = int


class NormalisedSpec:
    """The normal form of ``graph``, node by node (see the module docstring)."""

    def __init__(self, graph: CachedGraph, taus: TauCycles) -> None:
        self.graph = graph
        self.taus = taus
        self.nodes: list[frozenset[Node]] = []
        self._index: dict[frozenset[Node], NodeId] = {}
        self._after: dict[tuple[NodeId, str], NodeId | None] = {}
        self._acceptances: dict[NodeId, tuple[frozenset[str], ...]] = {}
        self._divergent: dict[NodeId, bool] = {}

    def initial(self) -> NodeId:
        """Return the node of the empty trace: the tau closure of the initial states."""
        return self._intern(self._closure(self.graph.initial()))

    def after(self, node: NodeId, event: str) -> NodeId | None:
        """Return the node reached from ``node`` by the visible ``event``, or None when
        no state of ``node`` can do it (the trace leaves the specification)."""
        key = (node, event)
        if key in self._after:
            return self._after[key]
        targets = [t for q in self.nodes[node] for e, t, _ in self.graph.moves(q) if e == event]
        found = self._intern(self._closure(targets)) if targets else None
        self._after[key] = found
        return found

    def acceptances(self, node: NodeId) -> tuple[frozenset[str], ...]:
        """Return the minimal sets of visible events offered by the stable states of
        ``node`` (empty when it has no stable state: it refuses nothing stably)."""
        found = self._acceptances.get(node)
        if found is None:
            offers = set()
            for q in self.nodes[node]:
                moves = self.graph.moves(q)
                if all(e is not None for e, _, _ in moves):
                    offers.add(frozenset(e for e, _, _ in moves if e is not None))
            found = tuple(sorted((a for a in offers if not any(b < a for b in offers)),
                                 key=lambda a: (len(a), sorted(a))))
            self._acceptances[node] = found
        return found

    def divergent(self, node: NodeId) -> bool:
        """Return True when some state of ``node`` can perform tau moves for ever."""
        found = self._divergent.get(node)
        if found is None:
            found = self._divergent[node] = any(self.taus.on_cycle(q) for q in self.nodes[node])
        return found

    def _closure(self, start: Iterable[Node]) -> frozenset[Node]:
        seen = set(start)
        todo = list(seen)
        while todo:
            for _, target, _ in self.graph.taus(todo.pop()):
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        return frozenset(seen)

    def _intern(self, states: frozenset[Node]) -> NodeId:
        found = self._index.get(states)
        if found is None:
            found = self._index[states] = len(self.nodes)
            self.nodes.append(states)
        return found
