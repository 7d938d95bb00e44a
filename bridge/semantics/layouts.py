"""Runtime layouts of a compiled state space: one arrangement of instance segments
per tuple of live templates (processes started and dying at run time), and the
initial state vector. ``Layouts`` is a mixin of ``statespace.CompiledStateSpace``."""

from __future__ import annotations

from collections.abc import Callable

from bridge.ir import SourceLanguage
from bridge.semantics.codegen import stored_value
from bridge.semantics.successors import StateVector

# ---------------------------------------------------------------------------------
# Runtime layouts (one per tuple of live templates)


class RuntimeLayout:
    """A concrete arrangement of instance segments: templates in pid order, bases,
    channel records by id, and the per-instance runner tuples used by ``successors``."""

    __slots__ = (
        "id", "templates", "bases", "n", "runners", "chans", "chan_names", "size",
        "segment_channel_ids", "pop_id", "key", "fn", "visits", "death_guard", "prio_slots",
        "atomic_edges",
    )

    def __init__(self, lid: int, templates: tuple[int, ...]) -> None:
        self.id = lid
        self.templates = templates
        self.n = len(templates)
        self.bases: tuple[int, ...] = ()
        self.runners: list[tuple] = []
        self.chans: dict[int, tuple[int, int, int, int]] = {}
        self.chan_names: dict[int, str] = {}
        self.size = 0
        self.segment_channel_ids: list[tuple[int, ...]] = []
        self.pop_id = -1
        self.key: tuple = ()
        self.fn: Callable | None = None  # the inlined successor function, once hot
        self.visits = 0
        # the youngest instance's provided clause, compiled (None: death unguarded)
        self.death_guard: Callable | None = None
        # absolute slot of each instance's priority (priority scheduling only)
        self.prio_slots: tuple[int, ...] = ()
        # (instance, edge) of the edges flagged atomic (``Edge.atomic``)
        self.atomic_edges: frozenset[tuple[int, int]] = frozenset()




class Layouts:
    """The layout half of ``CompiledStateSpace`` (a mixin: its state is there)."""

    # ------------------------------------------------------------------ layouts

    def _geometry(self, templates: tuple[int, ...]) -> tuple:
        """Return ``(bases, chans, chan_names, segment channel ids, size)`` of a tuple
        of live templates."""
        geo = self._geometries.get(templates)
        if geo is not None:
            return geo
        lay = self.layout
        prefix = self._geometries.get(templates[:-1]) if templates else None
        if prefix is not None:
            # Extend the prefix's geometry by its youngest instance: building each of
            # a thousand nested prefixes from scratch was quadratic.
            p_bases, p_chans, p_names, p_seg_ids, b = prefix
            i, t = len(templates) - 1, templates[-1]
            if lay.processes[t].channels:
                chans = dict(p_chans)
                chan_names = dict(p_names)
            else:  # nothing to add: share the prefix's maps (never mutated once built)
                chans, chan_names = p_chans, p_names
            next_id = self._geo_next_id[templates[:-1]]
            ids = self._segment_channels(i, t, b, next_id, chans, chan_names)
            geo = ((*p_bases, b), chans, chan_names, [*p_seg_ids, ids],
                   b + lay.processes[t].size)
            self._geometries[templates] = geo
            self._geo_next_id[templates] = next_id + len(ids)
            return geo
        chans: dict[int, tuple[int, int, int, int]] = {}
        chan_names: dict[int, str] = {}
        for c in lay.channels:
            chans[c.id] = (c.offset, c.capacity, c.fields, c.id)
            chan_names[c.id] = c.name
        next_id = len(lay.channels) + 1
        b = lay.static_size
        bases: list[int] = []
        seg_ids: list[tuple[int, ...]] = []
        for i, t in enumerate(templates):
            bases.append(b)
            ids = self._segment_channels(i, t, b, next_id, chans, chan_names)
            next_id += len(ids)
            seg_ids.append(ids)
            b += lay.processes[t].size
        geo = (tuple(bases), chans, chan_names, seg_ids, b)
        self._geometries[templates] = geo
        self._geo_next_id[templates] = next_id
        return geo

    def _segment_channels(self, i: int, t: int, base: int, next_id: int,
                          chans: dict[int, tuple[int, int, int, int]],
                          chan_names: dict[int, str]) -> tuple[int, ...]:
        """Number the channels of instance ``i`` (template ``t``, segment at ``base``)
        from ``next_id`` on, entering them in ``chans`` and ``chan_names``."""
        ids = []
        for c in self.layout.processes[t].channels:
            chans[next_id] = (base + c.offset, c.capacity, c.fields, next_id)
            chan_names[next_id] = f"{self._instance_label(i, t)}.{c.name}"
            ids.append(next_id)
            next_id += 1
        return tuple(ids)

    def _layout_for(self, key: tuple[tuple[int, tuple[int, ...]], ...]) -> RuntimeLayout:
        """Return the runtime layout of live instances ``key``: per instance its
        template and the values of its never-assigned locals (interned).

        Every layout knows the layout of its prefix (``pop_id``: the youngest process
        died), so the missing prefixes are built too, shortest first. Iteratively: a
        model with a thousand processes would otherwise recurse a thousand deep.
        """
        lid = self._layout_ids.get(key)
        if lid is not None:
            return self._layouts[lid]
        if self.language is not SourceLanguage.PROMELA:
            # Only Promela processes die (the youngest first): elsewhere no state ever
            # has a prefix layout, and building the thousand prefixes of a thousand
            # processes was quadratic in time and memory.
            return self._new_layout(key)
        missing = [key]
        while missing[-1] and missing[-1][:-1] not in self._layout_ids:
            missing.append(missing[-1][:-1])
        for prefix in reversed(missing):
            layout = self._new_layout(prefix)
        return layout

    def _new_layout(self, key: tuple[tuple[int, tuple[int, ...]], ...]) -> RuntimeLayout:
        """Return a new runtime layout for ``key``, whose prefix layout exists.

        Built from the prefix layout in work proportional to the new instance where it
        can be (a thousand processes build a thousand prefixes)."""
        prefix_id = self._layout_ids.get(key[:-1]) if key else None
        prefix = None if prefix_id is None else self._layouts[prefix_id]
        if prefix is not None:
            templates = (*prefix.templates, key[-1][0])
        else:
            templates = tuple(t for t, _ in key)
        rl = RuntimeLayout(len(self._layouts), templates)
        rl.key = key
        rl.bases, rl.chans, rl.chan_names, rl.segment_channel_ids, rl.size = self._geometry(templates)
        start = 0
        if prefix is not None:  # the older instances run as in the prefix layout
            rl.runners.extend(prefix.runners)
            rl.death_guard = prefix.death_guard
            start = len(prefix.runners)
        family = not self.layout.dynamic and self.language is not SourceLanguage.PROMELA
        for i, (t, consts) in enumerate(key[start:], start):
            fns = self._family_table(t, i) if family else None
            if fns is None:
                fns = self._specialised(t, i, rl.bases[i], consts)
            rl.runners.append(
                (fns, rl.bases[i], i, self._atomic_sets[t] or None, self._terminal_sets[t])
            )
            rl.death_guard = self._death_guards[fns]
        if self.system.priority_scheduling:
            rl.prio_slots = tuple(
                b + (self.layout.processes[t].priority_offset or 0)
                for b, t in zip(rl.bases, templates, strict=True))
        if prefix is not None and len(templates) == len(prefix.templates) + 1:
            i, t = len(templates) - 1, templates[-1]
            more = self._atomic_edge_sets[t]
            rl.atomic_edges = (prefix.atomic_edges if not more else
                               prefix.atomic_edges | {(i, k) for k in more})
        else:
            rl.atomic_edges = frozenset(
                (i, k) for i, t in enumerate(templates) for k in self._atomic_edge_sets[t])
        self._layouts.append(rl)
        self._layout_ids[key] = rl.id
        if key and key[:-1] in self._layout_ids:
            rl.pop_id = self._layout_ids[key[:-1]]
        return rl

    def _instance_label(self, i: int, template: int) -> str:
        insts = self.system.instances
        if i < len(insts) and self.layout.process_index.get(insts[i].process) == template:
            return insts[i].name or f"{insts[i].process}({i})"
        return f"{self.layout.processes[template].process.name}({i})"

    def _make_initial(self) -> StateVector:
        lay = self.layout
        t = [0] * lay.static_size
        if lay.exclusive_slot is not None:
            t[lay.exclusive_slot] = -1
        self._ns["_globals_init"](t)
        self._static_layout = None
        if lay.dynamic:
            empty = self._layout_for(())
            t[lay.layout_slot] = empty.id
            for i, inst in enumerate(self.system.instances):
                args = tuple(stored_value(self._const_eval(a, t)) for a in inst.arguments)
                self._ns["_run"](t, lay.initial_templates[i], args, -1, inst.priority)
            self._static_layout = None
            if self._claim_pending:
                self._initial_claim_error = self._claim_pending[0][1]
                self._claim_pending.clear()
        else:
            templates = lay.initial_templates
            bases, _, _, seg_ids, size = self._geometry(templates)
            t.extend([0] * (size - lay.static_size))
            for i, inst in enumerate(self.system.instances):
                args = tuple(stored_value(self._const_eval(a, t)) for a in inst.arguments)
                self._seg_init[templates[i]](t, bases[i], i, args, seg_ids[i])
            key = tuple(
                (tp, self.const_values(t, tp, b)) for tp, b in zip(templates, bases, strict=True)
            )
            self._plan_vectors(key)
            self._static_layout = self._layout_for(key)
        return tuple(t)

