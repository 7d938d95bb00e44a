"""Read/write sets of IR edges, their conflicts and their visibility (STYLE.md section 2).

LTSmin's dependency matrix for bridge's IR: for each (process template, edge index) the
set of state components the edge reads (guard, channel operation, right-hand sides,
index expressions) and writes (assignment targets, received variables, channel
contents). Partial order reduction (``por.py``) uses them for the independence relation
(Clarke/Grumberg/Peled, Model Checking, ch. 10; paper 001 Def. 5): two edges of
*different* instances are independent when neither writes a component the other reads
or writes. The analysis is syntactic and conservative: an index that is not a constant
makes the access cover the whole array; a channel named by an expression covers every
channel; ``timeout`` reads everything.

Access items (hashable tuples):
- ``("g", name, index)`` a global cell, ``index`` None for the whole variable;
- ``("l", name)`` a local variable of the running instance;
- ``("remote-l", proctype, name)`` a local of any instance of ``proctype`` (``P[i]:x``);
- ``("pc", proctype)`` the location of any instance of ``proctype`` (``P[i]@lab``);
- ``("chan", name)`` a channel's contents, ``("chan", None)`` any channel;
- ``("procs",)`` the set of running instances (``run``, ``_nr_pr``);
- ``("procs-end",)`` written by an edge into a terminal location (read via ``procs``);
- ``("*",)`` everything (``timeout``; enabledness of the whole system).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from bridge.ir import (
    ArrayType,
    AssertStmt,
    Assign,
    Binary,
    Builtin,
    ChanPoll,
    ChanQuery,
    Conditional,
    Const,
    Edge,
    ElseGuard,
    Expr,
    If,
    Index,
    LocalVar,
    Parallel,
    Print,
    Process,
    Receive,
    RecvBind,
    RecvMatch,
    RemoteLabel,
    RemoteVar,
    Run,
    Send,
    Stmt,
    TransitionSystem,
    Unary,
    Var,
    While,
)
from bridge.ir.model import Composition, Interleave
from bridge.ir.property import (
    Ltl,
    LtlBinary,
    LtlConst,
    LtlEvent,
    LtlState,
    LtlUnary,
)

Access = tuple
EVERYTHING: Access = ("*",)
PROCS: Access = ("procs",)
PROCS_END: Access = ("procs-end",)  # an instance finishes: seen by readers of _nr_pr only
ANY_CHANNEL: Access = ("chan", None)

EdgeKey = tuple[str, int]  # (process template name, edge index)


@dataclass(frozen=True, slots=True)
class EdgeAccess:
    """What one edge touches. ``sync``: the edge can only be taken jointly with another
    instance (rendezvous channel, CSP barrier event, unknown channel)."""

    reads: frozenset[Access]
    writes: frozenset[Access]
    sync: bool = False


# ---------------------------------------------------------------------------------
# Constant folding (index expressions of specialised CSP processes: ``(0 + 1) % 3``)


def fold_constant(expr: Expr | None) -> int | None:
    """Return the value of ``expr`` if it is built from constants only, else None."""
    if expr is None:
        return None
    if isinstance(expr, Const):
        return int(expr.value)
    if isinstance(expr, Unary):
        v = fold_constant(expr.operand)
        if v is None:
            return None
        return {"-": -v, "!": int(not v), "~": ~v}.get(expr.op)
    if isinstance(expr, Binary):
        a, b = fold_constant(expr.left), fold_constant(expr.right)
        if a is None or b is None:
            return None
        return _apply_binary(expr.op, a, b)
    if isinstance(expr, Conditional):
        c = fold_constant(expr.cond)
        if c is None:
            return None
        return fold_constant(expr.then if c else expr.otherwise)
    return None


def _apply_binary(op: str, a: int, b: int) -> int | None:
    if op in ("/", "%", "mod") and b == 0:
        return None
    if op == "/":
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    if op == "%":
        r = abs(a) % abs(b)
        return r if a >= 0 else -r
    table = {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
        "mod": lambda: a % abs(b),
        "<<": lambda: a << b if 0 <= b < 64 else None, ">>": lambda: a >> b if 0 <= b < 64 else None,
        "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
        "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b)),
        "xor": lambda: int(bool(a) != bool(b)),
        "==": lambda: int(a == b), "!=": lambda: int(a != b), "<": lambda: int(a < b),
        "<=": lambda: int(a <= b), ">": lambda: int(a > b), ">=": lambda: int(a >= b),
    }
    f = table.get(op)
    return None if f is None else f()


# ---------------------------------------------------------------------------------
# Reads of expressions


class _Context:
    """Names that are channels (so ``Var("c")`` in a channel position is a channel)."""

    def __init__(self, system: TransitionSystem) -> None:
        self.channels = {c.name: c for c in system.channels}
        self.propositions = {p.name: p.expr for p in system.propositions}
        self.global_names = {v.name for v in system.globals}


def _lvalue_access(target: Expr, ctx: _Context, reads: set[Access]) -> Access:
    """Return the written access of an lvalue; index expressions go into ``reads``."""
    if isinstance(target, Var):
        if target.scope == "local":
            return ("l", target.name)
        if target.scope == "global":
            return ("g", target.name, None)
        return ("block", target.name)
    if isinstance(target, Index):
        reads.update(expr_reads(target.index, ctx))
        base = target.base
        if isinstance(base, Var):
            if base.scope == "local":
                return ("l", base.name)
            if base.scope != "global":
                return ("block", base.name)
            return ("g", base.name, fold_constant(target.index))
        # nested arrays: the whole outer variable
        return _whole(_lvalue_access(base, ctx, reads))
    if isinstance(target, RemoteVar):
        return ("remote-l", target.proctype, target.name)
    return EVERYTHING


def _whole(access: Access) -> Access:
    if access[0] == "g":
        return ("g", access[1], None)
    return access


def _channel_access(channel: Expr, ctx: _Context, reads: set[Access]) -> Access:
    if isinstance(channel, Var) and channel.name in ctx.channels:
        return ("chan", channel.name)
    if isinstance(channel, Index) and isinstance(channel.base, Var):
        reads.update(expr_reads(channel.index, ctx))
        if channel.base.name in ctx.channels:
            return ("chan", channel.base.name)
    # a chan variable (or expression): the variable is read, the channel is unknown
    reads.update(expr_reads(channel, ctx))
    return ANY_CHANNEL


def expr_reads(expr: Expr | None, ctx: _Context) -> set[Access]:
    """Return the accesses read by evaluating ``expr`` (iteratively, no recursion limit)."""
    out: set[Access] = set()
    stack: list[Expr] = [] if expr is None else [expr]
    seen_props: set[str] = set()
    while stack:
        e = stack.pop()
        if isinstance(e, Const | ElseGuard):
            continue
        if isinstance(e, Var):
            if e.scope == "global":
                if e.name in ctx.propositions and e.name not in ctx.global_names:
                    if e.name not in seen_props:
                        seen_props.add(e.name)
                        stack.append(ctx.propositions[e.name])
                elif e.name in ctx.channels:
                    out.add(("chan", e.name))
                else:
                    out.add(("g", e.name, None))
            elif e.scope == "local":
                out.add(("l", e.name))
            continue
        if isinstance(e, Index):
            stack.append(e.index)
            base = e.base
            if isinstance(base, Var) and base.scope == "global":
                if base.name in ctx.channels:
                    out.add(("chan", base.name))
                else:
                    out.add(("g", base.name, fold_constant(e.index)))
            else:
                stack.append(base)
            continue
        if isinstance(e, Unary):
            stack.append(e.operand)
        elif isinstance(e, Binary):
            stack.extend((e.left, e.right))
        elif isinstance(e, Conditional):
            stack.extend((e.cond, e.then, e.otherwise))
        elif isinstance(e, ChanQuery):
            out.add(_channel_access(e.channel, ctx, out))
        elif isinstance(e, ChanPoll):
            out.add(_channel_access(e.channel, ctx, out))
            for a in e.args:
                if isinstance(a, RecvMatch):
                    stack.append(a.value)
        elif isinstance(e, RemoteLabel):
            out.add(("pc", e.proctype))
            if e.pid is not None:
                stack.append(e.pid)
        elif isinstance(e, RemoteVar):
            out.add(("remote-l", e.proctype, e.name))
            if e.pid is not None:
                stack.append(e.pid)
        elif isinstance(e, Builtin):
            if e.name == "timeout":
                out.add(EVERYTHING)
            elif e.name in ("_nr_pr", "_last"):
                out.add(PROCS)
            # _pid, np_: fixed per instance / not a state component
        else:
            out.add(EVERYTHING)
    return out


def _stmts(stmts: Iterable[Stmt]) -> Iterator[Stmt]:
    stack = list(reversed(tuple(stmts)))
    while stack:
        s = stack.pop()
        yield s
        if isinstance(s, If):
            for _cond, body in s.branches:
                stack.extend(reversed(body))
            stack.extend(reversed(s.otherwise))
        elif isinstance(s, While):
            stack.extend(reversed(s.body))


def _stmt_accesses(stmt: Stmt, ctx: _Context, reads: set[Access], writes: set[Access]) -> None:
    if isinstance(stmt, Assign):
        reads.update(expr_reads(stmt.value, ctx))
        writes.add(_lvalue_access(stmt.target, ctx, reads))
    elif isinstance(stmt, If):
        for cond, _body in stmt.branches:
            reads.update(expr_reads(cond, ctx))
    elif isinstance(stmt, While):
        reads.update(expr_reads(stmt.cond, ctx))
    elif isinstance(stmt, LocalVar):
        if isinstance(stmt.init, tuple):
            for i in stmt.init:
                reads.update(expr_reads(i, ctx))
        else:
            reads.update(expr_reads(stmt.init, ctx))
    elif isinstance(stmt, AssertStmt):
        reads.update(expr_reads(stmt.cond, ctx))
    elif isinstance(stmt, Send):
        chan = _channel_access(stmt.channel, ctx, reads)
        reads.add(chan)
        writes.add(chan)
        for a in stmt.args:
            reads.update(expr_reads(a, ctx))
    elif isinstance(stmt, Receive):
        chan = _channel_access(stmt.channel, ctx, reads)
        reads.add(chan)
        if not stmt.peek:
            writes.add(chan)
        for a in stmt.args:
            if isinstance(a, RecvMatch):
                reads.update(expr_reads(a.value, ctx))
            elif isinstance(a, RecvBind) and a.target is not None:
                writes.add(_lvalue_access(a.target, ctx, reads))
        reads.update(expr_reads(getattr(stmt, "condition", None), ctx))
    elif isinstance(stmt, Run):
        for a in stmt.args:
            reads.update(expr_reads(a, ctx))
        writes.add(PROCS)
        if stmt.target is not None:
            writes.add(_lvalue_access(stmt.target, ctx, reads))
    elif isinstance(stmt, Print):
        for a in stmt.args:
            reads.update(expr_reads(a, ctx))
    else:  # pragma: no cover - future statement kinds
        reads.add(EVERYTHING)
        writes.add(EVERYTHING)


def _shared_events(composition: Composition | None) -> frozenset[str]:
    """Return event names in the alphabets of two or more operands of a ``Parallel``."""
    shared: set[str] = set()
    stack: list[Composition] = [] if composition is None else [composition]
    while stack:
        c = stack.pop()
        if isinstance(c, Parallel):
            seen: set[str] = set()
            for alphabet in c.alphabets:
                shared.update(seen & alphabet)
                seen |= alphabet
            stack.extend(c.children)
        elif isinstance(c, Interleave):
            stack.extend(c.children)
    return frozenset(shared)


def event_name(edge: Edge) -> str | None:
    """Return the edge's event name when every component is constant, ``base.*``
    when some component is not, or None for an internal (tau) edge."""
    if edge.event is None:
        return None
    parts = [edge.event.base]
    for c in edge.event.components:
        v = fold_constant(c)
        if v is None:
            return edge.event.base + ".*"
        parts.append(str(v))
    return ".".join(parts)


def _event_may_match(name: str | None, events: Iterable[str]) -> bool:
    if name is None:
        return False
    if name.endswith(".*"):
        base = name[:-2]
        return any(e == base or e.startswith(base + ".") for e in events)
    return name in set(events)


def analyse_edges(system: TransitionSystem) -> dict[EdgeKey, EdgeAccess]:
    """Return the read/write sets of every edge of every process template.

    Writes include ``("procs",)`` for an edge entering a terminal location (the
    instance stops). An ``else`` edge reads what its siblings' guards read. A channel
    operation on a rendezvous channel (capacity 0) or on an unknown channel, and an
    event shared by two operands of a CSP ``Parallel``, make the edge ``sync``.
    """
    ctx = _Context(system)
    shared = _shared_events(system.composition)
    result: dict[EdgeKey, EdgeAccess] = {}
    for proc in system.processes:
        local_chans = {c.name: c for c in proc.channels}
        terminal = {loc.id for loc in proc.locations if loc.terminal}
        guard_reads: list[set[Access]] = []
        for e in proc.edges:
            r: set[Access] = set()
            if e.guard is not None and not isinstance(e.guard, ElseGuard):
                r |= expr_reads(e.guard, ctx)
            if e.comm is not None:
                chan = _channel_access(e.comm.channel, ctx, r)
                r.add(chan)
                if isinstance(e.comm, Send):
                    for a in e.comm.args:
                        r |= expr_reads(a, ctx)
                else:
                    for a in e.comm.args:
                        if isinstance(a, RecvMatch):
                            r |= expr_reads(a.value, ctx)
                    # CSP# c?[cond]x: the condition decides enabledness too
                    r |= expr_reads(getattr(e.comm, "condition", None), ctx)
            guard_reads.append(r)
        for idx, e in enumerate(proc.edges):
            reads: set[Access] = set(guard_reads[idx])
            writes: set[Access] = set()
            sync = False
            if isinstance(e.guard, ElseGuard):
                for j, sib in enumerate(proc.edges):
                    if j != idx and sib.source == e.source:
                        reads |= guard_reads[j]
            if e.comm is not None:
                _stmt_accesses(e.comm, ctx, reads, writes)
                chan = _channel_access(e.comm.channel, ctx, set())
                if chan == ANY_CHANNEL:
                    name = getattr(e.comm.channel, "name", None)
                    ch = local_chans.get(name) if name else None
                    sync = ch is None or ch.capacity == 0
                else:
                    sync = ctx.channels[chan[1]].capacity == 0
            for s in _stmts(e.effect):
                _stmt_accesses(s, ctx, reads, writes)
            if e.target in terminal:
                writes.add(PROCS_END)
            name = event_name(e)
            # a CSP# data operation (e{...}) never takes part in a barrier
            if shared and not getattr(e, "data_operation", False) and _event_may_match(name, shared):
                sync = True
            result[(proc.name, idx)] = EdgeAccess(frozenset(reads), frozenset(writes), sync)
    return result


# ---------------------------------------------------------------------------------
# Conflicts


def _overlap(a: Access, b: Access) -> bool:
    if a == EVERYTHING or b == EVERYTHING:
        return True
    if {a[0], b[0]} == {"procs", "procs-end"}:
        return True
    if a[0] != b[0]:
        return False
    if a[0] == "g":
        return a[1] == b[1] and (a[2] is None or b[2] is None or a[2] == b[2])
    if a[0] == "chan":
        return a[1] is None or b[1] is None or a[1] == b[1]
    return a == b


def _touches(reads: Iterable[Access], writes: Iterable[Access]) -> bool:
    return any(_overlap(r, w) for r in reads for w in writes)


def conflicts_across_instances(
    a: EdgeAccess, a_proc: str, b: EdgeAccess, b_proc: str
) -> bool:
    """Return True if edge ``a`` of one instance and edge ``b`` of a *different*
    instance may be dependent (one writes what the other reads or writes).

    Locals of different instances are distinct; ``P[i]:x`` and ``P[i]@lab`` reach into
    any instance of ``P``, so they conflict with that template's local writes and moves.
    """
    def shared(x: EdgeAccess, x_proc: str) -> tuple[set[Access], set[Access], set[Access]]:
        reads = {r for r in x.reads if r[0] not in ("l", "block")}
        data = {w for w in x.writes if w[0] not in ("l", "block")}
        # an instance's own locals and location, as other instances may see them
        seen = data | {("remote-l", x_proc, w[1]) for w in x.writes if w[0] == "l"}
        seen.add(("pc", x_proc))
        return reads, data, seen

    ra, da, wa = shared(a, a_proc)
    rb, db, wb = shared(b, b_proc)
    # two instances finishing commute; ``run`` (pid allocation) does not
    return _touches(ra, wb) or _touches(rb, wa) or _touches(da - {PROCS_END}, db - {PROCS_END})


# ---------------------------------------------------------------------------------
# Visibility to a property


@dataclass(frozen=True, slots=True)
class Observation:
    """What an LTL formula looks at: the accesses its state atoms read, its event
    names, and whether it uses the next-time operator."""

    reads: frozenset[Access]
    events: frozenset[str]
    uses_next: bool


def observe_formula(system: TransitionSystem, formula: Ltl | None) -> Observation:
    """Return what the state and event atoms of ``formula`` read (iteratively)."""
    ctx = _Context(system)
    reads: set[Access] = set()
    events: set[str] = set()
    uses_next = False
    stack: list[Ltl] = [] if formula is None else [formula]
    while stack:
        f = stack.pop()
        if isinstance(f, LtlConst):
            continue
        if isinstance(f, LtlState):
            reads |= expr_reads(f.expr, ctx)
        elif isinstance(f, LtlEvent):
            events.add(f.name)
        elif isinstance(f, LtlUnary):
            uses_next = uses_next or f.op == "X"
            stack.append(f.operand)
        elif isinstance(f, LtlBinary):
            stack.extend((f.left, f.right))
    return Observation(frozenset(reads), frozenset(events), uses_next)


def is_visible(access: EdgeAccess, proc: str, edge: Edge, observed: Observation) -> bool:
    """Return True if taking the edge may change a state atom or match an event atom."""
    if EVERYTHING in observed.reads or EVERYTHING in access.writes:
        return True
    if ("pc", proc) in observed.reads:
        return True
    writes = set(access.writes)
    writes |= {("remote-l", proc, w[1]) for w in access.writes if w[0] == "l"}
    if _touches(observed.reads, writes):
        return True
    return bool(observed.events) and _event_may_match(event_name(edge), observed.events)


def family_arrays(system: TransitionSystem, length: int) -> frozenset[str]:
    """Return the names of one-dimensional global arrays of scalars of ``length``."""
    return frozenset(
        v.name
        for v in system.globals
        if isinstance(v.type, ArrayType)
        and v.type.length == length
        and not isinstance(v.type.element, ArrayType)
    )


def template_edges(process: Process) -> dict[int, list[int]]:
    """Return location id -> indices of the edges leaving it."""
    out: dict[int, list[int]] = {loc.id: [] for loc in process.locations}
    for i, e in enumerate(process.edges):
        out.setdefault(e.source, []).append(i)
    return out
