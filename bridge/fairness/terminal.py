"""Check a strong globally fair part in one pass, without building its lasso.

Under strong global fairness a fair loop takes every step of every system state it
visits, so its states are closed under the system's steps: the loop of a counterexample
covers a whole terminal component (paper 001 Lemma 2; 000 Fig. 9), which on a protocol
like the orienting rings has hundreds of thousands of states and millions of steps. A
lasso that long is neither printable nor checkable step by step in reasonable time.

``check_terminal_part`` instead checks the part itself on the product, asking each node
for its edges once (``Product.step_edges``): the part reached from ``start`` through
nodes the predicate ``in_part`` accepts must be

- closed under steps: for every system state of the part, each of its system steps is
  taken by an edge between two part nodes (Fig. 9's condition, per system state);
- strongly connected (every part node reaches ``start`` back inside the part);
- accepting: its internal edges meet every acceptance set.

Then the walk covering every internal edge, repeated forever, is a fair accepting run
(001 Lemma 2, sufficient condition): the part is a certificate of the violation. The
stronger, per-node closure (``TerminalPart.node_closed``: every node takes each step of
its state on an internal edge) is what lifting a part of a symmetry quotient to the full
state space needs (``api._compiled._lift_quotient_part``).

The C engine checks the large parts it reports the same way (``bridge_ltl_check_part``
in ``templates/c/search_ltl.c``, ``engine_c.PartCheck``); this module is the reference
it is compared with (``tests/differential/test_engine_c_part_check.py``).
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass

from bridge.fairness.product import LimitReached, Product

CHECK_EVERY = 512  # nodes between two looks at the clock

__all__ = ["TerminalPart", "check_terminal_part"]


@dataclass
class TerminalPart:
    """What ``check_terminal_part`` found: the part's nodes, how many system states and
    internal edges they have, the union of the internal edges' acceptance marks, and
    whether it is a fair accepting part (``closed``, ``connected``, ``accepting``);
    ``node_closed``: every node (not just every system state) takes all its steps
    inside; ``problem``: what failed, in words ("" when nothing did)."""

    nodes: set[int]
    system_states: int
    edges: int
    acceptance: int
    closed: bool
    node_closed: bool
    connected: bool
    accepting: bool
    problem: str = ""

    @property
    def fair_accepting(self) -> bool:
        """Return True when the part certifies a fair accepting run (001 Lemma 2)."""
        return self.closed and self.connected and self.accepting


def check_terminal_part(product: Product, start: int, in_part: Callable[[int], bool],
                        deadline: float | None = None) -> TerminalPart:
    """Return the check of the part of the product reached from ``start`` through nodes
    accepted by ``in_part`` (module docstring; paper 001 Lemma 2, 000 Fig. 9): each node's
    edges are computed once. Raises ``LimitReached`` (``"time"``) past ``deadline``
    (``time.monotonic()``) and, through the product, past its state limit."""
    if not in_part(start):
        raise ValueError("the start node is not in the part")
    node_sys = product.node_sys
    members: dict[int, int] = {start: 0}  # node -> position in order
    order = [start]
    src, dst = array("i"), array("i")  # internal edges, as positions
    taken: dict[int, set[int]] = {}  # system state -> indices of its steps taken inside
    count: dict[int, int] = {}  # system state -> number of its distinct steps
    acceptance = 0
    node_closed = True
    head = 0
    while head < len(order):
        if deadline is not None and head % CHECK_EVERY == 0 and time.monotonic() > deadline:
            raise LimitReached("time")
        u = order[head]
        here = head
        head += 1
        e = product.step_edges(u)
        s = node_sys[u]
        count[s] = e.system_steps
        mine: set[int] = set()
        for v, a, j in zip(e.targets, e.accs, e.system_index, strict=True):
            w = members.get(v)
            if w is None:
                if not in_part(v):
                    continue
                w = members[v] = len(order)
                order.append(v)
            src.append(here)
            dst.append(w)
            acceptance |= a
            mine.add(j)
        if len(mine) != e.system_steps:
            node_closed = False
        taken.setdefault(s, set()).update(mine)
    closed = all(len(taken[s]) == n for s, n in count.items())
    all_sets = product.buchi.all_sets
    accepting = acceptance & all_sets == all_sets
    connected = _reaches_back(len(order), src, dst, deadline)
    problem = "" if closed else "a step of one of its system states leaves it"
    if not connected:
        problem = problem or "it is not strongly connected"
    if not accepting:
        problem = problem or "its edges miss an acceptance set"
    return TerminalPart(set(order), len(count), len(src), acceptance, closed, node_closed,
                        connected, accepting, problem)


def _reaches_back(n: int, src: array, dst: array, deadline: float | None = None) -> bool:
    """Return True when every one of the ``n`` nodes reaches node 0 along the edges
    ``src[i] -> dst[i]`` (all nodes are reached from node 0 by construction). Raises
    ``LimitReached`` past ``deadline``."""

    def late(i: int) -> None:
        if deadline is not None and i % (64 * CHECK_EVERY) == 0 and time.monotonic() > deadline:
            raise LimitReached("time")

    # reverse adjacency in compressed form: first[v]..first[v + 1] index into preds
    first = array("i", [0]) * (n + 1)
    for v in dst:
        first[v + 1] += 1
    for v in range(n):
        first[v + 1] += first[v]
    fill = array("i", first[:n])
    preds = array("i", [0]) * len(src)
    for i, (u, v) in enumerate(zip(src, dst, strict=True)):
        late(i)
        preds[fill[v]] = u
        fill[v] += 1
    seen = bytearray(n)
    seen[0] = 1
    stack = [0]
    reached = 1
    popped = 0
    while stack:
        late(popped)
        popped += 1
        v = stack.pop()
        for i in range(first[v], first[v + 1]):
            u = preds[i]
            if not seen[u]:
                seen[u] = 1
                reached += 1
                stack.append(u)
    return reached == n
