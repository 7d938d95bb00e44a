"""Value types of the IR (DESIGN.md section 2): bounded ints, bools, enums, arrays, chans,
objects of PAT's library classes.

Data only. How a value behaves when it leaves its range is a named policy
(``Overflow``), never folklore: Promela's ``byte`` wraps modulo 256 when stored,
a CSP# ``var x : {0..3}`` makes leaving the range a model error, a CSP# plain ``var``
is an unbounded (C# 32-bit in PAT) integer.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Overflow(enum.Enum):
    """What storing an out-of-range value into a variable does."""

    WRAP = "wrap"  # Promela: truncate to the type's width (two's complement if signed)
    ERROR = "error"  # CSP# ranged var: a model runtime error
    NONE = "none"  # no bound is enforced (CSP# plain var)


@dataclass(frozen=True, slots=True)
class IntType:
    """An integer type; ``lo``/``hi`` inclusive, ``None`` for an open side.

    ``name`` is the source spelling (``byte``, ``short``, ``int``, ``unsigned``, ``bit``,
    ``var``) so printers and back-ends can write it back.
    """

    lo: int | None = None
    hi: int | None = None
    overflow: Overflow = Overflow.NONE
    name: str = "int"


@dataclass(frozen=True, slots=True)
class BoolType:
    """A boolean; stored as 0/1 in the state vector."""

    name: str = "bool"


@dataclass(frozen=True, slots=True)
class EnumType:
    """A named finite set of symbolic constants (Promela mtype, CSP# enum).

    Values are stored as ints; ``members[i]`` has value ``values[i]`` (mtype starts at 1,
    CSP# enum at 0).
    """

    name: str
    members: tuple[str, ...]
    values: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ChanType:
    """A variable that holds a channel identifier (Promela ``chan``); 0 = none."""

    name: str = "chan"


@dataclass(frozen=True, slots=True)
class ObjectType:
    """A value of a library class that PAT ships (CSP# ``var<Set> s;``): ``library`` is
    the class (``Set``, ``Queue``, ``Stack``, ``List``, ``HashTable``; ``ir/library.py``
    lists its operations). The value is immutable and compared by contents (a set by its
    elements, a queue by its sequence), so it occupies one state-vector slot and states
    stay comparable; operations that change it are assignments of a new value."""

    library: str


@dataclass(frozen=True, slots=True)
class ArrayType:
    """A fixed-length array; multi-dimensional arrays are arrays of arrays."""

    element: Type
    length: int


Type = IntType | BoolType | EnumType | ChanType | ObjectType | ArrayType


# Promela's basic types, shared by the front-end and the back-ends.
BIT = IntType(0, 1, Overflow.WRAP, "bit")
BOOL = BoolType()
BYTE = IntType(0, 255, Overflow.WRAP, "byte")
SHORT = IntType(-(2**15), 2**15 - 1, Overflow.WRAP, "short")
INT = IntType(-(2**31), 2**31 - 1, Overflow.WRAP, "int")
PID = IntType(0, 255, Overflow.WRAP, "pid")
UNBOUNDED = IntType(None, None, Overflow.NONE, "var")


def unsigned(bits: int) -> IntType:
    """Return Promela's ``unsigned name : bits`` type."""
    return IntType(0, 2**bits - 1, Overflow.WRAP, f"unsigned:{bits}")


def scalar_count(t: Type) -> int:
    """Return how many state-vector slots a value of type ``t`` occupies."""
    if isinstance(t, ArrayType):
        return t.length * scalar_count(t.element)
    return 1
