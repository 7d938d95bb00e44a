"""Explicit labelled graphs for the refinement tests: ``{node: [(event|None, target)]}``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

Edges = dict[int, list[tuple[str | None, int]]]


@dataclass
class ExplicitGraph:
    """A ``LabelledGraph`` given by its edges; node 0 is initial; tau is None. The
    payload of a move is its event (so a counterexample path reads as events)."""

    edges: Edges
    initial_nodes: Sequence[int] = (0,)
    expanded: list[int] = field(default_factory=list)

    def initial(self) -> Sequence[int]:
        return list(self.initial_nodes)

    def moves(self, node: int) -> list[tuple[str | None, int, str | None]]:
        self.expanded.append(node)
        return [(e, t, e) for e, t in self.edges.get(node, [])]
