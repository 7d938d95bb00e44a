"""Return a specification's whole normal form as a table, for the compiled engine.

The C refinement search (``templates/c/search_refine.c``) walks the product of the
implementation's states and the specification's normal form as ``product.py`` does,
but cannot normalise: this module builds every node of the normal form reachable from
the initial one (``normalise.NormalisedSpec``, Roscoe, *Understanding Concurrent
Systems*, section 16.1) and hands it over as plain data: the specification's events,
node x event -> node, each node's minimal acceptances and whether it is divergent.
A normal form may be exponential in the specification: past ``max_nodes`` nodes (or
``max_states`` specification states) ``NormalFormTooLarge`` is raised and the caller
checks the refinement on the Python engine, which normalises lazily.
"""

from __future__ import annotations

from dataclasses import dataclass

from bridge.diagnostics import BridgeError
from bridge.ir import TransitionSystem
from bridge.refinement.check import SpaceGraph
from bridge.refinement.graph import CachedGraph, TauCycles
from bridge.refinement.normalise import NodeId, NormalisedSpec
from bridge.semantics.statespace import build_state_space

# The largest normal form handed to the C engine (nodes; its table has one entry per
# node and event), and the most specification states explored to build it. A
# specification is usually far smaller than its implementation (PAT's users check
# protocols against a few-state specification); past these, the Python engine
# normalises lazily, only where the implementation goes.
C_TABLE_MAX_NODES = 10_000
C_TABLE_MAX_STATES = 200_000
C_TABLE_MAX_ENTRIES = 1 << 24  # nodes x events: 64 MB of 4-byte entries


class NormalFormTooLarge(BridgeError):
    """The specification's normal form is larger than the compiled engine takes."""


@dataclass(frozen=True, slots=True)
class SpecTable:
    """The normal form of a specification: node 0 is the initial node (the empty
    trace); ``after[n][k]`` the node after ``events[k]`` from node ``n`` (-1: the
    specification cannot do it); ``acceptances[n]`` the minimal sets of events offered
    by the stable states of node ``n``; ``divergent[n]`` whether one of its states lies
    on a tau cycle; ``spec_states`` how many specification states were explored."""

    events: tuple[str, ...]
    after: tuple[tuple[int, ...], ...]
    acceptances: tuple[tuple[frozenset[str], ...], ...]
    divergent: tuple[bool, ...]
    spec_states: int

    def next_node(self, node: int, event: str) -> int | None:
        """Return the node after ``event`` from ``node``, None when it cannot be done."""
        try:
            k = self.events.index(event)
        except ValueError:
            return None
        found = self.after[node][k]
        return None if found < 0 else found


def normalise_whole(spec: TransitionSystem, divergence: bool, max_nodes: int | None = None,
                    max_states: int | None = None, deadline: float | None = None
                    ) -> SpecTable:
    """Return the whole normal form of ``spec`` (see the module docstring); the
    divergent flags are computed only when ``divergence`` (failures-divergence), else
    all False. Raises ``NormalFormTooLarge`` past the bounds (by default
    ``C_TABLE_MAX_NODES`` and ``C_TABLE_MAX_STATES``) and ``ModelRuntimeError`` when
    the specification meets a model error, ``graph.TimeUp`` past ``deadline`` (a
    ``time.perf_counter()`` value: the run's time limit)."""
    max_nodes = C_TABLE_MAX_NODES if max_nodes is None else max_nodes
    max_states = C_TABLE_MAX_STATES if max_states is None else max_states
    graph = CachedGraph(SpaceGraph(build_state_space(spec)), deadline)
    normal = NormalisedSpec(graph, TauCycles(graph))
    edges: list[dict[str, NodeId]] = []
    todo = [normal.initial()]
    seen = {todo[0]}
    order: list[NodeId] = []
    while todo:
        node = todo.pop(0)
        order.append(node)
        offered = sorted({e for q in normal.nodes[node] for e, _, _ in graph.moves(q)
                          if e is not None})
        out: dict[str, NodeId] = {}
        for event in offered:
            target = normal.after(node, event)
            if target is None:
                continue
            out[event] = target
            if target not in seen:
                seen.add(target)
                todo.append(target)
        edges.append(out)
        if len(normal.nodes) > max_nodes:
            raise NormalFormTooLarge(
                f"the specification's normal form has more than {max_nodes} nodes "
                "(refinement.table.C_TABLE_MAX_NODES)")
        if graph.size > max_states:
            raise NormalFormTooLarge(
                f"the specification has more than {max_states} states "
                "(refinement.table.C_TABLE_MAX_STATES)")
    # NormalisedSpec numbers nodes as it meets them; the BFS above meets them in the
    # same order, so node ids are order positions (the initial node is 0)
    assert order == list(range(len(order)))
    events = tuple(sorted({e for out in edges for e in out}))
    if len(order) * len(events) > C_TABLE_MAX_ENTRIES:
        raise NormalFormTooLarge(
            f"the specification's normal form table ({len(order)} nodes x {len(events)} "
            f"events) has more than {C_TABLE_MAX_ENTRIES} entries "
            "(refinement.table.C_TABLE_MAX_ENTRIES)")
    index = {e: k for k, e in enumerate(events)}
    after = []
    for out in edges:
        row = [-1] * len(events)
        for event, target in out.items():
            row[index[event]] = target
        after.append(tuple(row))
    acceptances = tuple(normal.acceptances(n) for n in order)
    divergent = tuple(normal.divergent(n) if divergence else False for n in order)
    return SpecTable(events, tuple(after), acceptances, divergent, graph.size)
