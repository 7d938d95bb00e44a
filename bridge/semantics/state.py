"""The state-vector layout of a ``TransitionSystem`` (DESIGN.md section 7).

A state is a flat tuple of small ints, laid out as::

    [hidden globals] [layout id]? [_last]? [exclusive]? [globals] [global channel buffers]
    [instance 0 segment] [instance 1 segment] ...

* Hidden globals (CSP# ``hvar``) come first so that the visited key of a state is the
  slice ``state[hidden_count:]``: PAT keeps them in the state but ignores them when
  states are compared (cspsharp.md section 7). ``CompiledStateSpace.state_key`` returns
  that slice; explorers that store states must key them by it.
* Arrays are flattened row-major; booleans are 0/1.
* A channel buffer is ``[length, message 0 fields..., message capacity-1 fields...]``;
  free message slots are kept 0 so equal contents give equal vectors. A rendezvous
  channel (capacity 0) has no buffer.
* An instance segment is ``[location, locals (flattened)..., for each channel declared
  in the process: [channel id, buffer...]]``.
* Dynamic systems (Promela, or any ``Run``) have a *layout id* slot: it indexes a table
  of runtime layouts, each the tuple of process templates of the live instances (pid
  order), from which every segment's base offset is known. ``Run`` appends a segment;
  a Promela process dies (SPIN semantics, promela-spin.md sections 6 and 11) only when
  it is the youngest live one, and its segment is removed, so pids are reused exactly as
  SPIN reuses them. Static systems (CSP#, hand-built IR without ``Run``) have one fixed
  layout and instances never disappear.
* Promela models with ``atomic`` sequences have an *exclusive* slot: the pid of the
  instance whose last step left it inside an atomic sequence, else -1. Only that
  instance may move while it can (SPIN regains atomicity only when the process itself
  is scheduled again: promela-spin.md sections 5 and 11); pan does not store such
  intermediate states, so tools comparing state counts with pan should count states
  whose exclusive slot is -1 or whose holder is blocked.
* Channel ids: global channels ``1..n`` in declaration order; a channel declared in a
  process gets, when the instance is created, the next id after every channel of the
  instances before it (creation order, as SPIN numbers them).
* Promela models with ``xr``/``xs`` (``Process.channel_assertions``) have *claim*
  slots: two per global channel (``claim_slot + 2 * (id - 1)`` for ``xr``, ``+ 1`` for
  ``xs``), each holding the claimant's pid + 1 (0: unclaimed). A claim is made when
  the claimant is created and never released, as pan keeps it.
* With ``TransitionSystem.priority_scheduling`` every segment ends with the instance's
  priority (``ProcessLayout.priority_offset``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass

from bridge.diagnostics import UnsupportedError
from bridge.ir import (
    ArrayType,
    Channel,
    Process,
    Run,
    SourceLanguage,
    TransitionSystem,
    Type,
    Variable,
    scalar_count,
)
from bridge.ir.expr import Builtin, If, While

VarIndex = int


@dataclass(frozen=True, slots=True)
class VariableSlot:
    """Where a variable lives: ``offset`` (absolute for globals, relative to the instance
    base for locals), its type, and ``dims``: array lengths, outermost first."""

    name: str
    offset: int
    type: Type
    size: int
    dims: tuple[int, ...]
    element: Type
    hidden: bool = False


@dataclass(frozen=True, slots=True)
class ChannelSlot:
    """A channel's buffer position: ``offset`` of its length slot (absolute for global
    channels, relative to the instance base for process channels; for those the id slot
    is at ``offset - 1``). ``offset`` is -1 for a rendezvous channel without buffer."""

    name: str
    id: int
    capacity: int
    fields: int
    offset: int
    channel: Channel


@dataclass(slots=True)
class ProcessLayout:
    """The segment layout of one process template."""

    index: int
    process: Process
    size: int
    locals: dict[str, VariableSlot]
    channels: list[ChannelSlot]
    location_index: dict[int, int]
    # the priority slot, relative to the base (priority scheduling only)
    priority_offset: int | None = None


@dataclass(slots=True)
class StateLayout:
    """The static part of the layout plus the per-template segment layouts."""

    system: TransitionSystem
    hidden_count: int
    dynamic: bool
    layout_slot: int | None
    last_slot: int | None
    globals: dict[str, VariableSlot]
    channels: list[ChannelSlot]
    channel_ids: dict[str, int]
    static_size: int
    processes: list[ProcessLayout]
    process_index: dict[str, int]
    initial_templates: tuple[int, ...]
    initial_bases: tuple[int, ...] = field(default=())
    # Promela with atomic sequences: the pid holding atomicity (-1: none), see below.
    exclusive_slot: int | None = None
    # Promela with xr/xs: first of the two claim slots per global channel, see above.
    claim_slot: int | None = None

    def channel_by_id(self, cid: int) -> ChannelSlot | None:
        """Return the global channel with id ``cid``, or None."""
        if 1 <= cid <= len(self.channels):
            return self.channels[cid - 1]
        return None


def _dims(t: Type) -> tuple[tuple[int, ...], Type]:
    dims: list[int] = []
    while isinstance(t, ArrayType):
        dims.append(t.length)
        t = t.element
    return tuple(dims), t


def _slot(v: Variable, offset: int) -> VariableSlot:
    dims, element = _dims(v.type)
    return VariableSlot(v.name, offset, v.type, scalar_count(v.type), dims, element, v.hidden)


def _uses_run(system: TransitionSystem) -> bool:
    def walk(stmts) -> bool:
        for s in stmts:
            if isinstance(s, Run):
                return True
            if isinstance(s, If):
                if any(walk(b) for _, b in s.branches) or walk(s.otherwise):
                    return True
            if isinstance(s, While) and walk(s.body):
                return True
        return False

    return any(walk(e.effect) for p in system.processes for e in p.edges)


def _mentions_builtin(system: TransitionSystem, name: str) -> bool:
    # A structural search over the frozen dataclasses of the IR, iterative (a model's
    # expressions may be thousands deep); decides whether a slot for ``_last`` is needed.
    # CSP# has no builtins of Promela's (``_last``, ``_nr_pr``...): nothing to find.
    if system.language is SourceLanguage.CSP:
        return False
    stack: list[object] = [system.processes, system.propositions, system.properties]
    seen: set[int] = set()
    names_of: dict[type, tuple[str, ...] | None] = {}  # per class: its field names
    while stack:
        node = stack.pop()
        if isinstance(node, Builtin):
            if node.name == name:
                return True
        elif isinstance(node, (tuple, list, frozenset)):
            stack.extend(node)
        else:
            cls = type(node)
            if cls not in names_of:
                names_of[cls] = (tuple(f.name for f in fields(cls))
                                 if is_dataclass(cls) else None)
            names = names_of[cls]
            if names is not None and id(node) not in seen:
                seen.add(id(node))
                stack.extend(getattr(node, n) for n in names)
    return False


def compute_layout(system: TransitionSystem) -> StateLayout:
    """Return the state layout of ``system`` (see the module docstring).

    Raises ``UnsupportedError`` for an instance of an unknown process template.
    """
    dynamic = system.language is SourceLanguage.PROMELA or _uses_run(system)
    offset = 0
    globals_: dict[str, VariableSlot] = {}
    for v in system.globals:
        if v.hidden:
            globals_[v.name] = _slot(v, offset)
            offset += scalar_count(v.type)
    hidden_count = offset
    layout_slot = None
    if dynamic:
        layout_slot = offset
        offset += 1
    last_slot = None
    if _mentions_builtin(system, "_last"):
        last_slot = offset
        offset += 1
    exclusive_slot = None
    if system.language is SourceLanguage.PROMELA and any(
        loc.atomic for p in system.processes for loc in p.locations
    ):
        exclusive_slot = offset
        offset += 1
    claim_slot = None
    if any(p.channel_assertions for p in system.processes):
        claim_slot = offset
        offset += 2 * len(system.channels)
    for v in system.globals:
        if not v.hidden:
            globals_[v.name] = _slot(v, offset)
            offset += scalar_count(v.type)
    channels: list[ChannelSlot] = []
    channel_ids: dict[str, int] = {}
    for i, c in enumerate(system.channels, start=1):
        if c.capacity > 0:
            channels.append(ChannelSlot(c.name, i, c.capacity, len(c.fields), offset, c))
            offset += 1 + c.capacity * len(c.fields)
        else:
            channels.append(ChannelSlot(c.name, i, 0, len(c.fields), -1, c))
        channel_ids[c.name] = i
    static_size = offset
    processes: list[ProcessLayout] = []
    process_index: dict[str, int] = {}
    for k, p in enumerate(system.processes):
        rel = 1
        locals_: dict[str, VariableSlot] = {}
        for v in p.locals:
            locals_[v.name] = _slot(v, rel)
            rel += scalar_count(v.type)
        for name in p.parameters:
            if name not in locals_:
                from bridge.ir import UNBOUNDED

                locals_[name] = _slot(Variable(name, UNBOUNDED), rel)
                rel += 1
        pchans: list[ChannelSlot] = []
        for c in p.channels:
            if c.capacity > 0:
                pchans.append(ChannelSlot(c.name, 0, c.capacity, len(c.fields), rel + 1, c))
                rel += 2 + c.capacity * len(c.fields)
            else:
                pchans.append(ChannelSlot(c.name, 0, 0, len(c.fields), rel + 1, c))
                rel += 1
        priority_offset = None
        if system.priority_scheduling:
            priority_offset = rel
            rel += 1
        processes.append(
            ProcessLayout(k, p, rel, locals_, pchans,
                          {loc.id: i for i, loc in enumerate(p.locations)}, priority_offset)
        )
        process_index[p.name] = k
    templates: list[int] = []
    for inst in system.instances:
        if inst.process not in process_index:
            raise UnsupportedError.at(
                inst.span, f"instance of unknown process '{inst.process}'"
            )
        templates.append(process_index[inst.process])
    bases: list[int] = []
    b = static_size
    for t in templates:
        bases.append(b)
        b += processes[t].size
    return StateLayout(
        system, hidden_count, dynamic, layout_slot, last_slot, globals_, channels,
        channel_ids, static_size, processes, process_index, tuple(templates), tuple(bases),
        exclusive_slot, claim_slot,
    )
