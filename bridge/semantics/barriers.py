"""CSP barriers (cspsharp.md section 7): which events each static instance may have
to synchronise on, which are hidden above it, and the combiner that joins the
instances' barrier offers into the steps of a composition."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from bridge.ir import (
    Composition,
    InstanceRef,
    Interleave,
    Parallel,
    TransitionSystem,
)


def sync_sets(system: TransitionSystem) -> dict[int, frozenset[str]]:
    """Return, per static instance, the event names it may have to synchronise on:
    names shared by several operands of an enclosing ``Parallel`` and in the alphabet of
    the operand that contains the instance."""
    sets: dict[int, set[str]] = {i: set() for i in range(len(system.instances))}

    def instances(node: Composition) -> list[int]:
        if isinstance(node, InstanceRef):
            return [node.instance]
        result: list[int] = []
        for c in node.children:
            result.extend(instances(c))
        return result

    stack: list[Composition] = [system.composition] if system.composition else []
    while stack:
        node = stack.pop()
        if isinstance(node, InstanceRef):
            continue
        if isinstance(node, Parallel):
            counts: dict[str, int] = {}
            for a in node.alphabets:
                for name in a:
                    counts[name] = counts.get(name, 0) + 1
            shared = {n for n, c in counts.items() if c >= 2}
            for child, alpha in zip(node.children, node.alphabets, strict=True):
                for i in instances(child):
                    sets.setdefault(i, set()).update(shared & alpha)
        stack.extend(node.children)
    return {i: frozenset(s) for i, s in sets.items()}


def hidden_sets(system: TransitionSystem) -> dict[int, frozenset[str]]:
    """Return, per static instance, the event names hidden above it (``hidden`` of the
    enclosing ``Parallel`` nodes): its own steps with such an event that do not go
    through a barrier are tau (those that do are relabelled by the combiner)."""
    out: dict[int, frozenset[str]] = {}
    stack: list[tuple[Composition, frozenset[str]]] = (
        [(system.composition, frozenset())] if system.composition else []
    )
    while stack:
        node, above = stack.pop()
        if isinstance(node, InstanceRef):
            out[node.instance] = above
            continue
        if isinstance(node, Parallel):
            above = above | node.hidden
        stack.extend((c, above) for c in node.children)
    return out


Offers = dict[int, list[tuple[str, tuple]]]


def make_combiner(node: Composition) -> Callable[[Offers], list[tuple[str, tuple]]]:
    """Return a function from the barrier offers of each instance (``pid -> [(event,
    parts)]``) to the offers of ``node`` after its synchronisations (cspsharp.md section
    7: an event in the alphabets of several operands of a ``Parallel`` happens only if
    every operand with it in its alphabet offers it; they move together). Alphabets and
    shared sets are computed once, here."""
    if isinstance(node, InstanceRef):
        i = node.instance

        def leaf(offers: Offers) -> list[tuple[str, tuple]]:
            return offers.get(i, [])

        return leaf
    kids = [make_combiner(c) for c in node.children]
    if isinstance(node, Interleave):
        def inter(offers: Offers) -> list[tuple[str, tuple]]:
            return [o for k in kids for o in k(offers)]

        return inter
    assert isinstance(node, Parallel)
    if node.hidden:
        # (P || Q) \ H: the node's steps with an event in H, synchronised or not,
        # come out as tau (None), which no enclosing node synchronises on.
        hidden = node.hidden
        inner = make_combiner(Parallel(node.children, node.alphabets))

        def hide(offers: Offers) -> list[tuple[str, tuple]]:
            return [(None if name in hidden else name, parts)  # type: ignore[misc]
                    for name, parts in inner(offers)]

        return hide
    counts: dict[str, int] = {}
    for a in node.alphabets:
        for name in a:
            counts[name] = counts.get(name, 0) + 1
    shared = frozenset(n for n, c in counts.items() if c >= 2)
    shared_in = [shared & a for a in node.alphabets]
    needed = {name: [ci for ci, a in enumerate(node.alphabets) if name in a] for name in shared}

    if all(isinstance(c, InstanceRef) for c in node.children):
        # The common flat case (|| of process instances): no call per operand.
        leaves = [(ci, c.instance, shared_in[ci]) for ci, c in enumerate(node.children)]

        def flat(offers: Offers) -> list[tuple[str, tuple]]:
            result: list[tuple[str, tuple]] = []
            pending: dict[str, dict[int, list[tuple]]] = {}
            for ci, i, mine in leaves:
                mine_offers = offers.get(i)
                if not mine_offers:
                    continue
                for name, parts in mine_offers:
                    if name in mine:
                        by_child = pending.get(name)
                        if by_child is None:
                            pending[name] = {ci: [parts]}
                        elif ci in by_child:
                            by_child[ci].append(parts)
                        else:
                            by_child[ci] = [parts]
                    else:
                        result.append((name, parts))
            _join(pending, needed, result)
            return result

        return flat

    def par(offers: Offers) -> list[tuple[str, tuple]]:
        result: list[tuple[str, tuple]] = []
        pending: dict[str, dict[int, list[tuple]]] = {}
        for ci, k in enumerate(kids):
            mine = shared_in[ci]
            for name, parts in k(offers):
                if name in mine:
                    pending.setdefault(name, {}).setdefault(ci, []).append(parts)
                else:
                    result.append((name, parts))
        _join(pending, needed, result)
        return result

    return par


def _join(pending: dict[str, dict[int, list[tuple]]], needed: dict[str, list[int]],
          result: list[tuple[str, tuple]]) -> None:
    """Append to ``result`` every barrier step of ``pending`` (event -> operand -> its
    offers): one offer of each operand that has the event in its alphabet, when all of
    them offer it."""
    for name, by_child in pending.items():
        need = needed[name]
        if len(by_child) != len(need):
            continue
        lists = [by_child[ci] for ci in need]
        for combo in itertools.product(*lists):
            result.append((name, tuple(p for parts in combo for p in parts)))


