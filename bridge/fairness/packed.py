"""System states interned to dense ids and kept packed into bytes (DESIGN.md section 7).

The product stores each system state once, as one ``bytes`` object: the state vector
(a tuple of small ints, ``semantics/state.py``) packed with the narrowest width that
holds every slot of it, followed by one tag byte naming the width:

====  ======================================  =================================
tag   body                                    used when (first that applies)
====  ======================================  =================================
0     one unsigned byte per slot (``bytes``)   every slot in 0..255
5     one signed byte per slot (``'b'``)       every slot in -128..127
1     two bytes per slot (``'h'``)             every slot in -2**15..2**15-1
2     four bytes per slot (``'i'``)            every slot fits 32 bits
3     eight bytes per slot (``'q'``)           every slot fits 64 bits
4     ``marshal`` (version 2) of the tuple     anything else (non-int slots)
====  ======================================  =================================

The choice depends on the state alone, so a state has exactly one packing and packed
states compare (and hash) as the states do. Most models need tag 0 or 5 (control
locations, booleans, small counters, and the -1 that marks "none"): a state of ``n``
slots costs ``n + 1`` bytes plus the ``bytes`` header, instead of a tuple of ``n``
pointers. ``pack_state`` tries ``bytes(state)`` first; ``pack_state_signed`` computes
the same packing faster when most states have a negative slot. A C
port keeps fixed-width records of the layout's widths instead (``StateLayout``); the
packing here is the Python counterpart, chosen because ``array(code, tuple)`` runs at C
speed.
"""

from __future__ import annotations

import marshal
from array import array
from collections.abc import Callable, Iterator

from bridge.semantics.successors import StateVector

_WIDE = (("b", b"\x05"), ("h", b"\x01"), ("i", b"\x02"), ("q", b"\x03"))
_CODES = {5: "b", 1: "h", 2: "i", 3: "q"}


def pack_state(state: StateVector) -> bytes:
    """Return the packed form of ``state`` (see the module docstring)."""
    try:
        return bytes(state) + b"\x00"
    except (ValueError, TypeError):
        return _pack_wide(state)


def pack_state_signed(state: StateVector) -> bytes:
    """Return ``pack_state(state)``, trying the signed bytes first."""
    try:
        body = array("b", state).tobytes()
    except (OverflowError, TypeError):
        return _pack_wide(state)
    return body + (b"\x05" if min(state) < 0 else b"\x00")


def _pack_wide(state: StateVector) -> bytes:
    try:
        return bytes(state) + b"\x00"
    except (ValueError, TypeError):
        pass
    for code, tag in _WIDE:
        try:
            return array(code, state).tobytes() + tag
        except OverflowError:
            continue
        except TypeError:
            break
    # version 2: no references to objects met before, whose use depends on reference
    # counts (marshal 3+ flags an object shared elsewhere), so two equal states holding
    # library values (tuples) would pack differently and count twice
    return marshal.dumps(tuple(state), 2) + b"\x04"


def unpack_state(data: bytes) -> StateVector:
    """Return the state vector packed in ``data`` (inverse of ``pack_state``)."""
    tag = data[-1]
    if tag == 0:
        return tuple(data[:-1])
    body = memoryview(data)[:-1]
    if tag == 4:
        return marshal.loads(body)  # type: ignore[no-any-return]
    return tuple(body.cast(_CODES[tag]))


class PackedStates:
    """System states interned to dense ids ``0, 1, ...``, each stored packed.

    ``key_of``: the visited key of a state (CSP# hidden variables dropped,
    ``CompiledStateSpace.state_key``); states with equal keys get one id, and the
    first one met is the one kept (as in PAT). ``index`` maps a packed key to its id;
    ``packed[i]`` is state ``i`` packed (the same object as its key when the state is
    its own key). ``states[i]`` unpacks. ``pack`` is ``pack_state`` until states with
    a negative slot turn out to be common, then ``pack_state_signed``.
    """

    __slots__ = ("index", "packed", "key_of", "pack", "_signed")

    def __init__(self, key_of: Callable[[StateVector], StateVector] | None = None) -> None:
        self.index: dict[bytes, int] = {}
        self.packed: list[bytes] = []
        self.key_of = key_of
        self.pack: Callable[[StateVector], bytes] = pack_state
        self._signed = 0

    def find(self, state: StateVector) -> int | None:
        """Return the id of ``state`` (by its key), or None if it is not interned."""
        key = state if self.key_of is None else self.key_of(state)
        return self.index.get(self.pack(key))

    def add(self, state: StateVector, key: bytes | None = None) -> int:
        """Return the id of ``state``, interning it if it is new; ``key``: its packed
        key, when the caller has it already."""
        if key is None:
            key = self.pack(state if self.key_of is None else self.key_of(state))
        s = self.index.get(key)
        if s is None:
            s = len(self.packed)
            self.index[key] = s
            data = key if self.key_of is None else self.pack(state)
            self.packed.append(data)
            if data[-1] == 5 and self.pack is pack_state:
                self._signed += 1
                if self._signed >= 64:
                    self.pack = pack_state_signed
        return s

    def __getitem__(self, s: int) -> StateVector:
        return unpack_state(self.packed[s])

    def __len__(self) -> int:
        return len(self.packed)

    def __iter__(self) -> Iterator[StateVector]:
        for data in self.packed:
            yield unpack_state(data)
