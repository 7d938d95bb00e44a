"""Expressions and statements of the IR: data only, frozen, each node with its span.

Names are resolved by the front-end: a ``Var`` says whether it is a global or a local of
the process that executes it. Operators are named so that the two languages'
differences are explicit: ``%`` is C's truncating remainder (Promela), ``mod`` is PAT's
non-negative modulo (cspsharp.md section 4); ``/`` truncates toward zero in both.

Statements appear in the straight-line ``effect`` of an edge. CSP# event blocks bring
``If``/``While``/``LocalVar`` into effects; an effect always runs atomically, as one step.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
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
    location carrying ``label``. ``pid`` None (``P@label``) means the running instance
    of ``proctype`` with the lowest pid (pan's ``f_pid``). False when no such instance
    runs (not started yet, or terminated): pan reads a zeroed process there. A pid
    that runs an instance of another proctype is a model error (pan would read that
    process's memory as if it were a ``proctype``)."""

    proctype: str
    pid: Expr | None
    label: str
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class RemoteVar:
    """``P[pid]:var``: a local variable of another process instance; ``pid`` None
    (``P:var``) as for ``RemoteLabel``. 0 (every element 0) when no such instance
    runs, as pan reads it; a pid running another proctype is a model error."""

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
class Enabled:
    """Promela ``enabled(pid)``: true iff the running instance with pid ``pid`` has a
    step in the current state (any of its edges can be taken, whatever the atomicity
    or priority of the others; an ``else`` edge counts, a ``timeout`` edge is read with
    ``timeout`` false; at its terminal location it can step iff it may die, i.e. it
    is the youngest; pan's ``enabled()`` ignores ``provided`` clauses and so does the
    front-end, which refuses that combination). False for a pid that is not running.
    Evaluated by an instance on its own pid it is a model error (pan: ``used:
    enabled(pid=thisproc)``)."""

    pid: Expr
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class GetPriority:
    """Promela ``get_priority(pid)`` (and ``_priority``, an instance's own priority):
    the priority (1..255) of the running instance with pid ``pid``, 0 if none runs.
    Only meaningful in a system with ``TransitionSystem.priority_scheduling``."""

    pid: Expr
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
    | RemoteLabel | RemoteVar | Builtin | Call | ElseGuard | Enabled | GetPriority
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
    enabledness; inside an effect (d_step) it must not block.

    Fewer ``args`` than the channel has fields is legal IR (SPIN accepts such a model):
    the send is enabled as usual (a free slot in a buffered channel; a rendezvous
    send is offered) and executing it is a model error, pan's ``too few parameters in
    send stmnt``, reported as soon as the send can be attempted. More ``args`` than
    fields is a front-end error (SPIN refuses the model)."""

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
    new pid (Promela ``x = run P()``), or None. ``priority``: the new instance's
    priority (Promela ``run P() priority 3``; None: 1), in a system with
    ``TransitionSystem.priority_scheduling``; a value outside 1..255 is a model error."""

    proctype: str
    args: tuple[Expr, ...]
    target: Expr | None = None
    span: Span | None = None
    priority: Expr | None = None


@dataclass(frozen=True, slots=True)
class SetPriority:
    """Promela ``set_priority(pid, value)`` (``checked``) or ``_priority = value``
    (not ``checked``): set the priority of the running instance ``pid``; nothing
    happens if no instance with that pid runs. Checked: a value outside 1..255 is a
    model error (pan: ``priority is out of range``); unchecked: the value is stored
    modulo 256 (pan's 8-bit field)."""

    pid: Expr
    value: Expr
    checked: bool = True
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Print:
    """``printf``: ignored for verification, shown by the simulator."""

    format: str
    args: tuple[Expr, ...]
    span: Span | None = None


Stmt = (
    Assign | If | While | LocalVar | AssertStmt | Send | Receive | Run | Print | SetPriority
)


def iter_statements(stmts: Iterable[Stmt]) -> Iterator[Stmt]:
    """Yield every statement of ``stmts`` and of the bodies of ``if`` and ``while``
    inside them (iteratively; each statement before those nested in it)."""
    stack: list[Stmt] = list(stmts)[::-1]
    while stack:
        st = stack.pop()
        yield st
        if isinstance(st, If):
            nested = [x for _, body in st.branches for x in body] + list(st.otherwise)
            stack += nested[::-1]
        elif isinstance(st, While):
            stack += list(st.body)[::-1]


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
        elif isinstance(node, Enabled | GetPriority):
            stack.append(node.pid)
        elif isinstance(node, Call):
            stack.extend(node.args)
