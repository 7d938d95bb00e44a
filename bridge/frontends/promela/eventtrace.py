"""Promela ``trace``/``notrace`` event traces, lowered to a monitor process
and instrumentation of the channel operations they watch."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from bridge.diagnostics import Span
from bridge.ir import (
    INT,
    AssertStmt,
    Assign,
    Binary,
    Const,
    Expr,
    If,
    Process,
    Receive,
    RecvArg,
    RecvBind,
    RecvMatch,
    Send,
    Stmt,
    Var,
    Variable,
    While,
)

if TYPE_CHECKING:
    from bridge.frontends.promela.lower import _Lowering


@dataclass
class EventTrace:
    """A lowered trace/notrace (``_Lowering.event_trace``) and its instrumentation."""

    event: Var
    steps: tuple[tuple[int, int, str, int, tuple[Expr | None, ...]], ...]
    end: int
    dead: int
    negated: bool
    span: Span | None
    scratch: int = 0

    def monitored(self, kind: str) -> set[int]:
        return {cid for _s, _t, k, cid, _f in self.steps if k == kind}

    def instrument(self, proc: Process, lowering: _Lowering) -> Process:
        """Return ``proc`` with a trace step after each of its sends and receives."""
        edges = []
        for edge in proc.edges:
            comm, before = edge.comm, ()
            if isinstance(comm, Send):
                before = self.step("s", comm.channel, comm.args, lowering)
            elif isinstance(comm, Receive) and not comm.peek:
                comm, values = self.bound(comm, lowering)
                before = self.step("r", comm.channel, values, lowering)
            effect = tuple(before) + self.walk(edge.effect, lowering)
            edges.append(replace(edge, comm=comm, effect=effect))
        return replace(proc, edges=tuple(edges))

    def walk(self, stmts: tuple[Stmt, ...], lowering: _Lowering) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for st in stmts:
            if isinstance(st, Send):
                out.append(st)
                out.extend(self.step("s", st.channel, st.args, lowering))
            elif isinstance(st, Receive) and not st.peek:
                st, values = self.bound(st, lowering)
                out.append(st)
                out.extend(self.step("r", st.channel, values, lowering))
            elif isinstance(st, If):
                out.append(If(tuple((g, self.walk(b, lowering)) for g, b in st.branches),
                              self.walk(st.otherwise, lowering), st.span))
            elif isinstance(st, While):
                out.append(While(st.cond, self.walk(st.body, lowering), st.span))
            else:
                out.append(st)
        return tuple(out)

    def bound(self, comm: Receive, lowering: _Lowering) -> tuple[Receive, tuple[Expr, ...]]:
        """Return the receive with ``_`` bound to hidden scratch variables (when its
        channel may be traced) and the values of the message's fields after it."""
        if not self.may_touch("r", comm.channel, lowering):
            return comm, ()
        args: list[RecvArg] = []
        values: list[Expr] = []
        for k, a in enumerate(comm.args):
            if isinstance(a, RecvMatch):
                args.append(a)
                values.append(a.value)
            elif a.target is None:
                name = f"_trace_field{k}"
                if not any(v.name == name for v in lowering.globals):
                    lowering.globals.append(Variable(name, INT, None, True, self.span))
                target = Var(name, "global", a.span)
                args.append(RecvBind(target, a.span))
                values.append(target)
            else:
                args.append(a)
                values.append(a.target)
        return replace(comm, args=tuple(args)), tuple(values)

    def may_touch(self, kind: str, chan: Expr, lowering: _Lowering) -> bool:
        cid = lowering.static_channel_id(chan)
        return bool(self.monitored(kind)) and (cid is None or cid in self.monitored(kind))

    def step(self, kind: str, chan: Expr, values: tuple[Expr, ...],
             lowering: _Lowering) -> tuple[Stmt, ...]:
        """Return the statements that move the trace on operation ``kind`` of ``chan``
        carrying ``values`` (nothing when ``chan`` is never traced for ``kind``)."""
        if not self.may_touch(kind, chan, lowering):
            return ()
        span = self.span
        cid = lowering.static_channel_id(chan)
        ids = sorted(self.monitored(kind))
        branches: list[tuple[Expr, tuple[Stmt, ...]]] = []
        for source, target, k, tid, fields in self.steps:
            if k != kind or (cid is not None and cid != tid):
                continue
            cond: Expr = Binary("==", self.event, Const(source), span)
            if cid is None:
                cond = Binary("&&", cond, Binary("==", chan, Const(tid), span), span)
            for value, want in zip(values, fields, strict=False):
                if want is not None:
                    cond = Binary("&&", cond, Binary("==", value, want, span), span)
            if any(want is not None for want in fields[len(values):]):
                continue  # compares a field the operation does not carry: no match
            body: tuple[Stmt, ...] = (Assign(self.event, Const(target), span),)
            if self.negated and target == self.end:
                body += (AssertStmt(Const(0), "event_trace error (all events matched)", span),)
            branches.append((cond, body))
        miss: tuple[Stmt, ...]
        if self.negated:
            miss = (Assign(self.event, Const(self.dead), span),)
        else:
            miss = (AssertStmt(Const(0), "event_trace error (no matching event)", span),)
        if cid is None:
            traced: Expr = Binary("==", chan, Const(ids[0]), span)
            for other in ids[1:]:
                traced = Binary("||", traced, Binary("==", chan, Const(other), span), span)
            miss = (If(((traced, miss),), (), span),)
        if not branches:
            return miss
        return (If(tuple(branches), miss, span),)


