"""Value ranges of global variables, by a flow-insensitive interval analysis of the IR.

``global_ranges(system)`` returns, per global variable (every cell of an array shares
one range), an interval ``(lo, hi)`` that contains every value the variable can hold in
any reachable state, or None when the analysis cannot bound it. The interval is the
least fixed point of: the declared initial values, joined with the interval of every
right-hand side assigned to the variable anywhere in the model (an ``If`` or ``While``
body counts whatever its condition), evaluated over the current intervals. Bounded
declared types (``bool``, ``byte``, ``IntType(lo, hi)``, enums) cap the interval. A
variable written by something the analysis does not follow (a channel receive into it,
a local variable on the right-hand side, an expression it cannot bound) gets None.

Used by symmetry detection (``symmetry.py``) to prove that an index ``c + R`` into an
array of ``n * k`` cells (``bit[u * C + color[v]]``) stays in the block ``c // k`` of one
ring position whatever ``R`` holds. Sound because it over-approximates: every value a
run can produce is covered by the fixed point (induction over the run's steps); the
iteration is widened to None after a bounded number of rounds.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bridge.ir import (
    ArrayType,
    Assign,
    Binary,
    BoolType,
    Conditional,
    Const,
    EnumType,
    Index,
    IntType,
    TransitionSystem,
    Unary,
    Var,
)
from bridge.ir.expr import Receive, RecvBind
from bridge.reductions.dependencies import _stmts

Interval = tuple[int, int]

_ROUNDS = 64


def _declared(t: Any) -> Interval | None:
    if isinstance(t, ArrayType):
        return _declared(t.element)
    if isinstance(t, BoolType):
        return (0, 1)
    if isinstance(t, EnumType):
        return (min(t.values), max(t.values)) if t.values else None
    if isinstance(t, IntType) and t.lo is not None and t.hi is not None:
        return (t.lo, t.hi)
    return None


def _join(a: Interval | None, b: Interval | None) -> Interval | None:
    if a is None or b is None:
        return None
    return (min(a[0], b[0]), max(a[1], b[1]))


def _base_name(target: Any) -> str | None:
    while isinstance(target, Index):
        target = target.base
    if isinstance(target, Var) and target.scope == "global":
        return target.name
    return None


def interval(e: Any, ranges: dict[str, Interval | None]) -> Interval | None:
    """Return an interval containing every value of ``e`` when each global lies in
    ``ranges`` (missing or None: unbounded), or None."""
    if isinstance(e, Const):
        v = int(e.value)
        return (v, v)
    if isinstance(e, Var):
        return ranges.get(e.name) if e.scope == "global" else None
    if isinstance(e, Index):
        name = _base_name(e)
        return None if name is None else ranges.get(name)
    if isinstance(e, Conditional):
        return _join(interval(e.then, ranges), interval(e.otherwise, ranges))
    if isinstance(e, Unary):
        if e.op == "!":
            return (0, 1)
        inner = interval(e.operand, ranges)
        if inner is None:
            return None
        if e.op == "-":
            return (-inner[1], -inner[0])
        if e.op == "+":
            return inner
        return None
    if isinstance(e, Binary):
        if e.op in ("==", "!=", "<", "<=", ">", ">=", "&&", "||", "and", "or", "xor", "->"):
            return (0, 1)
        a, b = interval(e.left, ranges), interval(e.right, ranges)
        if a is None or b is None:
            return None
        if e.op == "+":
            return (a[0] + b[0], a[1] + b[1])
        if e.op == "-":
            return (a[0] - b[1], a[1] - b[0])
        if e.op == "*":
            products = [x * y for x in a for y in b]
            return (min(products), max(products))
        if e.op == "%" and b[0] == b[1] and b[0] > 0 and a[0] >= 0:
            return (0, b[0] - 1) if a[1] >= b[0] else a
        return None
    return None


def _assignments(stmts: Iterable[Any]) -> Iterable[tuple[str | None, Any]]:
    """Yield ``(global name or None, right-hand side or None)`` for every write: None as
    the value when the written value is not an expression the analysis follows."""
    for s in _stmts(stmts):
        if isinstance(s, Assign):
            yield _base_name(s.target), s.value
        elif isinstance(s, Receive):
            for arg in s.args:
                if isinstance(arg, RecvBind) and arg.target is not None:
                    yield _base_name(arg.target), None


def global_ranges(system: TransitionSystem) -> dict[str, Interval | None]:
    """Return the interval of every global variable (see the module docstring)."""
    ranges: dict[str, Interval | None] = {}
    caps: dict[str, Interval | None] = {}
    for v in system.globals:
        caps[v.name] = _declared(v.type)
        inits = v.init if isinstance(v.init, tuple) else (v.init,)
        current: Interval | None = None
        first = True
        for init in inits:
            value = (0, 0) if init is None else interval(init, {})
            current = value if first else _join(current, value)
            first = False
        if isinstance(v.type, ArrayType) and isinstance(v.init, tuple) \
                and len(v.init) < v.type.length:
            current = _join(current, (0, 0))
        ranges[v.name] = current if current is not None else caps[v.name]
    writes: list[tuple[str, Any]] = []
    for p in system.processes:
        for e in p.edges:
            for name, value in _assignments(e.effect):
                if name is not None and name in ranges:
                    writes.append((name, value))
    for _round in range(_ROUNDS):
        changed = False
        for name, value in writes:
            old = ranges[name]
            if old is None:
                continue
            new = _join(old, interval(value, ranges)) if value is not None else None
            cap = caps[name]
            if new is None and cap is not None:
                new = cap
            elif new is not None and cap is not None:
                new = (max(new[0], cap[0]), min(new[1], cap[1]))
            if new != old:
                ranges[name] = new
                changed = True
        if not changed:
            return ranges
    # not stable within the rounds: only the declared types bound the values
    return dict(caps)
