"""The packed state vector of the compiled engine: byte widths per slot (issue 12).

The C engine keeps the slot order of the Python engine's layout (``semantics/state.py``)
and packs every slot into the narrowest C integer that holds every value its type
allows, the way SPIN's pan and LTSmin's SpinS pack ``byte``/``short`` fields:

* a static system (CSP#, hand-built IR without ``Run``) is exactly the Python tuple,
  slot by slot;
* a dynamic system (Promela, any ``Run``) replaces the Python *layout id* slot (an
  interned index into a run-time table, meaningless outside one Python process) by the
  number of live instances, and starts every instance segment with its template index.
  The Python layout id is a function of the templates and of the instance segments, so
  two C vectors are equal exactly when the Python tuples are (the state counts agree).

``canonical`` turns a Python state into that list of ints, ``pack``/``unpack`` turn it
into bytes and back; the driver uses them to hand the initial state to C and to match
C states against the Python semantics when a trace is replayed.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bridge.ir import (
    ArrayType,
    BoolType,
    ChanType,
    EnumType,
    IntType,
    ObjectType,
    Overflow,
    Type,
)
from bridge.semantics.state import StateLayout
from bridge.semantics.successors import StateVector


@dataclass(frozen=True, slots=True)
class Kind:
    """A C storage type: its name in the generated code, width in bytes, value range."""

    name: str
    width: int
    lo: int
    hi: int
    code: str  # struct format character


U8 = Kind("u8", 1, 0, 255, "B")
I8 = Kind("i8", 1, -128, 127, "b")
U16 = Kind("u16", 2, 0, 65535, "H")
I16 = Kind("i16", 2, -32768, 32767, "h")
U32 = Kind("u32", 4, 0, 2**32 - 1, "I")
I32 = Kind("i32", 4, -(2**31), 2**31 - 1, "i")
KINDS = (U8, I8, U16, I16, I32, U32)


LIBRARY_ID_MAX = 2**31 - 1
"""The largest id of a library value (``templates/c/library.c``; id 0 is the empty value)."""

MIX_LIB = -(2**31)
MIX_TOP = -(2**30)
"""A slot of an int variable that may hold a library value (``gen_library.
mixed_variables``) holds library value ``id`` as ``MIX_LIB + id``, below ``MIX_TOP``,
and ints from ``MIX_TOP`` up (``templates/c/library.c``: ``mix_lib``, ``mix_int``)."""


def mixed_value(v: int, library: Any) -> Any:
    """Return the Python value of a mixed slot's ``v``: an int, or ``library(id)``."""
    return library(v - MIX_LIB) if v < MIX_TOP else v


def kind_for_range(lo: int, hi: int) -> Kind | None:
    """Return the narrowest kind holding ``lo..hi``, or None if none does."""
    for k in KINDS:
        if k.lo <= lo and hi <= k.hi:
            return k
    return None


def _element(t: Type) -> Type:
    while isinstance(t, ArrayType):
        t = t.element
    return t


def value_range(t: Type) -> tuple[int, int] | None:
    """Return the values a variable of type ``t`` can hold when every store obeys the
    type, or None when the type bounds nothing (CSP# plain ``var``)."""
    t = _element(t)
    if isinstance(t, BoolType):
        return (0, 1)
    if isinstance(t, IntType):
        if t.overflow in (Overflow.WRAP, Overflow.ERROR) and t.lo is not None and t.hi is not None:
            return (t.lo, t.hi)
        return None
    if isinstance(t, EnumType):
        # Enum-typed variables take any int the model assigns (no range check): only
        # the declared values are certain, so the kind is checked on every store.
        return None
    if isinstance(t, ChanType):
        return None
    if isinstance(t, ObjectType):
        return (0, LIBRARY_ID_MAX)  # the id of a value interned by templates/c/library.c
    return None


def kind_of_type(t: Type) -> tuple[Kind, bool]:
    """Return ``(kind, exact)``: the storage of a variable of type ``t``, and whether
    every value a store can produce fits (False: stores are checked, and a value that
    leaves the kind makes the search fall back to the Python engine)."""
    r = value_range(t)
    if r is not None:
        k = kind_for_range(*r)
        if k is not None:
            return k, True
    return I32, False


@dataclass(slots=True)
class Segment:
    """The packed layout of one process template's segment: ``kinds[i]`` is the storage
    of the segment's slot ``i`` (slot 0 is the location), ``offsets[i]`` its byte offset
    relative to the segment's first byte (after the template byte when dynamic)."""

    kinds: list[Kind]
    offsets: list[int]
    size: int  # bytes, template byte included when dynamic
    head: int  # 1 when the segment starts with its template byte, else 0


@dataclass(slots=True)
class PackedLayout:
    """The packed static part and one ``Segment`` per process template."""

    layout: StateLayout
    dynamic: bool
    static_kinds: list[Kind]
    static_offsets: list[int]
    static_bytes: int
    hidden_bytes: int
    segments: list[Segment]
    # Python's initial templates (static systems: fixed bases)
    static_bases: tuple[int, ...] = ()
    # the slots (positions in the canonical list) of a library class: the C vector
    # holds an id of templates/c/library.c there, the Python state the value's tuple
    library_slots: tuple[int, ...] = ()
    # the slots of int variables that may hold a library value (``MIX_LIB``)
    mixed_slots: tuple[int, ...] = ()
    # per template, the library and mixed slots of its segment (slot indexes relative to
    # the segment's location slot): a dynamic layout's segments move, so ``value_slots``
    # finds them per state
    segment_library: tuple[tuple[int, ...], ...] = ()
    segment_mixed: tuple[tuple[int, ...], ...] = ()

    @property
    def has_library(self) -> bool:
        """True when some slot holds a library id (the generator types values then)."""
        return bool(self.library_slots or any(self.segment_library))

    def value_slots(self, values: Sequence[Any]) -> tuple[list[int], list[int]]:
        """Return (library slots, mixed slots) of canonical list ``values``: the fixed
        ones, and in a dynamic layout those of each live instance's segment."""
        lib, mix = list(self.library_slots), list(self.mixed_slots)
        if self.dynamic and (any(self.segment_library) or any(self.segment_mixed)):
            pos = len(self.static_kinds)
            for _ in range(values[self.layout.layout_slot]):
                tpl = values[pos]
                lib += [pos + 1 + j for j in self.segment_library[tpl]]
                mix += [pos + 1 + j for j in self.segment_mixed[tpl]]
                pos += 1 + len(self.segments[tpl].kinds)
        return lib, mix

    def canonical(self, space, state: StateVector) -> list[int]:
        """Return the C engine's int list of a Python state (see the module doc)."""
        lay = self.layout
        if not self.dynamic:
            return list(state)
        rl = space.layout_of(state)
        out = list(state[: lay.static_size])
        out[lay.layout_slot] = rl.n
        for tpl, b in zip(rl.templates, rl.bases, strict=True):
            out.append(tpl)
            out.extend(state[b: b + lay.processes[tpl].size])
        return out

    def pack(self, values: Sequence[Any]) -> bytes:
        """Return the bytes of a canonical int list (ValueError if a value does not
        fit its slot). A library slot may hold the empty value ``()``, id 0 in every
        table; another library value has no id before a search interns it."""
        lib, mix = self.value_slots(values)
        if lib or mix:
            values = list(values)
            for i in lib:
                if values[i] != ():
                    raise ValueError(f"the library value {values[i]!r} has no id yet")
                values[i] = 0
            for i in mix:
                if values[i] == () and isinstance(values[i], tuple):
                    values[i] = MIX_LIB
                elif isinstance(values[i], tuple) or values[i] < MIX_TOP:
                    raise ValueError(f"the value {values[i]!r} has no place in a slot that "
                                     "may hold a library value")
        fmt, _ = self._format(values)
        try:
            return struct.pack(fmt, *values)
        except struct.error as error:
            raise ValueError(str(error)) from None

    def unpack(self, data: bytes) -> list[int]:
        """Return the canonical int list of packed bytes."""
        lay = self.layout
        fmt = "<" + "".join(k.code for k in self.static_kinds)
        values = list(struct.unpack_from(fmt, data, 0))
        pos = self.static_bytes
        if not self.dynamic:
            for tpl in lay.initial_templates:
                seg = self.segments[tpl]
                values.extend(struct.unpack_from("<" + "".join(k.code for k in seg.kinds), data,
                                                 pos))
                pos += seg.size
            return values
        for _ in range(values[lay.layout_slot]):
            tpl = data[pos]
            seg = self.segments[tpl]
            values.append(tpl)
            values.extend(struct.unpack_from("<" + "".join(k.code for k in seg.kinds), data,
                                             pos + 1))
            pos += seg.size
        return values

    def slot_table(self) -> list[tuple[int, Kind]]:
        """Return ``(byte offset, kind)`` of every slot of a static layout's vector, in
        slot order (the Python tuple's); ValueError for a dynamic layout."""
        if self.dynamic:
            raise ValueError("a dynamic layout has no fixed slots")
        table = list(zip(self.static_offsets, self.static_kinds, strict=True))
        pos = self.static_bytes
        for tpl in self.layout.initial_templates:
            seg = self.segments[tpl]
            table.extend((pos + off, k) for off, k in zip(seg.offsets, seg.kinds, strict=True))
            pos += seg.size
        return table

    def _format(self, values: Sequence[int]) -> tuple[str, int]:
        parts = ["<"] + [k.code for k in self.static_kinds]
        size = self.static_bytes
        if self.dynamic:
            pos = len(self.static_kinds)
            for _ in range(values[self.layout.layout_slot]):
                seg = self.segments[values[pos]]
                parts.append("B")
                parts.extend(k.code for k in seg.kinds)
                pos += 1 + len(seg.kinds)
                size += seg.size
        else:
            for tpl in self.layout.initial_templates:
                seg = self.segments[tpl]
                parts.extend(k.code for k in seg.kinds)
                size += seg.size
        return "".join(parts), size


def _slot_kinds_of_variable(t: Type) -> list[Kind]:
    k, _ = kind_of_type(t)
    n = 1
    while isinstance(t, ArrayType):
        n *= t.length
        t = t.element
    return [k] * n


def _channel_kinds(capacity: int, fields: Sequence[Type]) -> list[Kind]:
    length = kind_for_range(0, capacity) or I32
    per = [kind_of_type(f)[0] for f in fields]
    return [length] + per * capacity


def location_kind(max_location: int) -> Kind:
    """Return the kind of a location slot."""
    return kind_for_range(0, max(0, max_location)) or I32


def pack_layout(layout: StateLayout, mixed: frozenset[tuple[str, str]] = frozenset()
                ) -> PackedLayout:
    """Return the packed layout of a Python state layout; ``mixed`` names the int
    variables that may hold a library value (``gen_library.mixed_variables``)."""
    system = layout.system
    kinds: list[Kind | None] = [None] * layout.static_size
    for v in system.globals:
        slot = layout.globals[v.name]
        for j, k in enumerate(_slot_kinds_of_variable(v.type)):
            kinds[slot.offset + j] = k
    if layout.layout_slot is not None:
        kinds[layout.layout_slot] = U8  # the number of live instances (at most 255)
    if layout.last_slot is not None:
        kinds[layout.last_slot] = U8
    if layout.exclusive_slot is not None:
        kinds[layout.exclusive_slot] = I16
    if layout.claim_slot is not None:
        # xr/xs claims: the claimant's pid + 1 per global channel and kind
        for j in range(2 * len(system.channels)):
            kinds[layout.claim_slot + j] = U16
    for c in layout.channels:
        if c.capacity > 0:
            for j, k in enumerate(_channel_kinds(c.capacity, c.channel.fields)):
                kinds[c.offset + j] = k
    assert all(k is not None for k in kinds), "a static slot without a kind"
    static_kinds = [k for k in kinds if k is not None]
    static_offsets, pos = [], 0
    for k in static_kinds:
        static_offsets.append(pos)
        pos += k.width
    static_bytes = pos
    hidden_bytes = sum(k.width for k in static_kinds[: layout.hidden_count])
    library: list[int] = [slot.offset + j for v in system.globals if _is_library(v.type)
                          for slot in [layout.globals[v.name]] for j in range(slot.size)]
    segments: list[Segment] = []
    head = 1 if layout.dynamic else 0
    for p in layout.processes:
        skinds: list[Kind | None] = [None] * p.size
        skinds[0] = location_kind(max((loc.id for loc in p.process.locations), default=0))
        for v in p.process.locals:
            slot = p.locals[v.name]
            for j, k in enumerate(_slot_kinds_of_variable(v.type)):
                skinds[slot.offset + j] = k
        for _name, slot in p.locals.items():
            if skinds[slot.offset] is None:  # a parameter without a declaration
                skinds[slot.offset] = I32
        for c in p.channels:
            skinds[c.offset - 1] = I16  # the channel id
            if c.capacity > 0:
                for j, k in enumerate(_channel_kinds(c.capacity, c.channel.fields)):
                    skinds[c.offset + j] = k
        if p.priority_offset is not None:
            skinds[p.priority_offset] = U8  # pan's 8-bit priority field
        assert all(k is not None for k in skinds), "a segment slot without a kind"
        seg_kinds = [k for k in skinds if k is not None]
        offsets, pos = [], head
        for k in seg_kinds:
            offsets.append(pos)
            pos += k.width
        segments.append(Segment(seg_kinds, offsets, pos, head))
    mix: list[int] = [slot.offset + j for name, slot in layout.globals.items()
                      if ("global", name) in mixed for j in range(slot.size)]
    mix += [c.offset + 1 + j for c in layout.channels
            if ("channel", c.name) in mixed and c.capacity > 0
            for j in range(c.capacity * len(c.channel.fields))]
    seg_lib = tuple(tuple(p.locals[v.name].offset + j for v in p.process.locals
                          if _is_library(v.type) for j in range(p.locals[v.name].size))
                    for p in layout.processes)
    seg_mix = tuple(tuple(sorted([slot.offset + j for name, slot in p.locals.items()
                                  if ("local", name) in mixed for j in range(slot.size)]
                                 + [c.offset + 1 + j for c in p.channels
                                    if ("channel", c.name) in mixed and c.capacity > 0
                                    for j in range(c.capacity * len(c.channel.fields))]))
                    for p in layout.processes)
    if not layout.dynamic:  # a dynamic layout's segments move: value_slots finds them
        for tpl, base in zip(layout.initial_templates, layout.initial_bases, strict=True):
            p = layout.processes[tpl]
            library += [base + p.locals[v.name].offset + j for v in p.process.locals
                        if _is_library(v.type) for j in range(p.locals[v.name].size)]
            mix += [base + slot.offset + j for name, slot in p.locals.items()
                    if ("local", name) in mixed for j in range(slot.size)]
            mix += [base + c.offset + 1 + j for c in p.channels
                    if ("channel", c.name) in mixed and c.capacity > 0
                    for j in range(c.capacity * len(c.channel.fields))]
    return PackedLayout(layout, layout.dynamic, static_kinds, static_offsets, static_bytes,
                        hidden_bytes, segments, layout.initial_bases, tuple(sorted(library)),
                        tuple(sorted(mix)), seg_lib, seg_mix)


def _is_library(t: Type) -> bool:
    """Return True when a variable of type ``t`` holds values of a library class."""
    return isinstance(_element(t), ObjectType)
