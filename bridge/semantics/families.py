"""Families of process templates: templates equal but for their names, constant event
names and integer literals share one compiled code (DESIGN.md section 7; the C
engine groups instances by the same shapes, ``engine_c/gen_families``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from bridge.diagnostics import Span
from bridge.ir import (
    Const,
    Event,
    Process,
    SourceLanguage,
    TransitionSystem,
)
from bridge.semantics.state import StateLayout

# From this many static instances of templates equal but for their constant event names
# (CSP#'s ``||| i:{0..N-1}@P(i)``), they share one compiled code instead of one each.
FAMILY_MIN_INSTANCES = 16


def _family_shape(process: Process) -> Process | None:
    """Return ``process`` with its name and the names of its constant events blanked:
    templates with equal shapes run the same code but for the steps they produce
    (None: an event mixes constant and computed components, whose code would differ)."""
    edges = []
    for e in process.edges:
        ev = e.event
        if ev is not None and ev.components:
            const = [isinstance(c, Const) for c in ev.components]
            if all(const):
                e = dataclasses.replace(e, event=_CONST_EVENT)
            elif any(const):
                return None
        edges.append(e)
    return dataclasses.replace(process, name="", edges=tuple(edges))


_CONST_EVENT = Event("\0constant")


def family_constants(process: Process,
                     memo: dict[int, tuple[object, list[Const]]] | None = None) -> list[Const]:
    """Return the integer literals (not booleans) of ``process``'s guards, channel
    operations and effects, event names left out, in a fixed order (edge by edge;
    guard, channel operation, effect; depth first, fields in declaration order).

    Two processes with equal ``family_shape_blanked`` shapes have their literals at the
    same positions of this list: the parameter values that the CSP# front-end writes
    into ``W(j) = [x != j] ...`` are the differences between its instances. ``memo``:
    the literals of each part walked already, by identity (instances made from one
    template by the front-end share their parts: LE's 10,000 nodes are walked once)."""
    found: list[Const] = []
    for e in process.edges:
        for part in (e.guard, e.comm, e.effect):
            if part is None or part == ():
                continue
            if memo is None:
                _collect_ints(part, found)
                continue
            hit = memo.get(id(part))
            if hit is None:
                mine: list[Const] = []
                _collect_ints(part, mine)
                hit = memo[id(part)] = (part, mine)  # the part kept: its id stays its own
            found.extend(hit[1])
    return found


def family_shape_blanked(process: Process) -> Process | None:
    """Return ``_family_shape(process)`` with every integer literal of its guards,
    channel operations and effects set to 0 (``family_constants``): processes with
    equal such shapes run the same code but for their steps' constant event names and
    these literals, which a shared code reads per instance (the C engine's family
    code, ``engine_c/gen_families``). None as ``_family_shape``; RecursionError for an
    expression too deep to walk."""
    shape = _family_shape(process)
    if shape is None:
        return None
    edges = tuple(dataclasses.replace(e, guard=_blank_ints(e.guard), comm=_blank_ints(e.comm),
                                      effect=_blank_ints(e.effect))
                  for e in shape.edges)
    return dataclasses.replace(shape, edges=edges)


def family_literal_columns(members: Sequence[Process]) -> tuple[list[int], list[list[int]]] | None:
    """Return (the positions of ``family_constants`` where the literals of ``members``,
    processes of one ``family_shape_blanked`` shape, differ, one per ``Const`` object of
    the first member; each member's literals at those positions), or None when the
    first member's literals cannot stand for the others'.

    A family's shared code is generated from its first member and finds a literal by
    the identity of that member's ``Const``; a front-end may put one object at several
    positions (a parameter's value, substituted wherever the parameter occurs). Such
    positions must hold equal values in every member (one column serves them all),
    else the answer is None."""
    memo: dict[int, tuple[object, list[Const]]] = {}
    rows = [[int(c.value) for c in family_constants(p, memo)] for p in members]
    first = rows[0]
    if any(len(r) != len(first) for r in rows):
        return None  # never with equal shapes
    at: dict[int, list[int]] = {}
    for k, c in enumerate(family_constants(members[0], memo)):
        at.setdefault(id(c), []).append(k)
    shared = [ks for ks in at.values() if len(ks) > 1]
    if any(r[k] != r[ks[0]] for ks in shared for k in ks for r in rows):
        return None
    firsts = {ks[0] for ks in at.values()}
    varying = [k for k in range(len(first))
               if k in firsts and any(r[k] != first[k] for r in rows)]
    return varying, [[r[k] for k in varying] for r in rows]


_DATA_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields_of(node: object) -> tuple[str, ...]:
    """Return the field names of ``node``'s dataclass (none for another value, a class
    or a ``Span``), remembered per class."""
    cls = type(node)
    names = _DATA_FIELDS.get(cls)
    if names is None:
        names = () if not dataclasses.is_dataclass(cls) or cls is Span or isinstance(
            node, type) else tuple(f.name for f in dataclasses.fields(cls))
        _DATA_FIELDS[cls] = names
    return names


def _collect_ints(node: object, found: list[Const]) -> None:
    if isinstance(node, Const):
        if type(node.value) is int:
            found.append(node)
    elif isinstance(node, tuple | list):
        for x in node:
            _collect_ints(x, found)
    else:
        for name in _fields_of(node):
            _collect_ints(getattr(node, name), found)


def _blank_ints(node: Any) -> Any:
    """Return ``node`` with its integer literals set to 0 (the same object when it has
    none), in ``_collect_ints``'s order."""
    if isinstance(node, Const):
        return dataclasses.replace(node, value=0) if type(node.value) is int else node
    if isinstance(node, tuple):
        items = tuple(_blank_ints(x) for x in node)
        return node if all(a is b for a, b in zip(items, node, strict=True)) else items
    if isinstance(node, list):
        return [_blank_ints(x) for x in node]
    if _fields_of(node):
        changed = {}
        for name in _fields_of(node):
            old = getattr(node, name)
            new = _blank_ints(old)
            if new is not old:
                changed[name] = new
        return dataclasses.replace(node, **changed) if changed else node
    return node


def shared_parts(process: Process) -> tuple | None:
    """Return a key of ``process``'s parts by identity (names and constant event names
    left out): equal keys mean equal ``_family_shape``; None as there."""
    edges = []
    for e in process.edges:
        ev = e.event
        event: object = None
        if ev is not None:
            const = [isinstance(c, Const) for c in ev.components]
            if ev.components and all(const):
                event = _CONST_EVENT
            elif any(const):
                return None
            else:
                event = id(ev)
        edges.append((e.source, e.target, id(e.guard), id(e.comm), id(e.effect), event,
                      e.label, e.fairness, e.text, id(e.span), e.data_operation, e.atomic))
    return (process.parameters, id(process.locals), id(process.locations), process.initial,
            id(process.span), tuple(edges))


def template_families(system: TransitionSystem, layout: StateLayout) -> list[int]:
    """Return, per template, the representative of its family (the first template of
    its shape, see ``family_shape_blanked``: equal but for names, constant event names
    and integer literals of guards and effects), or -1 when its family has fewer than
    ``FAMILY_MIN_INSTANCES`` static instances (those get specialised code each). The C
    engine groups by the same shape (``engine_c.gen_families.family_shapes``)."""
    reps = [-1] * len(layout.processes)
    if layout.dynamic or system.language is SourceLanguage.PROMELA:
        return reps
    # A cheap outline first: shapes (deep trees) are hashed only where it is shared by
    # enough instances.
    def outline(p: Process) -> tuple:
        return (p.span, len(p.locations), tuple((e.source, e.target) for e in p.edges))

    instances_of: dict[int, int] = {}
    for name in (inst.process for inst in system.instances):
        t = layout.process_index.get(name)
        if t is not None:
            instances_of[t] = instances_of.get(t, 0) + 1
    by_outline: dict[tuple, int] = {}
    for tpl in layout.processes:
        o = outline(tpl.process)
        by_outline[o] = by_outline.get(o, 0) + instances_of.get(tpl.index, 0)
    first: dict[Process, int] = {}
    # Processes made from one template by a front-end share their parts: those with the
    # very same parts are equal in shape without comparing trees (the first of each
    # such group is compared in depth with the others').
    same_parts: dict[tuple, int] = {}
    count: dict[int, int] = {}
    for tpl in layout.processes:
        p = tpl.process
        if p.channels or p.channel_assertions or p.provided is not None or (
                by_outline[outline(p)] < FAMILY_MIN_INSTANCES):
            continue
        parts = shared_parts(p)
        if parts is None:
            continue
        known = same_parts.get(parts)
        if known is not None:
            reps[tpl.index] = reps[known]
            continue
        same_parts[parts] = tpl.index
        try:
            shape = family_shape_blanked(p)
            if shape is None:
                continue
            reps[tpl.index] = first.setdefault(shape, tpl.index)
        except RecursionError:  # an expression too deep to hash: code of its own
            continue
    for name in (inst.process for inst in system.instances):
        t = layout.process_index.get(name)
        if t is not None and reps[t] >= 0:
            count[reps[t]] = count.get(reps[t], 0) + 1
    return [r if r >= 0 and count.get(r, 0) >= FAMILY_MIN_INSTANCES else -1 for r in reps]


