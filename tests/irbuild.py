"""Tiny builders for IR systems written by hand in tests (no front-end needed).

Every room's tests may use these; keep them small and obvious. Typical use::

    from tests.irbuild import C, G, L, add, assign, counter, edge, process, system

    p = counter("Count", "x", modulus=3)             # x = (x + 1) mod 3, forever
    ts = system([p], globals_=[int_var("x")])

``system`` builds a ``TransitionSystem`` with one instance per listed process unless
``instances`` is given, interleaved unless ``composition`` is given.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from bridge.ir import (
    UNBOUNDED,
    ArrayType,
    Assign,
    Binary,
    BoolType,
    Channel,
    Composition,
    Const,
    Edge,
    Event,
    Expr,
    Index,
    Instance,
    InstanceRef,
    Interleave,
    IntType,
    Location,
    Overflow,
    Parallel,
    Process,
    Property,
    PropertyKind,
    Proposition,
    SourceLanguage,
    Stmt,
    TransitionSystem,
    Type,
    Unary,
    Var,
    Variable,
)

# ---------------------------------------------------------------------------------
# Expressions


def C(value: int | bool) -> Const:
    """Return a constant."""
    return Const(value)


def G(name: str) -> Var:
    """Return a reference to global variable ``name``."""
    return Var(name, "global")


def L(name: str) -> Var:
    """Return a reference to a local variable of the running instance."""
    return Var(name, "local")


def ix(base: Expr | str, index: Expr | int) -> Index:
    """Return ``base[index]`` (a string base is a global name, an int index a const)."""
    if isinstance(base, str):
        base = G(base)
    if isinstance(index, int):
        index = Const(index)
    return Index(base, index)


def _e(x: Expr | int | bool) -> Expr:
    return Const(x) if isinstance(x, (int, bool)) else x


def op(symbol: str, left: Expr | int, right: Expr | int) -> Binary:
    """Return the binary expression ``left symbol right``."""
    return Binary(symbol, _e(left), _e(right))


def add(left: Expr | int, right: Expr | int) -> Binary:
    return op("+", left, right)


def eq(left: Expr | int, right: Expr | int) -> Binary:
    return op("==", left, right)


def lt(left: Expr | int, right: Expr | int) -> Binary:
    return op("<", left, right)


def neg(operand: Expr) -> Unary:
    return Unary("!", operand)


# ---------------------------------------------------------------------------------
# Statements and declarations


def assign(target: Expr | str, value: Expr | int | bool) -> Assign:
    """Return ``target = value`` (a string target is a global name)."""
    if isinstance(target, str):
        target = G(target)
    return Assign(target, _e(value))


def int_var(
    name: str,
    init: int | Sequence[int] | None = None,
    lo: int | None = None,
    hi: int | None = None,
    overflow: Overflow = Overflow.NONE,
    length: int | None = None,
    hidden: bool = False,
) -> Variable:
    """Return an int variable, an array of ``length`` ints when ``length`` is given.

    ``init`` may be one int (every cell) or one int per cell.
    """
    t: Type = IntType(lo, hi, overflow, "int") if (lo, hi) != (None, None) else UNBOUNDED
    if overflow is not Overflow.NONE and (lo, hi) == (None, None):
        raise ValueError("a bounded overflow policy needs lo and hi")
    initial: Expr | tuple[Expr, ...] | None = None
    if length is not None:
        t = ArrayType(t, length)
        if isinstance(init, int):
            initial = tuple(Const(init) for _ in range(length))
        elif init is not None:
            initial = tuple(Const(v) for v in init)
    elif init is not None:
        assert isinstance(init, int)
        initial = Const(init)
    return Variable(name, t, initial, hidden)


def typed_var(name: str, t: Type, init: int | None = None, hidden: bool = False) -> Variable:
    """Return a variable of type ``t``."""
    return Variable(name, t, None if init is None else Const(init), hidden)


def bool_var(name: str, init: bool = False) -> Variable:
    return Variable(name, BoolType(), Const(init))


def ev(base: str, *components: Expr | int) -> Event:
    """Return the event ``base.c1.c2``."""
    return Event(base, tuple(_e(c) for c in components))


def edge(
    source: int,
    target: int,
    guard: Expr | None = None,
    effect: Iterable[Stmt] = (),
    event: Event | str | None = None,
    comm=None,
    text: str = "",
    label: str | None = None,
    data_operation: bool | None = None,
) -> Edge:
    """Return an edge; a string ``event`` is an event without components.

    ``data_operation`` (CSP# ``e{...}``, never a barrier) defaults to True exactly when
    the edge has both an event and an effect.
    """
    if isinstance(event, str):
        event = Event(event)
    effect = tuple(effect)
    if data_operation is None:
        data_operation = event is not None and bool(effect)
    return Edge(
        source, target, guard, comm, effect, event, label, None, text or _describe(event),
        None, data_operation,
    )


def _describe(event: Event | None) -> str:
    return event.base if event is not None else ""


def process(
    name: str,
    edges: Sequence[Edge],
    n_locations: int | None = None,
    locals_: Sequence[Variable] = (),
    parameters: Sequence[str] = (),
    atomic: Iterable[int] = (),
    end: Iterable[int] = (),
    terminal: Iterable[int] = (),
    labels: dict[int, tuple[str, ...]] | None = None,
    channels: Sequence[Channel] = (),
    initial: int = 0,
) -> Process:
    """Return a process with locations ``0..n_locations-1`` (default: as many as the
    edges mention); ``atomic``/``end``/``terminal`` list location ids with that flag."""
    if n_locations is None:
        n_locations = 1 + max([initial] + [max(e.source, e.target) for e in edges])
    atomic, end, terminal = set(atomic), set(end), set(terminal)
    labels = labels or {}
    locations = tuple(
        Location(i, labels.get(i, ()), i in atomic, i in end or i in terminal, i in terminal)
        for i in range(n_locations)
    )
    return Process(
        name, tuple(parameters), tuple(locals_), locations, tuple(edges), initial,
        tuple(channels),
    )


def counter(name: str, var: str, modulus: int, event: str | None = None) -> Process:
    """Return a one-location process that forever does ``var = (var + 1) mod modulus``
    on global ``var`` (with the event ``event`` if given, else tau)."""
    step = assign(var, op("mod", add(G(var), 1), modulus))
    return process(name, [edge(0, 0, effect=[step], event=event, text=f"{var}++")])


def system(
    processes: Sequence[Process],
    globals_: Sequence[Variable] = (),
    channels: Sequence[Channel] = (),
    instances: Sequence[Instance] | None = None,
    composition: Composition | None = None,
    language: SourceLanguage = SourceLanguage.IR,
    propositions: Sequence[Proposition] = (),
    properties: Sequence[Property] = (),
    name: str = "test",
) -> TransitionSystem:
    """Return a system; default instances: one per process, named after it."""
    if instances is None:
        instances = [Instance(p.name, (), p.name) for p in processes]
    return TransitionSystem(
        name, language, tuple(globals_), tuple(channels), tuple(processes),
        tuple(instances), composition, tuple(propositions), tuple(properties),
    )


def interleave(*instance_ids: int) -> Interleave:
    return Interleave(tuple(InstanceRef(i) for i in instance_ids))


def parallel(children: Sequence[Composition | int], alphabets: Sequence[Iterable[str]]) -> Parallel:
    """Return an alphabetised parallel (ints are instance ids)."""
    kids = tuple(InstanceRef(c) if isinstance(c, int) else c for c in children)
    return Parallel(kids, tuple(frozenset(a) for a in alphabets))


def prop(kind: PropertyKind, condition: Expr | None = None, name: str = "p", **kw) -> Property:
    """Return a property of ``kind``."""
    return Property(name, kind, name, condition=condition, **kw)


def replace_nodes(node: Any, edit: Callable[[Any], Any]) -> Any:
    """Return ``node`` (an IR tree: dataclasses and tuples of them) with every node for
    which ``edit`` returns something other than None replaced by that (its children
    not visited), the rest rebuilt around the replacements: an edit of a front-end's
    IR into what the front-end would refuse (``s.Add(n == 0)``)."""
    new = edit(node)
    if new is not None:
        return new
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return dataclasses.replace(node, **{
            f.name: replace_nodes(getattr(node, f.name), edit)
            for f in dataclasses.fields(node) if f.init})
    if isinstance(node, tuple):
        return tuple(replace_nodes(x, edit) for x in node)
    return node
