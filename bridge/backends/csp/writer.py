"""CSP# text of the expressions and statements of one Promela instance (``Writer``),
for the emitter (emit.py, which holds the names, the instances and the channels).

Every value is an integer (Promela booleans are 0/1); a condition is written as a CSP#
Boolean. Channel values are channel numbers, buffered channels live in the arrays
``bridge_len``/``bridge_buf`` (emit.py), and an operation that SPIN reports as a model
error sets ``bridge_failed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bridge.backends.csp.text import (
    MAX_ALTERNATIVES,
    Alts,
    array_dims,
    bool_of,
    cell_count,
    chain,
    combine,
    conj,
    disj,
    int_text,
    neg,
    paren,
    product,
    refuse,
    wrap,
    wrong_arity,
)
from bridge.backends.spin.promela_text import sanitize
from bridge.diagnostics import Span, UnsupportedError
from bridge.ir.expr import (
    AssertStmt,
    Assign,
    Binary,
    Builtin,
    ChanPoll,
    ChanQuery,
    Conditional,
    Const,
    Enabled,
    Expr,
    GetPriority,
    If,
    Index,
    LocalVar,
    Print,
    Receive,
    RecvArg,
    RecvBind,
    RecvMatch,
    RemoteLabel,
    RemoteVar,
    Run,
    Send,
    SetPriority,
    Stmt,
    Unary,
    Var,
    While,
)
from bridge.ir.types import ArrayType, Type

if TYPE_CHECKING:
    from bridge.backends.csp.emit import _Emitter

_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})
_LOGICAL = frozenset({"&&", "||", "xor"})
_BOOL_QUERIES = frozenset({"empty", "nempty", "full", "nfull"})


@dataclass(frozen=True, slots=True)
class ChanRef:
    """Cases of a channel expression: (conditions, number text, number if constant)."""

    cases: tuple[tuple[tuple[str, ...], str, int | None], ...]
    exhaustive: bool = True


class Writer:
    """CSP# text for the expressions and statements of instance ``k`` (None: global
    scope, for LTL propositions)."""

    def __init__(self, em: _Emitter, k: int | None, index: str | None = None) -> None:
        self.em = em
        self.k = k
        self.slot_index = index  # for a slot: its number in the pool as text (run's block)
        self.block_types: dict[str, Type] = {}
        self._timeout: str | None = None

    # -- names and types ----------------------------------------------------------
    def _local(self, name: str, span: Span | None) -> str:
        if self.k is None:
            raise UnsupportedError.at(span, f"local '{name}' outside its process")
        inst = self.em.insts[self.k]
        if not inst.static and name in self.em.constants.get(inst.process.name, {}):
            return int_text(self.em.constants[inst.process.name][name])
        names = self.em.local_names[self.k]
        if name not in names:
            raise UnsupportedError.at(span, f"unknown local '{name}'")
        cname, offset, _ = self.em.local_var(self.k, name, self.slot_index)
        return cname if offset is None else f"{cname}[{offset}]"

    def type_of(self, e: Expr) -> Type | None:
        if isinstance(e, Var):
            if e.scope == "global":
                return self.em.global_types.get(e.name)
            if e.scope == "block":
                return self.block_types.get(e.name)
            return self.em.local_types[self.k].get(e.name) if self.k is not None else None
        if isinstance(e, Index):
            t = self.type_of(e.base)
            return t.element if isinstance(t, ArrayType) else None
        if isinstance(e, RemoteVar):
            for inst in self.em.insts:
                if inst.process.name == e.proctype:
                    return self.em.local_types[inst.index].get(e.name)
        return None

    def is_bool(self, e: Expr) -> bool:
        if isinstance(e, Binary):
            return e.op in _COMPARISONS or e.op in _LOGICAL
        if isinstance(e, Unary):
            return e.op == "!"
        if isinstance(e, Const):
            return isinstance(e.value, bool)
        if isinstance(e, ChanQuery):
            return e.op in _BOOL_QUERIES
        if isinstance(e, Enabled):
            return True
        if isinstance(e, Builtin):
            return e.name in ("timeout", "np_")
        if isinstance(e, Conditional):
            return self.is_bool(e.then) and self.is_bool(e.otherwise)
        return isinstance(e, RemoteLabel | ChanPoll)

    # -- Boolean context ------------------------------------------------------------
    def cond(self, e: Expr, timeout: str | None = None) -> str:
        """Return ``e`` as a CSP# condition."""
        saved = self._timeout
        if timeout is not None:
            self._timeout = timeout
        try:
            return self._cond(e)
        finally:
            self._timeout = saved

    def _cond(self, e: Expr) -> str:
        if isinstance(e, Const):
            return "true" if e.value else "false"
        if isinstance(e, Unary) and e.op == "!":
            return neg(self._cond(e.operand))
        if isinstance(e, Binary):
            if e.op == "&&":
                return conj([self._cond(e.left), self._cond(e.right)])
            if e.op == "||":
                return disj([self._cond(e.left), self._cond(e.right)])
            if e.op == "xor":
                a, b = self._cond(e.left), self._cond(e.right)
                return disj([conj([a, neg(b)]), conj([neg(a), b])])
            if e.op in _COMPARISONS:
                if e.op in ("==", "!=") and self.is_bool(e.left) and self.is_bool(e.right):
                    a, b = self._cond(e.left), self._cond(e.right)
                    same = disj([conj([a, b]), conj([neg(a), neg(b)])])
                    return same if e.op == "==" else neg(same)
                return bool_of(combine([self.num(e.left), self.num(e.right)],
                                         lambda v, op=e.op: f"{v[0]} {op} {v[1]}", e.span))
        if isinstance(e, Conditional):
            c = self._cond(e.cond)
            return disj([conj([c, self._cond(e.then)]),
                          conj([neg(c), self._cond(e.otherwise)])])
        if isinstance(e, RemoteLabel):
            return self.remote_label(e)
        if isinstance(e, ChanQuery) and e.op in _BOOL_QUERIES:
            return self.chan_query(e)
        if isinstance(e, ChanPoll):
            return self.poll(e)
        if isinstance(e, Enabled):
            return self.enabled(e)
        if isinstance(e, Builtin):
            if e.name == "timeout":
                if self._timeout is None:
                    raise refuse(e.span, "'timeout' outside the guard of a statement")
                return self._timeout
            if e.name == "np_":
                return self.np()
        return bool_of(combine([self.num(e)], lambda v: f"{v[0]} != 0", getattr(e, "span", None)))

    # -- numeric context ------------------------------------------------------------
    def num(self, e: Expr) -> Alts:
        """Return the cases of ``e`` as a CSP# integer."""
        if self.is_bool(e):
            c = self._cond(e)
            if c in ("true", "false"):
                return Alts.one("1" if c == "true" else "0")
            return Alts((((c,), "1"), ((neg(c),), "0")))
        if isinstance(e, Const):
            return Alts.one(int_text(int(e.value)))
        if isinstance(e, Var):
            return Alts.one(self.var(e))
        if isinstance(e, Index):
            return self.index(e)
        if isinstance(e, Unary):
            inner = self.num(e.operand)
            if e.op == "-":
                return combine([inner], lambda v: f"(-{v[0]})", e.span)
            if e.op == "~":
                return combine([inner], lambda v: f"(-{v[0]} - 1)", e.span)
            raise refuse(e.span, f"the operator '{e.op}'")
        if isinstance(e, Binary):
            return self.arith(e)
        if isinstance(e, Conditional):
            c = self._cond(e.cond)
            a, b = self.num(e.then), self.num(e.otherwise)
            cases = tuple(((c, *conds), v) for conds, v in a.cases)
            cases += tuple(((neg(c), *conds), v) for conds, v in b.cases)
            if len(cases) > MAX_ALTERNATIVES:
                raise refuse(e.span, "an expression with this many cases")
            return Alts(cases, a.exhaustive and b.exhaustive)
        if isinstance(e, ChanQuery) and e.op == "len":
            ref = self.channel(e.channel)
            return Alts(tuple((conds, f"bridge_len[{c}]") for conds, c, _ in ref.cases),
                        ref.exhaustive)
        if isinstance(e, GetPriority):
            return self.get_priority(e)
        if isinstance(e, RemoteVar):
            return self.remote_var(e)
        if isinstance(e, Builtin):
            if e.name == "_pid":
                if self.k is None:
                    raise refuse(e.span, "'_pid' outside a process")
                return Alts.one(self.em.pid(self.k, self.slot_index))
            if e.name == "_nr_pr":
                self.em.uses["nr"] = True
                return Alts.one("bridge_nr")
            if e.name == "_last":
                self.em.uses["last"] = True
                return Alts.one("bridge_last")
            raise refuse(e.span, f"'{e.name}'")
        raise refuse(getattr(e, "span", None), f"the expression {type(e).__name__}")

    def arith(self, e: Binary) -> Alts:
        a, b = self.num(e.left), self.num(e.right)
        op = e.op
        if op in ("+", "-", "*", "/"):
            return combine([a, b], lambda v: f"({v[0]} {op} {v[1]})", e.span)
        if op == "%":  # C's remainder; PAT's % is the non-negative modulo
            return combine([a, b], lambda v: f"({v[0]} - ({v[0]} / {v[1]}) * {v[1]})", e.span)
        if op == "mod":
            return combine([a, b], lambda v: f"({v[0]} % {v[1]})", e.span)
        if op in ("&", "|", "^"):
            return combine([a, b], lambda v: f"({v[0]} {op} {v[1]})", e.span)
        if op in ("<<", ">>"):
            shift = b.simple
            if shift is None or not shift.lstrip("-").isdigit() or not 0 <= int(shift) < 31:
                raise refuse(e.span, f"the shift '{op}' by an amount that is not a constant")
            factor = 2 ** int(shift)
            if op == "<<":
                return combine([a], lambda v: f"({v[0]} * {factor})", e.span)
            # arithmetic shift = floor division; PAT's % is non-negative
            return combine([a], lambda v: f"(({v[0]} - ({v[0]} % {factor})) / {factor})", e.span)
        raise refuse(e.span, f"the operator '{op}'")

    def var(self, v: Var) -> str:
        if v.scope == "global":
            if v.name in self.em.plan.global_channels:
                return str(self.em.plan.global_channels[v.name])
            if v.name not in self.em.global_names:
                raise UnsupportedError.at(v.span, f"unknown variable '{v.name}'")
            return self.em.global_names[v.name]
        if v.scope == "block":
            return "b_" + sanitize(v.name)
        if self.k is not None and v.name in self.em.insts[self.k].channels:
            return self.em.chan_number(self.k, v.name, self.slot_index)
        return self._local(v.name, v.span)

    def index(self, e: Index) -> Alts:
        base, idx = e, []
        while isinstance(base, Index):
            idx.append(base.index)
            base = base.base
        idx.reverse()
        if not isinstance(base, Var):
            raise refuse(e.span, "indexing this expression")
        if base.scope == "local" and self.k is not None and len(idx) == 1 and \
                f"{base.name}[0]" in self.em.insts[self.k].channels:
            return self._local_channel_array(base.name, idx[0], e.span)
        t = self.type_of(base)
        dims, _ = array_dims(t) if t is not None else ([], None)
        if len(dims) != len(idx):
            raise refuse(e.span, "indexing an array by part of its dimensions")
        offset = None
        if base.scope == "local" and self.k is not None:
            if base.name not in self.em.local_names[self.k]:
                raise UnsupportedError.at(base.span, f"unknown local '{base.name}'")
            name, offset, _ = self.em.local_var(self.k, base.name, self.slot_index)
        else:
            name = self.var(base)
        parts = [self.num(x) for x in idx]
        # CSP# checks the bound of a one-dimensional array of its own; a flattened
        # dimension or a slot's part of a pool array needs the check written out
        # (outside it, a statement fails as Promela does; a guard is false).
        checked = offset is not None or len(dims) > 1
        cases = []
        for conds, values in product(parts, e.span):
            text = values[0]
            for x, d in zip(values[1:], dims[1:], strict=True):
                text = f"({text}) * {d} + {x}"
            bounds = []
            if checked:
                for x, d in zip(values, dims, strict=True):
                    if not (x.isdigit() and int(x) < d):
                        bounds += [f"{x} >= 0", f"{x} < {d}"]
            if offset is not None:
                text = f"{offset} + {text}" if offset != "0" else text
            cases.append(((*conds, *bounds), f"{name}[{text}]"))
        exhaustive = all(p.exhaustive for p in parts) and not any(c for c, _ in cases
                                                                  if c and checked)
        return Alts(tuple(cases), exhaustive)

    def _local_channel_array(self, name: str, index: Expr, span: Span | None) -> Alts:
        assert self.k is not None
        chans = self.em.insts[self.k].channels
        members = [(n, chans[f"{name}[{n}]"]) for n in range(len(chans))
                   if f"{name}[{n}]" in chans]
        i = self.num(index)
        value = i.simple
        if value is not None and value.lstrip("-").isdigit():
            got = dict(members).get(int(value))
            if got is None:
                raise UnsupportedError.at(span, f"index {value} out of range of '{name}'")
            return Alts.one(str(got))
        cases = []
        for conds, text in i.cases:
            for n, number in members:
                cases.append(((*conds, f"{text} == {n}"), str(number)))
        return Alts(tuple(cases), False)

    # -- channels ---------------------------------------------------------------------
    def channel(self, e: Expr) -> ChanRef:
        """Return the cases of a channel expression: its number as text, and as an int
        when it is a constant (a named channel)."""
        alts = self.num(e)
        cases = []
        for conds, text in alts.cases:
            static = int(text) if text.isdigit() and 1 <= int(text) <= self.em.nchan else None
            cases.append((conds, text, static))
        return ChanRef(tuple(cases), alts.exhaustive)

    def chan_query(self, e: ChanQuery) -> str:
        ref = self.channel(e.channel)
        out = []
        for conds, c, static in ref.cases:
            cap = (str(self.em.plan.channel(static).channel.capacity) if static is not None
                   else f"bridge_cap[{c}]")
            text = {"empty": f"bridge_len[{c}] == 0", "nempty": f"bridge_len[{c}] != 0",
                    "full": f"bridge_len[{c}] >= {cap}", "nfull": f"bridge_len[{c}] < {cap}"}[e.op]
            if cap == "0":
                text = "true" if e.op in ("empty", "full") else "false"
            out.append(conj([*conds, text]))
        return disj(out)

    def slot(self, c: str, j: int | str, f: int) -> str:
        w, nf = self.em.width, self.em.fields
        base = f"{c} * {w}" if not c.isdigit() else str(int(c) * w)
        if isinstance(j, int):
            off = j * nf + f
            if c.isdigit():
                return f"bridge_buf[{int(c) * w + off}]"
            return f"bridge_buf[{base} + {off}]"
        return f"bridge_buf[{base} + ({j}) * {nf} + {f}]"

    def match(self, c: str, j: int | str, args: Sequence[RecvArg]) -> str:
        conds = []
        for f, a in enumerate(args):
            if isinstance(a, RecvMatch):
                conds.append(bool_of(combine([self.num(a.value)],
                                               lambda v, f=f: f"{self.slot(c, j, f)} == {v[0]}",
                                               a.span)))
        return conj(conds)

    def recv_ready(self, c: str, comm: Receive | ChanPoll, cap: int | None) -> str:
        """Return when a buffered receive (or poll) on channel number ``c`` finds its
        message: the head, or with ``??`` any message."""
        if not comm.random:
            return conj([f"bridge_len[{c}] > 0", self.match(c, 0, comm.args)])
        positions = cap if cap is not None else self.em.maxcap
        return disj([conj([f"bridge_len[{c}] > {j}", self.match(c, j, comm.args)])
                      for j in range(positions)])

    def poll(self, e: ChanPoll) -> str:
        ref = self.channel(e.channel)
        out = []
        for conds, c, static in ref.cases:
            cap = self.em.plan.channel(static).channel.capacity if static is not None else None
            if cap == 0:
                continue
            out.append(conj([*conds, self.recv_ready(c, e, cap)]))
        return disj(out)

    def comm_block(self, comm: Send | Receive) -> tuple[str, list[str]]:
        """Return when the buffered form of the edge's channel operation can happen and
        the statements that perform it (channel number cases become an if-chain)."""
        assert self.k is not None
        ready = self.em.comm_ready_buffered(self.k, comm)
        if ready == "false":
            return "false", []
        return ready, self.comm_now(comm, failing=False)

    def comm_error(self, comm: Send | Receive) -> str:
        """Return when attempting ``comm`` is a model error: an invalid channel, or a
        send with another number of values than the channel's fields when it would
        execute (pan: "too few parameters in send stmnt")."""
        ref = self.channel(comm.channel)
        out = [conj([*conds, neg(self.em.valid_channel(c))])
               for conds, c, static in ref.cases if static is None]
        for conds, c, static in ref.cases:
            if static is not None and wrong_arity(comm, self.em.plan.channel(static).channel):
                cap = self.em.plan.channel(static).channel.capacity
                out.append(conj([*conds, f"bridge_len[{c}] < {cap}" if cap else "true"]))
        if not ref.exhaustive:
            out.append(neg(disj([conj(list(conds)) for conds, _, _ in ref.cases])))
        return disj(out)

    def comm_now(self, comm: Send | Receive, failing: bool) -> list[str]:
        """Return the statements of a buffered send or receive; ``failing``: the
        operation is inside an effect (d_step), where blocking is a model error."""
        ref = self.channel(comm.channel)
        branches: list[tuple[str, list[str]]] = []
        for conds, c, static in ref.cases:
            cap_text = (str(self.em.plan.channel(static).channel.capacity)
                        if static is not None else f"bridge_cap[{c}]")
            ftypes = self.em.plan.channel(static).channel.fields if static is not None else None
            if static is not None and cap_text == "0":
                self.em.failable = self.em.failable or failing
                branches.append((conj(list(conds)), ["bridge_failed = 1;"]))
                continue
            if isinstance(comm, Send):
                can = f"{cap_text} > 0 && bridge_len[{c}] < {cap_text}"
                body = self.push(c, comm, ftypes, cap_text)
            else:
                cap = self.em.plan.channel(static).channel.capacity if static is not None else None
                can = conj([f"{cap_text} > 0", self.recv_ready(c, comm, cap)])
                body = self.take(c, comm, cap)
            if static is None:
                can = conj([self.em.valid_channel(c), can])
            if failing:
                self.em.failable = True
                body = [f"if ({can}) {{ {' '.join(body)} }} else {{ bridge_failed = 1; }}"]
            branches.append((conj(list(conds)), body))
        return chain(branches, ref.exhaustive, self.em.mark_failable)

    def push(self, c: str, comm: Send, ftypes: tuple[Type, ...] | None, cap: str) -> list[str]:
        out: list[str] = []
        temps = []
        for f, a in enumerate(comm.args):
            t = f"bridge_v{next(self.em.temp)}"
            ft = ftypes[f] if ftypes is not None and f < len(ftypes) else None
            out += self.assign_text(t, self.num(a), ft, declare=True, span=a.span if hasattr(a, "span") else None)
            temps.append(t)
        if not comm.sorted:
            for f, t in enumerate(temps):
                out.append(f"{self.slot(c, f'bridge_len[{c}]', f)} = {t};")
            out.append(f"bridge_len[{c}] = bridge_len[{c}] + 1;")
            return out
        # !!: before the first message that is greater (lexicographically)
        j = f"bridge_j{next(self.em.temp)}"
        i = f"bridge_i{next(self.em.temp)}"
        le = "true"
        for f in reversed(range(len(temps))):
            here = self.slot(c, j, f)
            le = (f"({here} <= {temps[f]})" if le == "true" else
                  f"({here} < {temps[f]} || ({here} == {temps[f]} && {le}))")
        nf = self.em.fields
        out.append(f"var {j} = 0;")
        out.append(f"while ({j} < bridge_len[{c}] && {le}) {{ {j} = {j} + 1; }}")
        out.append(f"var {i} = bridge_len[{c}];")
        moves = " ".join(f"{self.slot(c, i, f)} = {self.slot(c, f'{i} - 1', f)};"
                         for f in range(nf))
        out.append(f"while ({i} > {j}) {{ {moves} {i} = {i} - 1; }}")
        for f, t in enumerate(temps):
            out.append(f"{self.slot(c, j, f)} = {t};")
        for f in range(len(temps), nf):
            out.append(f"{self.slot(c, j, f)} = 0;")
        out.append(f"bridge_len[{c}] = bridge_len[{c}] + 1;")
        return out

    def take(self, c: str, comm: Receive, cap: int | None) -> list[str]:
        out: list[str] = []
        nf = self.em.fields
        j: int | str = 0
        if comm.random:
            jt = f"bridge_j{next(self.em.temp)}"
            out.append(f"var {jt} = 0;")
            out.append(f"while (!{paren(self.match(c, jt, comm.args))}) {{ {jt} = {jt} + 1; }}")
            j = jt
        temps = []
        for f in range(len(comm.args)):
            t = f"bridge_m{next(self.em.temp)}"
            out.append(f"var {t} = {self.slot(c, j, f)};")
            temps.append(t)
        if not comm.peek:
            i = f"bridge_i{next(self.em.temp)}"
            out.append(f"var {i} = {j};")
            moves = " ".join(f"{self.slot(c, i, f)} = {self.slot(c, f'{i} + 1', f)};"
                             for f in range(nf))
            out.append(f"while ({i} < bridge_len[{c}] - 1) {{ {moves} {i} = {i} + 1; }}")
            out += [f"{self.slot(c, f'bridge_len[{c}] - 1', f)} = 0;" for f in range(nf)]
            out.append(f"bridge_len[{c}] = bridge_len[{c}] - 1;")
        for f, a in enumerate(comm.args):
            if isinstance(a, RecvBind) and a.target is not None:
                out += self.store(a.target, Alts.one(temps[f]), a.span)
        return out

    # -- remote references, np_ -----------------------------------------------------
    def _candidates(self, proctype: str, pid: Expr | None, span: Span | None,
                    what: str) -> list[tuple[int, str]]:
        ids = [inst.index for inst in self.em.insts if inst.process.name == proctype]
        if not ids:
            raise UnsupportedError.at(span, f"no instance of process '{proctype}'")
        if pid is None:
            if len(ids) == 1 and self.em.insts[ids[0]].static:
                return [(ids[0], "true")]
            # SPIN's rule (pan's f_pid): the running instance of the proctype with the
            # lowest pid.
            out = []
            for k in ids:
                alive = f"{self.em.pc(k)} != -1"
                older = [neg(conj([f"{self.em.pc(j)} != -1",
                                     f"{self.em.pid(j)} < {self.em.pid(k)}"]))
                         for j in ids if j != k]
                out.append((k, conj([alive, *older])))
            return out
        alts = self.num(pid)
        out = []
        for k in ids:
            alive = f"{self.em.pc(k)} != -1"
            for conds, text in alts.cases:
                out.append((k, conj([*conds, f"{text} == {self.em.pid(k)}", alive])))
        return out

    def remote_label(self, e: RemoteLabel) -> str:
        out = []
        for k, cond in self._candidates(e.proctype, e.pid, e.span, f"{e.proctype}@{e.label}"):
            locs = [loc.id for loc in self.em.insts[k].process.locations if e.label in loc.labels]
            if not locs:
                raise UnsupportedError.at(e.span, f"no label '{e.label}' in '{e.proctype}'")
            out.append(conj([cond, disj([f"{self.em.pc(k)} == {x}" for x in locs])]))
        return disj(out)

    def remote_var(self, e: RemoteVar) -> Alts:
        cands = self._candidates(e.proctype, e.pid, e.span, f"{e.proctype}:{e.name}")
        cases = []
        for k, cond in cands:
            if e.name not in self.em.local_names[k]:
                raise UnsupportedError.at(e.span, f"'{e.proctype}' has no local '{e.name}'")
            cname, offset, _ = self.em.local_var(k, e.name)
            name = cname if offset is None else f"{cname}[{offset}]"
            cases.append((() if cond == "true" else (cond,), name))
        if len(cands) == 1 and cands[0][1] == "true":
            return Alts(tuple(cases))
        # no such instance running: pan reads a zeroed process (ir/expr.py RemoteVar)
        cases.append(((neg(disj([c for _, c in cands])),), "0"))
        return Alts(tuple(cases))

    def enabled(self, e: Enabled) -> str:
        """Return ``enabled(pid)``: the running instance with that pid has a step
        (whatever the atomicity of others; ``else`` counts, ``timeout`` reads false)."""
        if self.k is not None and isinstance(e.pid, Builtin) and e.pid.name == "_pid":
            raise refuse(e.span, "enabled() of the process itself (pan: a model error)")
        alts = self.num(e.pid)
        out = []
        for inst in self.em.insts:
            k = inst.index
            if k == self.k:
                continue
            if self.em.in_progress(k):
                raise refuse(e.span, "enabled() in guards that ask it of each other")
            ready = self.em.any_step(k, with_timeouts=False)
            for conds, text in alts.cases:
                out.append(conj([*conds, f"{text} == {self.em.pid(k)}",
                                  f"{self.em.pc(k)} != -1", ready]))
        return disj(out)

    def get_priority(self, e: GetPriority) -> Alts:
        """Return ``get_priority(pid)``: that running instance's priority, 0 if none."""
        alts = self.num(e.pid)
        cases = []
        for inst in self.em.insts:
            k = inst.index
            for conds, text in alts.cases:
                cases.append(((*conds, f"{text} == {self.em.pid(k)}", f"{self.em.pc(k)} != -1"),
                              self.em.prio(k)))
        cases.append(((neg(disj([conj(list(c)) for c, _ in cases])),), "0"))
        if len(cases) > MAX_ALTERNATIVES:
            raise refuse(e.span, "get_priority() of a pid among this many processes")
        return Alts(tuple(cases))

    def set_priority(self, s: SetPriority) -> list[str]:
        """Return ``set_priority(pid, v)``: nothing if no such instance runs; checked, a
        value outside 1..255 is a model error; the field keeps ``v`` modulo 256."""
        pid = f"bridge_q{next(self.em.temp)}"
        value = f"bridge_v{next(self.em.temp)}"
        out = self.assign_text(pid, self.num(s.pid), None, declare=True, span=s.span)
        out += self.assign_text(value, self.num(s.value), None, declare=True, span=s.span)
        branches = []
        for inst in self.em.insts:
            k = inst.index
            store = f"{self.em.prio(k)} = {value} % 256;"
            if s.checked:
                self.em.mark_failable()
                store = (f"if ({value} < 1 || {value} > 255) {{ bridge_failed = 1; }} "
                         f"else {{ {store} }}")
            branches.append(f"if ({pid} == {self.em.pid(k)} && {self.em.pc(k)} != -1) "
                            f"{{ {store} }}")
        return out + [" else ".join(branches)]

    def np(self) -> str:
        at = []
        for inst in self.em.insts:
            for loc in inst.process.locations:
                if loc.progress:
                    at.append(f"{self.em.pc(inst.index)} == {loc.id}")
        return neg(disj(at))

    # -- statements -----------------------------------------------------------------
    def lvalue(self, e: Expr) -> Alts:
        if isinstance(e, Var):
            if e.scope == "global" and e.name in self.em.plan.global_channels:
                raise UnsupportedError.at(e.span, f"cannot assign to channel '{e.name}'")
            return Alts.one(self.var(e))
        if isinstance(e, Index):
            return self.index(e)
        raise refuse(getattr(e, "span", None), "assigning to this expression")

    def store(self, target: Expr, value: Alts, span: Span | None) -> list[str]:
        t = self.type_of(target)
        lv = self.lvalue(target)
        branches = [(conj(list(conds)), [f"{vals[0]} = {wrap(vals[1], t)};"])
                    for conds, vals in product([lv, value], span)]
        return chain(branches, lv.exhaustive and value.exhaustive, self.em.mark_failable)

    def assign_text(self, name: str, value: Alts, t: Type | None, declare: bool,
                    span: Span | None) -> list[str]:
        simple = value.simple
        if simple is not None:
            text = wrap(simple, t)
            return [f"var {name} = {text};" if declare else f"{name} = {text};"]
        head = [f"var {name} = 0;"] if declare else []
        branches = [(conj(list(conds)), [f"{name} = {wrap(v, t)};"]) for conds, v in value.cases]
        return head + chain(branches, value.exhaustive, self.em.mark_failable)

    def initialise(self, name: str, t: Type, init: Expr | tuple[Expr, ...], span: Span | None) -> list[str]:
        assert self.k is not None
        cname, offset, _ = self.em.local_var(self.k, name, self.slot_index)
        dims, element = array_dims(t)
        if not dims:
            assert not isinstance(init, tuple)
            target = cname if offset is None else f"{cname}[{offset}]"
            return self.assign_text(target, self.num(init), t, declare=False, span=span)
        out: list[str] = []
        exprs = list(init) if isinstance(init, tuple) else [init] * cell_count(dims)
        for x, e in enumerate(exprs[: cell_count(dims)]):
            at = str(x) if offset is None else f"{offset} + {x}"
            out += self.assign_text(f"{cname}[{at}]", self.num(e), element, declare=False,
                                    span=span)
        return out

    def effects(self, body: Sequence[Stmt], timeout: str) -> list[str]:
        """Return the effect ``body`` of a step, ``timeout`` read as pan's flag of the
        pass that takes it ("true" for a timeout option, else "false")."""
        saved = self._timeout
        self._timeout = timeout
        try:
            return self.stmts(body)
        finally:
            self._timeout = saved

    def stmts(self, body: Sequence[Stmt]) -> list[str]:
        out: list[str] = []
        for s in body:
            out += self.stmt(s)
        return out

    def stmt(self, s: Stmt) -> list[str]:
        if isinstance(s, Assign):
            return self.store(s.target, self.num(s.value), s.span)
        if isinstance(s, If):
            branches = [(self.cond(c), self.stmts(b)) for c, b in s.branches]
            text = ""
            for n, (c, b) in enumerate(branches):
                text += ("if" if n == 0 else " else if") + f" ({c}) {{ {' '.join(b)} }}"
            if s.otherwise:
                text += f" else {{ {' '.join(self.stmts(s.otherwise))} }}"
            return [text]
        if isinstance(s, While):
            return [f"while ({self.cond(s.cond)}) {{ {' '.join(self.stmts(s.body))} }}"]
        if isinstance(s, LocalVar):
            self.block_types[s.name] = s.type
            name = "b_" + sanitize(s.name)
            dims, element = array_dims(s.type)
            if dims:
                out = [f"var {name}[{cell_count(dims)}];"]
                if s.init is not None:
                    exprs = list(s.init) if isinstance(s.init, tuple) else [s.init] * cell_count(dims)
                    for x, e in enumerate(exprs[: cell_count(dims)]):
                        out += self.assign_text(f"{name}[{x}]", self.num(e), element,
                                                declare=False, span=s.span)
                return out
            if s.init is None:
                return [f"var {name} = 0;"]
            assert not isinstance(s.init, tuple)
            return self.assign_text(name, self.num(s.init), s.type, declare=True, span=s.span)
        if isinstance(s, AssertStmt):
            self.em.failable = True
            return [f"if ({neg(self.cond(s.cond))}) {{ bridge_failed = 1; }}"]
        if isinstance(s, SetPriority):
            return self.set_priority(s)
        if isinstance(s, Print):
            return []
        if isinstance(s, Run):
            if self.k is None:
                raise refuse(s.span, "'run' outside a process")
            return self.em.start(s, self.k, s.span)
        if isinstance(s, Send | Receive):
            ref = self.channel(s.channel)
            if any(st is not None and self.em.plan.channel(st).channel.capacity == 0
                   for _, _, st in ref.cases):
                self.em.failable = True
                return ["bridge_failed = 1;"]  # a rendezvous inside d_step: SPIN's error
            return self.comm_now(s, failing=True)
        raise refuse(getattr(s, "span", None), f"the statement {type(s).__name__}")
