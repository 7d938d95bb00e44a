"""Hand-built symmetric models for the symmetry tests and benchmarks (tests/irbuild.py).

``node_family(n, rules, ring)`` builds ``Node(i)`` for i in 0..n-1 from rule templates:
each rule is ``(guard, effect)`` written over ``me`` (``a[i]``), ``nb`` (``a[j]``; the
right neighbour ``(i + 1) % n`` in a ring, every other node in a complete network) and
the global ``x``; values are kept in 0..2.
"""

from __future__ import annotations

from collections.abc import Sequence

from bridge.ir import Const, Instance, LtlState
from tests.irbuild import G, L, add, assign, edge, eq, ev, int_var, ix, op, process, system

Rule = tuple[str, int, str, int, str, int]  # guard var, guard value, target var, value, ...


def _cell(which: str, i, j):
    if which == "me":
        return ix("a", i)
    if which == "nb":
        return ix("a", j)
    return G("x")


def node_family(n: int, rules: Sequence[Rule], ring: bool | str, init: int = 0,
                with_x: bool = True):
    """Return a system of ``n`` nodes; rule = (gwhich, gval, twhich, tval, t2which, t2val).
    ``ring``: False (complete network), True (directed ring: right neighbour) or
    ``"undirected"`` (both neighbours: rotations and reflections are symmetries)."""
    i = L("i")
    edges = []
    for r, (gw, gv, tw, tv, t2w, t2v) in enumerate(rules):
        if ring == "undirected":
            partners: list = [op("mod", add(i, 1), n), op("mod", add(i, n - 1), n)]
        elif ring:
            partners = [op("mod", add(i, 1), n)]
        else:
            partners = list(range(n))
        for jj in partners:
            j = jj if not isinstance(jj, int) else Const(jj)
            guard = eq(_cell(gw, i, j), gv)
            if not ring:
                guard = op("&&", op("!=", i, j), guard)
            effect = [assign(_cell(tw, i, j), tv)]
            if t2w != tw:
                effect.append(assign(_cell(t2w, i, j), t2v))
            edges.append(edge(0, 0, guard=guard, effect=effect, event=ev(f"r{r}", i, j)))
    node = process("Node", edges, parameters=["i"])
    insts = [Instance("Node", (Const(k),), f"Node({k})") for k in range(n)]
    globals_ = [int_var("a", [init] * n, length=n)]
    if with_x:
        globals_.append(int_var("x", 0))
    return system([node], globals_=globals_, instances=insts)


def count_atom(n: int, value: int, count: int) -> LtlState:
    """Return the symmetric atom 'exactly ``count`` cells of a equal ``value``'."""
    terms = [op("==", ix("a", k), value) for k in range(n)]
    total = terms[0]
    for t in terms[1:]:
        total = add(total, t)
    return LtlState(eq(total, count), f"#a=={value} is {count}")
