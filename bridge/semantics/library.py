"""The built-in functions of ``ir/library.py``: PAT's math library and library classes.

Values of a library class are immutable Python tuples kept in one state-vector slot, so
a state with a set in it is hashable and compared by contents (value semantics): a
``Set`` is the sorted tuple of its elements (PAT's ``Set`` keeps a sorted list, so equal
sets have one ``ExpressionID``), a ``Queue`` its elements front first, a ``Stack`` bottom
first, a ``List`` in order, a ``HashTable`` its ``(key, value)`` pairs sorted by key.

An element put into a library value is stored as a variable stores it (README, "a
stored bool is an int"): a bool as the int 1 or 0 (``element``), so ``s.Get(0)`` after
``s.Add(x == 1)`` is 1 in every search and both engines name a step with it alike.

A function that cannot answer (``Dequeue`` of an empty queue, ``Get`` out of range)
raises ``LibraryError``; the generated code turns it into a model runtime error at the
call's span, as PAT's runtime exceptions end a verification.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

INT_MIN, INT_MAX = -(2**31), 2**31 - 1


class LibraryError(Exception):
    """A library call that fails at run time (message: what went wrong)."""


def _pow(a: int, b: int) -> int:
    # C#: (int)Math.Pow(a, b), a double truncated toward zero.
    if b >= 0:
        value = a**b
    elif a == 0:
        raise LibraryError("Pow(0, negative exponent) is infinite")
    elif a in (1, -1):
        value = a ** (-b)
    else:
        value = 0  # |a|^b < 1
    if not INT_MIN <= value <= INT_MAX:
        raise LibraryError(f"Pow({a}, {b}) does not fit a 32-bit integer")
    return value


def _at(seq: tuple, i: int, what: str) -> Any:
    if not 0 <= i < len(seq):
        raise LibraryError(f"{what} index {i} out of range 0..{len(seq) - 1}")
    return seq[i]


def _first(seq: tuple, what: str) -> int:
    if not seq:
        raise LibraryError(f"access an empty {what}")
    return seq[0]


def _last(seq: tuple, what: str) -> int:
    if not seq:
        raise LibraryError(f"access an empty {what}")
    return seq[-1]


def element(x: Any) -> Any:
    """Return ``x`` as a library value holds it: a bool as the int 1 or 0, an int as
    it is (``codegen.stored_value``'s rule; ``True in s`` still finds 1)."""
    return int(x) if type(x) is bool else x


# -- Set: sorted tuple of distinct ints ---------------------------------------------


def _set_add(s: tuple, x: int) -> tuple:
    x = element(x)
    i = bisect.bisect_left(s, x)
    return s if i < len(s) and s[i] == x else s[:i] + (x,) + s[i:]


def _set_remove(s: tuple, x: int) -> tuple:
    return tuple(y for y in s if y != x)


def _set_subset(s: tuple, index: int) -> tuple:
    # PAT: the elements whose positions are the 1-bits of index (lowest bit first).
    out = []
    k = 0
    while index >= 1 and k < len(s):
        if index % 2 == 1:
            out.append(s[k])
        index //= 2
        k += 1
    return tuple(out)


# -- HashTable: pairs sorted by key ---------------------------------------------------


def _table_add(h: tuple, key: int, value: int) -> tuple:
    if any(k == key for k, _ in h):
        raise LibraryError(f"key {key} is already in the hash table")
    return tuple(sorted(h + ((element(key), element(value)),)))


def _table_get(h: tuple, key: int) -> int:
    for k, v in h:
        if k == key:
            return v
    raise LibraryError(f"key {key} is not in the hash table")


def _list_insert(seq: tuple, i: int, x: int) -> tuple:
    if not 0 <= i <= len(seq):
        raise LibraryError(f"List index {i} out of range 0..{len(seq)}")
    return seq[:i] + (element(x),) + seq[i:]


def _list_remove(seq: tuple, x: int) -> tuple:
    if x in seq:
        i = seq.index(x)
        return seq[:i] + seq[i + 1:]
    return seq


def _list_remove_at(seq: tuple, i: int) -> tuple:
    _at(seq, i, "List")
    return seq[:i] + seq[i + 1:]


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "Math.Pow": _pow,
    "Math.Abs": abs,
    "Math.Max": max,
    "Math.Min": min,
    # Set
    "Set.new": lambda: (),
    "Set.Add": lambda s, x: x not in s,
    "Set.Add=": _set_add,
    "Set.Remove": lambda s, x: x in s,
    "Set.Remove=": _set_remove,
    "Set.Contains": lambda s, x: x in s,
    "Set.Count": len,
    "Set.Get": lambda s, i: _at(s, i, "Set"),
    "Set.IsOverlapping": lambda s, t: bool(set(s) & set(t)),
    "Set.IsDisjoint": lambda s, t: not set(s) & set(t),
    "Set.Union": lambda _s, a, b: tuple(sorted(set(a) | set(b))),
    "Set.Intersect": lambda _s, a, b: tuple(sorted(set(a) & set(b))),
    "Set.Substract": lambda _s, a, b: tuple(sorted(set(a) - set(b))),
    "Set.GetSubsetByIndex=": _set_subset,
    # Queue: front first
    "Queue.new": lambda: (),
    "Queue.Enqueue=": lambda q, x: q + (element(x),),
    "Queue.Dequeue": lambda q: _first(q, "queue"),
    "Queue.Dequeue=": lambda q: (_first(q, "queue"), q[1:])[1],
    "Queue.First": lambda q: _first(q, "queue"),
    "Queue.Last": lambda q: _last(q, "queue"),
    "Queue.Count": len,
    "Queue.Contains": lambda q, x: x in q,
    "Queue.Clear=": lambda q: (),
    # Stack: bottom first
    "Stack.new": lambda: (),
    "Stack.Push=": lambda st, x: st + (element(x),),
    "Stack.Pop": lambda st: _last(st, "stack"),
    "Stack.Pop=": lambda st: (_last(st, "stack"), st[:-1])[1],
    "Stack.Peek": lambda st: _last(st, "stack"),
    "Stack.Count": len,
    "Stack.Contains": lambda st, x: x in st,
    "Stack.Clear=": lambda st: (),
    # List
    "List.new": lambda: (),
    "List.Add=": lambda seq, x: seq + (element(x),),
    "List.Insert=": _list_insert,
    "List.Remove": lambda seq, x: x in seq,
    "List.Remove=": _list_remove,
    "List.RemoveAt=": _list_remove_at,
    "List.Get": lambda seq, i: _at(seq, i, "List"),
    "List.Contains": lambda seq, x: x in seq,
    "List.IndexOf": lambda seq, x: seq.index(x) if x in seq else -1,
    "List.Count": len,
    "List.Clear=": lambda seq: (),
    # HashTable: (key, value) pairs sorted by key
    "HashTable.new": lambda: (),
    "HashTable.Add=": _table_add,
    "HashTable.Remove=": lambda h, key: tuple(p for p in h if p[0] != key),
    "HashTable.ContainsKey": lambda h, key: any(k == key for k, _ in h),
    "HashTable.ContainsValue": lambda h, v: any(w == v for _, w in h),
    "HashTable.GetValue": _table_get,
    "HashTable.Count": len,
    "HashTable.Clear=": lambda h: (),
}


def show_value(value: Any) -> str:
    """Return a library value as PAT prints it: ``[1,2,3]`` (pairs as ``k:v``)."""
    parts = (f"{x[0]}:{x[1]}" if isinstance(x, tuple) else str(x) for x in value)
    return "[" + ",".join(parts) + "]"
