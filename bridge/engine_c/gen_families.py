"""The C generator's shared code of a static system (issue 12 item 1): instances that
differ only in data run one C function per control location of their family, as pan
runs one per proctype.

A static system (every CSP# model) used to get its next-state code once per instance,
with the instance's segment base, pid and never-assigned locals folded in, so compile
time grew with the instance count. Here the instances are grouped by a key of what
their code depends on (the template's shape, ``families.template_families``; the packed
segment; the location sets; which events are constant), and a group of at least
``FAMILY_MIN_C`` instances gets its location functions once, generic in the base
``b`` and the pid ``pid`` with its locals read from the state, as the Python engine's
family code (``statespace._family_table``). What differs between its members is data:
each member's constant event names (``BR_PEV``, one row per member) and the label of
its edges (``BR_PID_EDGE``). A run of consecutive members is one loop in
``model_successors``, in pid order, so successors come in the same order.

Instances whose guards, channel operations and effects differ in integer literals at
the same positions (``families.family_shape_blanked``: a parameter the CSP# front-end
writes into ``W(j) = [x != j] ...``, ``bit[(j + 1) % N]``) share their code too: the
literals that differ between the members are read from the member's row of ``BR_PK``
(``family_literal``) and never folded, so an index or a divisor among them is checked
at run time, as the Python engine checks it; the literals equal in every member are
folded as before. The literals are found by the identity of the first member's
``Const`` objects, so a family whose members put one object at positions that differ
in another member is split back into code per instance (``_varying_literals``).

A member's barrier edges (an event it synchronises on: taken by a precomputed vector in
``model_successors``, or never) are part of its key by edge index, and an event hidden
above a composition is tau in its row, so dining philosophers or processes that end
with ``Skip`` (the ``terminate`` barrier) share their code too. An instance with a
computed event name that it may synchronise on or hides keeps its own code.
"""
from __future__ import annotations

from typing import Any

from bridge.engine_c.gen_base import CUnsupported
from bridge.ir import TransitionSystem
from bridge.semantics.codegen import event_constant, event_is_constant
from bridge.semantics.families import (
    family_constants,
    family_literal_columns,
    family_shape_blanked,
    shared_parts,
)
from bridge.semantics.state import StateLayout

# The fewest instances of one key that share their code (fewer: one code each).
FAMILY_MIN_C = 2


class Families:
    """The shared-code half of ``codegen.CGenerator`` (a mixin: its state is there)."""

    # set while a family's code is generated: edge (``id``) -> index, for the edges whose
    # event is constant in every member (``event_code`` reads it from ``BR_PEV``)
    _family_events: dict[int, int] | None = None
    # and the barrier edges of the family (``id`` -> "vector" or "barrier", ``_member``)
    _family_barriers: dict[int, str] = {}  # noqa: RUF012  # replaced, never mutated
    # and the integer literals that differ between its members (``id`` of the first
    # member's ``Const`` -> column of ``BR_PK``), read per instance (``family_literal``)
    _family_literals: dict[int, int] | None = None
    own_code_instances: int  # static instances that got code of their own

    def family_label(self, tpl: int, k: int, pid: str) -> str:
        """Return the C label of edge ``k`` of template ``tpl`` taken by ``pid``:
        ``EDGE_BASE[tpl] + k`` folded, or read from ``BR_PID_EDGE`` in family code."""
        if self._family_events is None:
            return str(self.edge_ids[tpl] + k)
        return f"(BR_PID_EDGE[{pid}] + {k})"

    def family_event(self, k: int, pid: str) -> str:
        """Return the C expression of the constant event of edge ``k`` in family code."""
        return f"BR_PEV[BR_PEV_OFF[{pid}] + {k}]"

    def family_literal(self, e: Any, pid: str) -> str | None:
        """Return the C expression reading literal ``e`` of family code from the
        member's row of ``BR_PK``, or None when ``e`` is the same in every member (or no
        family code is being generated)."""
        if self._family_literals is None:
            return None
        column = self._family_literals.get(id(e))
        return None if column is None else f"BR_PK[BR_PK_OFF[{pid}] + {column}]"

    def _member(self, pid: int, vector_edges: set[tuple[int, int]]) -> tuple[Any, list[Any]] | None:
        """Return (the key of instance ``pid``'s code, its event row: per edge its
        constant event name, -1 tau, 0 for a name computed at run time), or None when
        the instance needs its own code (a computed event it may synchronise on or
        hides). Its barrier edges are part of the key, by index: taken by a
        synchronisation vector ("vector"), or never taken ("barrier", Python still
        evaluates the guard), as ``Statements.gen_edge`` treats them."""
        lay = self.layout
        space = self.space
        t = lay.initial_templates[pid]
        proc = lay.processes[t]
        sync = space._sync_sets.get(pid, frozenset())
        hidden = space._hidden_sets.get(pid, frozenset())
        bases = {n.split(".", 1)[0] for n in sync | hidden}
        row: list[Any] = []
        constant: list[int] = []
        barriers: list[tuple[int, str]] = []
        with self.instance_constants(pid):
            for k, e in enumerate(proc.process.edges):
                if e.event is None:
                    row.append(-1)
                    continue
                if not event_is_constant(self.pygen, e.event):
                    if e.event.base in bases:
                        return None
                    if e.comm is None and not e.data_operation and sync:
                        return None  # its own code: Statements._computed_barrier
                    row.append(0)
                    continue
                name = event_constant(self.pygen, e.event)
                constant.append(k)
                local = e.comm is None
                if local and not e.data_operation and sync:
                    if (pid, k) in vector_edges:
                        barriers.append((k, "vector"))
                    elif name in sync:
                        if self.runtime_barriers:
                            return None  # its own code: an offer (Statements._barrier_offer)
                        barriers.append((k, "barrier"))
                # hidden above a composition and not a barrier: tau (Statements.gen_edge)
                tau = local and name in hidden and (e.data_operation or name not in sync)
                row.append(-1 if tau else name)
        rep = self.shapes[t]
        seg = self.packed.segments[t]
        key = (rep,
               seg.size, tuple(seg.offsets), tuple(k.name for k in seg.kinds),
               tuple(sorted((n, s.offset, s.size) for n, s in proc.locals.items())),
               space._atomic_sets[t], tuple(constant), tuple(barriers))
        return key, row

    def static_instances_code(self, vector_edges: set[tuple[int, int]]) -> list[str]:
        """Return the part of ``model_successors`` that runs every static instance's
        location function: a loop over each run of members of a shared family, the
        specialised code of the other instances (see the module docstring)."""
        lay = self.layout
        n = len(lay.initial_templates)
        members = [self._member(pid, vector_edges) for pid in range(n)]
        count: dict[Any, int] = {}
        for m in members:
            if m is not None:
                count[m[0]] = count.get(m[0], 0) + 1
        literals = self._varying_literals(members, count)
        for pid, m in enumerate(members):
            if m is not None and m[0] in literals and literals[m[0]] is None:
                members[pid] = None  # literals the family code could not tell apart
        shared: dict[Any, dict[int, str] | None] = {}
        pev: list[str] = []
        pev_off = [0] * n
        pk: list[str] = []
        pk_off = [0] * n
        lines: list[str] = []
        pid = 0
        while pid < n:
            m = members[pid]
            names = None
            if m is not None and count[m[0]] >= FAMILY_MIN_C:
                if m[0] not in shared:
                    shared[m[0]] = self._family_code(pid, m[0], len(shared),
                                                     literals[m[0]][0])
                names = shared[m[0]]
            t = lay.initial_templates[pid]
            if names is None:  # code of its own
                self.own_code_instances += 1
                base = str(self.static_bases[pid])
                sync = self.space._sync_sets.get(pid, frozenset())
                with self.instance_constants(pid):
                    nm = self.gen_process(t, base, str(pid), f"I{pid}", sync, vector_edges)
                lines.extend(self.dispatch(nm, base, str(pid), t, "  "))
                pid += 1
                continue
            first = pid
            size = self.packed.segments[t].size
            while (pid < n and members[pid] is not None and members[pid][0] == m[0]
                   and self.static_bases[pid] == self.static_bases[first] + (pid - first) * size):
                pev_off[pid] = len(pev)
                pev.extend(str(x if isinstance(x, int) else self.intern_event(x))
                           for x in members[pid][1])
                pk_off[pid] = len(pk)
                pk.extend(str(v) for v in literals[m[0]][1][pid])
                pid += 1
            if not names:
                continue
            lines.append(f"  for (int _p = {first}; _p < {pid}; _p++) {{")
            lines.append(f"    uint32_t _b = {self.static_bases[first]} + (uint32_t)(_p - {first}) * {size};")
            lines.extend(self.dispatch(names, "_b", "_p", t, "    "))
            lines.append("  }")
        if pev:
            self.family_tables += [
                "/* shared family code (gen_families.py): per static instance the label of "
                "its first edge, and the offset of its row of constant event ids */",
                f"static const int32_t BR_PID_EDGE[{n}] = "
                f"{{{', '.join(str(self.edge_ids[t]) for t in lay.initial_templates)}}};",
                f"static const int32_t BR_PEV_OFF[{n}] = {{{', '.join(map(str, pev_off))}}};",
                f"static const int32_t BR_PEV[{len(pev)}] = {{{', '.join(pev)}}};"]
        if pk:
            self.family_tables += [
                "/* shared family code: per static instance the offset of its row of the "
                "integer literals that differ between the members of its family */",
                f"static const int32_t BR_PK_OFF[{n}] = {{{', '.join(map(str, pk_off))}}};",
                f"static const V BR_PK[{len(pk)}] = {{{', '.join(pk)}}};"]
        return lines

    def _varying_literals(self, members: list[tuple[Any, list[Any]] | None],
                          count: dict[Any, int]
                          ) -> dict[Any, tuple[list[int], dict[int, list[int]]] | None]:
        """Return, per key of a shared family, (the positions in ``family_constants``
        where its members' literals differ, each member's literals at those positions
        by pid), or None when the family code could not tell them apart
        (``families.family_literal_columns``; its members get code of their own)."""
        procs = self.layout.processes
        pids: dict[Any, list[int]] = {}
        for pid, m in enumerate(members):
            if m is not None and count[m[0]] >= FAMILY_MIN_C:
                pids.setdefault(m[0], []).append(pid)
        out: dict[Any, tuple[list[int], dict[int, list[int]]] | None] = {}
        for key, group in pids.items():
            found = family_literal_columns(
                [procs[self.layout.initial_templates[pid]].process for pid in group])
            out[key] = None if found is None else (
                found[0], dict(zip(group, found[1], strict=True)))
        return out

    def _family_code(self, pid: int, key: Any, index: int,
                     varying: list[int]) -> dict[int, str] | None:
        """Return location -> function name of the code shared by the family ``key``,
        generated once from its first member ``pid`` (generic in ``b`` and ``pid``, no
        local folded, the literals at positions ``varying`` of ``family_constants`` read
        from ``BR_PK``, never folded); None when that code cannot be translated (its
        members then get their own code, which may still be)."""
        t = self.layout.initial_templates[pid]
        proc = self.layout.processes[t]
        constant, barriers = key[-2], key[-1]
        marks = (len(self.functions), len(self.prototypes), set(self.helpers))
        self._family_events = {id(proc.process.edges[k]): k for k in constant}
        self._family_barriers = {id(proc.process.edges[k]): how for k, how in barriers}
        consts = family_constants(proc.process)
        self._family_literals = {id(consts[k]): column for column, k in enumerate(varying)}
        self.pygen.consts = {}
        # the literals read per member are no constants: the folding (the Python
        # generator's) folds none of them, not even inside a larger expression
        self.pygen.family_literals = {i: "" for i in self._family_literals}
        try:
            return self.gen_process(t, "b", "pid", f"F{index}", frozenset(), set())
        except CUnsupported:
            del self.functions[marks[0]:]
            del self.prototypes[marks[1]:]
            self.helpers = marks[2]
            return None
        finally:
            self._family_events = None
            self._family_barriers = {}
            self._family_literals = None
            self.pygen.family_literals = None


def family_shapes(system: TransitionSystem, layout: StateLayout) -> list[int]:
    """Return, per template of a static system, the first template of its shape
    (``families.family_shape_blanked``: equal but for names, constant event names and
    the integer literals of guards, channel operations and effects), or
    the template itself when its shape is not shared or cannot be (local channels,
    ``xr``/``xs`` claims, a ``provided`` clause, a mixed event), as
    ``families.template_families`` groups them without its least family size."""
    reps = list(range(len(layout.processes)))
    if layout.dynamic:
        return reps
    same_parts: dict[tuple, int] = {}
    first: dict[Any, int] = {}
    for tpl in layout.processes:
        p = tpl.process
        if p.channels or p.channel_assertions or p.provided is not None:
            continue
        parts = shared_parts(p)
        if parts is None:
            continue
        known = same_parts.get(parts)
        if known is not None:  # made from one template by the front-end: no tree compared
            reps[tpl.index] = reps[known]
            continue
        same_parts[parts] = tpl.index
        try:
            shape = family_shape_blanked(p)
            if shape is not None:
                reps[tpl.index] = first.setdefault(shape, tpl.index)
        except RecursionError:  # an expression too deep to hash: code of its own
            continue
    return reps

