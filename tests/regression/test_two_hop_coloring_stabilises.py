"""Regression (issue 13, case studies): the two-hop coloring of the case studies did not
stabilise at N = 4.

Its first rules (flip both bits only when they agree, recolour without touching the
bits) have bottom SCCs at N = 4 whose configurations are not all colored, so
``<>[] colored`` was VIOLATED under strong global fairness (bridge found a loop of
474,520 steps, closed under every step), and the orienting rings built on them
inherited it. The rules now (``case_studies/generate.py``: the initiator flips its bit
for the responder's colour, the responder copies it and recolours when the two bits
disagreed) stabilise.

The oracle here is independent of bridge: it enumerates every configuration of the
ring (every one is initial: the models' ``Init`` chooses all of them), builds the
rules' successor relation directly, and reports whether a bottom SCC (a loop that
strong global fairness admits: closed under every step) holds a configuration that is
not colored. bridge's verdict on the generated model must equal the oracle's, and the
oracle must tell the old rules from the new ones (so this test can fail).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bridge import api
from bridge.frontends.csp import load_csp
from bridge.ir import Fairness, Outcome

CASES = Path(__file__).resolve().parents[2] / "case_studies"
C = 3  # colours, as in the case studies

Config = tuple[int, ...]  # N colours, then N * C bits


def _meet_copy(n: int, col: list[int], bits: list[int], u: int, v: int) -> Iterator[Config]:
    """The rules now: flip u's bit, v copies it; v recolours when they disagreed."""
    mine, theirs = u * C + col[v], v * C + col[u]
    agree = bits[mine] == bits[theirs]
    for k in [None] if agree else range(C):
        b = bits[:]
        b[mine] ^= 1
        b[theirs] = b[mine]
        c = col[:]
        if k is not None:
            c[v] = k
        yield tuple(c) + tuple(b)


def _flip_if_equal(n: int, col: list[int], bits: list[int], u: int, v: int) -> Iterator[Config]:
    """The first rules: flip both bits when they agree, else recolour v only."""
    mine, theirs = u * C + col[v], v * C + col[u]
    if bits[mine] == bits[theirs]:
        b = bits[:]
        b[mine] ^= 1
        b[theirs] ^= 1
        yield tuple(col) + tuple(b)
        return
    for k in range(C):
        c = col[:]
        c[v] = k
        yield tuple(c) + tuple(bits)


Rule = Callable[[int, list[int], list[int], int, int], Iterator[Config]]


def _uncolored_bottom_scc(n: int, rule: Rule) -> bool:
    """Return True when some bottom SCC of the ring's configurations under ``rule`` holds
    a configuration that is not colored (the two neighbours of a node share a colour)."""
    configs = [c + b for c in itertools.product(range(C), repeat=n)
               for b in itertools.product((0, 1), repeat=n * C)]
    index = {s: i for i, s in enumerate(configs)}
    succ: list[list[int]] = []
    for s in configs:
        col, bits = list(s[:n]), list(s[n:])
        succ.append([index[t] for u in range(n) for v in ((u + 1) % n, (u - 1) % n)
                     for t in rule(n, col, bits, u, v)])
    comp = _sccs(succ)
    bottom = [True] * (max(comp) + 1)
    for v, ws in enumerate(succ):
        if any(comp[w] != comp[v] for w in ws):
            bottom[comp[v]] = False
    return any(bottom[comp[v]] and any(s[(i - 1) % n] == s[(i + 1) % n] for i in range(n))
               for v, s in enumerate(configs))


def _sccs(succ: list[list[int]]) -> list[int]:
    """Tarjan's algorithm, iterative: the component number of every node."""
    n = len(succ)
    index, low, comp = [-1] * n, [0] * n, [-1] * n
    on_stack = [False] * n
    stack: list[int] = []
    counter = components = 0
    for root in range(n):
        if index[root] != -1:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        work = [(root, 0)]
        while work:
            v, i = work[-1]
            if i < len(succ[v]):
                work[-1] = (v, i + 1)
                w = succ[v][i]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp[w] = components
                    if w == v:
                        break
                components += 1
    return comp


def _generated(n: int) -> str:
    sys.path.insert(0, str(CASES))
    try:
        import generate
    finally:
        sys.path.remove(str(CASES))
    return generate.two_hop_coloring(n)


def test_the_oracle_tells_the_first_rules_from_the_rules_now() -> None:
    assert _uncolored_bottom_scc(4, _flip_if_equal)
    assert not _uncolored_bottom_scc(3, _flip_if_equal)
    assert not _uncolored_bottom_scc(4, _meet_copy)


@pytest.mark.parametrize("n", [3, 4])
def test_two_hop_coloring_stabilises(n: int) -> None:
    [system] = load_csp(f"two_hop_coloring_{n}.csp", text=_generated(n)).systems
    [prop] = [p for p in system.properties if p.formula is not None]
    verdict = api.check_property(system, prop,
                                 api.CheckOptions(fairness=Fairness.STRONG_GLOBAL))
    expected = Outcome.VIOLATED if _uncolored_bottom_scc(n, _meet_copy) else Outcome.HOLDS
    assert verdict.outcome is expected is Outcome.HOLDS
