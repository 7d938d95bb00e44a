"""Expressions and statements of the IR: data only, frozen, each node with its span.

Names are resolved by the front-end: a ``Var`` says whether it is a global or a local of
the process that executes it. Operators are named so that the two languages'
differences are explicit: ``%`` is C's truncating remainder (Promela), ``mod`` is PAT's
non-negative modulo (cspsharp.md section 4); ``/`` truncates toward zero in both.

Statements appear in the straight-line ``effect`` of an edge. CSP# event blocks bring
``If``/``While``/``LocalVar`` into effects; an effect always runs atomically, as one step.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from bridge.diagnostics import Span
from bridge.ir.types import Type

# ---------------------------------------------------------------------------------
# Expressions

BINARY_OPERATORS = frozenset(
    {
        "+", "-", "*", "/",
        "%",  # C remainder, sign of the dividend (Promela)
        "mod",  # non-negative modulo (PAT)
        "<<", ">>", "&", "|", "^",  # bitwise
        "&&", "||", "xor",  # logical (short-circuit for && and ||)
        "==", "!=", "<", "<=", ">", ">=",
    }
)
UNARY_OPERATORS = frozenset({"-", "!", "~"})


@dataclass(frozen=True, slots=True)
class Const:
    """An integer or boolean literal (enum/mtype constants are lowered to ints)."""

    value: int | bool
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Var:
    """A variable reference; ``scope`` is ``"global"`` or ``"local"`` (of the running
    process instance)."""

    name: str
    scope: str = "global"
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Index:
    """``base[index]``; ``base`` is a ``Var``, ``Index`` or ``RemoteVar`` of array type."""

    base: Expr
    index: Expr
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Unary:
    op: str
    operand: Expr
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Binary:
    op: str
    left: Expr
    right: Expr
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Conditional:
    """Promela's ``(c -> a : b)``."""

    cond: Expr
    then: Expr
    otherwise: Expr
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class ChanQuery:
    """``len(c)``, ``empty(c)``, ``nempty(c)``, ``full(c)``, ``nfull(c)``; ``channel``
    evaluates to a channel id."""

    op: str
    channel: Expr
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class ChanPoll:
    """Promela's side-effect-free receive test ``c?[args]`` / ``c??[args]`` (a bool)."""

    channel: Expr
    args: tuple[RecvArg, ...]
    random: bool = False
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class RemoteLabel:
    """``P[pid]@label``: process instance ``pid`` (of proctype ``proctype``) is at the
    location carrying ``label``. ``pid`` None means the only instance of ``proctype``."""

    proctype: str
    pid: Expr | None
    label: str
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class RemoteVar:
    """``P[pid]:var``: a local variable of another process instance."""

    proctype: str
    pid: Expr | None
    name: str
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Builtin:
    """A predefined read-only value: ``_pid``, ``_nr_pr``, ``_last``, ``timeout``,
    ``np_`` (Promela). ``timeout`` is true iff no other step of the system is enabled."""

    name: str
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Call:
    """A call of a built-in function named in ``ir/library.py`` (CSP# ``call(Pow, a, b)``
    of ``PAT.Math``, and the operations of PAT's library classes: ``Set.Contains`` reads
    a set, ``Set.Add=`` returns the set with the element added). Pure: a method that
    changes its object is lowered to an assignment of the ``=`` function's value. A
    failing call (``Queue.Dequeue`` of an empty queue) is a model runtime error."""

    function: str
    args: tuple[Expr, ...]
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class ElseGuard:
    """Promela's ``else``: true iff no other edge leaving the same location is
    executable. Only ever the whole guard of an edge."""

    span: Span | None = None


Expr = (
    Const | Var | Index | Unary | Binary | Conditional | ChanQuery | ChanPoll
    | RemoteLabel | RemoteVar | Builtin | Call | ElseGuard
)

# ---------------------------------------------------------------------------------
# Channel operation arguments


@dataclass(frozen=True, slots=True)
class RecvBind:
    """Receive into a variable (an lvalue: ``Var`` or ``Index``); ``None`` is ``_``."""

    target: Expr | None
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class RecvMatch:
    """A field that must equal the value (a constant or Promela ``eval(e)``)."""

    value: Expr
    span: Span | None = None


RecvArg = RecvBind | RecvMatch


# ---------------------------------------------------------------------------------
# Statements (inside effects)


@dataclass(frozen=True, slots=True)
class Assign:
    """``target = value``; the stored value follows the target type's ``Overflow``."""

    target: Expr
    value: Expr
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class If:
    """``if (c1) s1 else if (c2) s2 ... else s`` inside an effect (deterministic)."""

    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    otherwise: tuple[Stmt, ...] = ()
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class While:
    """A loop that runs to completion inside the step (CSP# blocks)."""

    cond: Expr
    body: tuple[Stmt, ...]
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class LocalVar:
    """A block-local variable of an effect (CSP# ``var k = 0;`` in a block); not part of
    the state. Referenced with ``Var(name, scope="block")``."""

    name: str
    type: Type
    init: Expr | tuple[Expr, ...] | None = None
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class AssertStmt:
    """Promela ``assert(e)``: a false ``e`` is an assertion violation."""

    cond: Expr
    text: str = ""
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Send:
    """``c!args`` (``sorted``: ``c!!args``). As an edge's ``comm`` it decides
    enabledness; inside an effect (d_step) it must not block."""

    channel: Expr
    args: tuple[Expr, ...]
    sorted: bool = False
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Receive:
    """``c?args``; ``random``: ``c??`` (first matching message anywhere in the buffer);
    ``peek``: ``c?<args>`` (copy without removing)."""

    channel: Expr
    args: tuple[RecvArg, ...]
    random: bool = False
    peek: bool = False
    span: Span | None = None
    # CSP# ``c?[cond]x``: the message is accepted only if ``cond`` holds, evaluated
    # with the fields already bound (bound locals hold the received values).
    condition: Expr | None = None


@dataclass(frozen=True, slots=True)
class Run:
    """Create a process instance of ``proctype`` with ``args``; ``target`` receives the
    new pid (Promela ``x = run P()``), or None."""

    proctype: str
    args: tuple[Expr, ...]
    target: Expr | None = None
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Print:
    """``printf``: ignored for verification, shown by the simulator."""

    format: str
    args: tuple[Expr, ...]
    span: Span | None = None


Stmt = Assign | If | While | LocalVar | AssertStmt | Send | Receive | Run | Print


def iter_subexpressions(e: Expr) -> Iterator[Expr]:
    """Yield ``e`` and every expression inside it, receive arguments of a poll included
    (iteratively: no recursion limit on deep expressions). A structural walk over the
    data, shared by the validator and the back-ends; it evaluates nothing."""
    stack: list[Expr] = [e]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, Index):
            stack += [node.base, node.index]
        elif isinstance(node, Unary):
            stack.append(node.operand)
        elif isinstance(node, Binary):
            stack += [node.left, node.right]
        elif isinstance(node, Conditional):
            stack += [node.cond, node.then, node.otherwise]
        elif isinstance(node, ChanQuery):
            stack.append(node.channel)
        elif isinstance(node, ChanPoll):
            stack.append(node.channel)
            for arg in node.args:
                if isinstance(arg, RecvMatch):
                    stack.append(arg.value)
                elif arg.target is not None:
                    stack.append(arg.target)
        elif isinstance(node, RemoteLabel | RemoteVar) and node.pid is not None:
            stack.append(node.pid)
        elif isinstance(node, Call):
            stack.extend(node.args)
