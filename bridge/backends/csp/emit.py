"""Emit CSP# (PAT 3.5) from the IR of a Promela model: ``emit_csp`` returns the text.

The output is a guarded-command program, one CSP# process per Promela instance, all
interleaved (``|||``), so that one step of the model is one step of PAT:

* every variable is a CSP# global (``g_x`` for a global, ``<Proc><k>_x`` for a local of
  static instance ``k``, ``<Proc>_x[j]`` for slot ``j`` of the pool of processes that
  ``run`` starts), Promela booleans are 0/1 integers, multi-dimensional arrays are
  flattened; the control location is a variable too (``bridge_pc<k>``,
  ``bridge_pc_<Proc>[j]``), -1 while the instance is dead or not yet started;
* instance ``k`` is ``<Proc><k>(m) = ([pc == src && guard] <Proc><k>_e<n>{effect;
  pc = tgt} -> <Proc><k>(m)) [] ...``, one option per edge of the IR;
* buffered channels live in the arrays ``bridge_len``/``bridge_buf`` (so ``len``,
  ``full``, polls, ``??``, ``!!`` and ``?<>`` are expressions and blocks); a rendezvous
  of send edge ``e`` of instance ``i`` with receive edge ``f`` of instance ``j`` is a
  CSP# synchronous channel of its own, so PAT sees one step shared by both processes;
* ``run P(...)`` starts a slot of ``P``'s pool (plan.py), a process dies as in SPIN
  (youngest first, a step of its own), ``_pid``, ``_nr_pr`` and ``_last`` are
  variables, and Promela's atomicity is a guard: while the instance in
  ``bridge_excl`` can move, only steps it takes part in are offered;
* ``else``, ``timeout`` and ``enabled()`` are guards over the enabledness of options;
* ``assert`` and the model errors SPIN reports (a blocking channel operation inside
  ``d_step``, an invalid channel, a send with the wrong number of values, too many
  processes, an ``xr``/``xs`` claim broken) set ``bridge_failed``.

The Promela safety check (assertions and invalid end states) becomes ``#assert
BridgeSystem(1) deadlockfree``: with ``m == 1`` a failed assertion stops every process
and an instance at an end state may terminate (``Skip``), so the only deadlocks are
PAT's image of SPIN's invalid end states and failed assertions. LTL properties are
checked on ``BridgeSystem(0)``, where no instance terminates (a blocked run stutters,
as in SPIN) and a failed assertion does not stop the model (as ``pan -A``): the safety
assertion reports it. ``BridgeSystem(0)`` has exactly the states and transitions of
the native engine's state space of the Promela model. The README ("translate --to
csp") lists what is refused and where PAT's view differs.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bridge.backends.csp.plan import (
    TOP,
    ChannelFlow,
    Plan,
    iter_statements,
    make_plan,
    proc_name,
    run_bounds,
)
from bridge.backends.csp.text import (
    Alts,
    apply_binary,
    array_dims,
    bool_of,
    cell_count,
    combine,
    conj,
    disj,
    neg,
    refuse,
    wrap,
    wrap_const,
    wrong_arity,
)
from bridge.backends.csp.writer import ChanRef, Writer
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
    ElseGuard,
    Expr,
    If,
    Index,
    LocalVar,
    Receive,
    RecvBind,
    RecvMatch,
    Run,
    Send,
    Stmt,
    Unary,
    Var,
    While,
    iter_subexpressions,
)
from bridge.ir.model import (
    Composition,
    Edge,
    InstanceRef,
    Interleave,
    Parallel,
    SourceLanguage,
    TransitionSystem,
)
from bridge.ir.property import (
    Ltl,
    LtlBinary,
    LtlConst,
    LtlEvent,
    LtlState,
    LtlUnary,
    Property,
    PropertyKind,
    ltl_nodes,
)
from bridge.ir.types import ArrayType, ChanType, IntType, Overflow, Type

__all__ = ["emit_csp", "unbounded_runs"]

MAX_PAIRS = 20000  # rendezvous pairs (one CSP# channel each)


def unbounded_runs(system: TransitionSystem) -> list[str]:
    """Return the proctypes whose ``run`` statements may execute without a bound that
    the control graphs show; ``emit_csp`` needs a pool size for each of them."""
    return sorted(name for name, n in run_bounds(system).items() if n < 0)


# ---------------------------------------------------------------------------------
# The emitter


@dataclass(slots=True)
class _Pair:
    """A rendezvous: send edge ``e`` of instance ``i`` with receive edge ``f`` of ``j``."""

    i: int
    e: int
    j: int
    f: int
    name: str
    cond: str  # everything but the instances' control locations and atomicity
    block: list[str]


class _Emitter:
    def __init__(self, system: TransitionSystem, plan: Plan) -> None:
        self.system = system
        self.plan = plan
        self.insts = plan.instances
        self.global_types: dict[str, Type] = {v.name: v.type for v in system.globals}
        self.names: set[str] = set()
        self.global_names = {v.name: self._fresh("g_" + sanitize(v.name)) for v in system.globals}
        self.constants = self._constant_parameters()
        # Static instance k: scalars <Proc><k>_x. The slots of a pool: arrays <Proc>_x
        # indexed by the slot's number in its pool (run writes at bridge_n_<Proc>).
        self.slot_of: dict[int, tuple[str, int]] = {}
        self.pool_prefix: dict[str, str] = {}
        for name, slots in plan.pools.items():
            self.pool_prefix[name] = proc_name(name)  # only ever part of longer names
            for j, k in enumerate(slots):
                self.slot_of[k] = (name, j)
        self.local_names: list[dict[str, str]] = []
        pool_names: dict[str, dict[str, str]] = {}
        for inst in self.insts:
            pool = self.slot_of.get(inst.index, (None, 0))[0]
            if pool is not None and pool in pool_names:
                self.local_names.append(pool_names[pool])
                continue
            prefix = self.pool_prefix[pool] if pool is not None else inst.name
            names = {}
            fixed = self.constants.get(inst.process.name, {}) if not inst.static else {}
            for v in inst.process.locals:
                if v.name not in fixed:
                    names[v.name] = self._fresh(f"{prefix}_{sanitize(v.name)}")
            for p in inst.process.parameters:
                if p not in names and p not in fixed:
                    names[p] = self._fresh(f"{prefix}_{sanitize(p)}")
            self.local_names.append(names)
            if pool is not None:
                pool_names[pool] = names
        self.local_types: list[dict[str, Type]] = []
        for inst in self.insts:
            types: dict[str, Type] = {p: IntType(None, None, Overflow.NONE, "var")
                                      for p in inst.process.parameters}
            types.update({v.name: v.type for v in inst.process.locals})
            self.local_types.append(types)
        self.proc_names = [self._fresh(inst.name) for inst in self.insts]
        self.failable = False  # some step may set bridge_failed
        self.claim = None  # the never claim (a Process), when a property needs it
        self.uses = {"nr": bool(plan.pools), "last": False, "excl": False}
        self.holders = [k for k, inst in enumerate(self.insts)
                        if any(loc.atomic for loc in inst.process.locations)]
        self.uses["excl"] = bool(self.holders)
        self.temp = itertools.count()
        self.nchan = len(plan.channels)
        buffered = [c.channel for c in plan.channels if c.channel.capacity > 0]
        self.fields = max([len(c.channel.fields) for c in plan.channels] + [1])
        self.maxcap = max([c.capacity for c in buffered] + [0])
        self.width = max(self.maxcap * self.fields, 1)
        self.has_rendezvous = any(c.channel.capacity == 0 for c in plan.channels)
        self.has_channels = bool(plan.channels) or any(
            _chan_typed(t) for t in [*self.global_types.values(),
                                     *(v.type for p in system.processes for v in p.locals)])
        self.locations = [{loc.id: loc for loc in inst.process.locations} for inst in self.insts]
        self.by_source: list[dict[int, list[int]]] = []
        for inst in self.insts:
            table: dict[int, list[int]] = {}
            for n, e in enumerate(inst.process.edges):
                table.setdefault(e.source, []).append(n)
            self.by_source.append(table)
        # Edges at a location with an 'else': the process can always move there, so the
        # timeout pass never comes and their 'timeout' reads false (SPIN's pan; the
        # native engine's edgecode._gen_process): they are ordinary options.
        else_at = {(id(inst.process), e.source) for inst in self.insts
                   for e in inst.process.edges if isinstance(e.guard, ElseGuard)}
        self._beside_else: set[int] = {
            id(e) for inst in self.insts for e in inst.process.edges
            if (id(inst.process), e.source) in else_at}
        self.initial_values = self._initial_values()
        self.flow = ChannelFlow(system, plan, self._initial_cells())
        self._timeout_text: str | None = None
        self._has_step: dict[int, str] = {}
        self._exec: dict[tuple[int, int], str] = {}
        self._computing: set[int] = set()
        self.claims: dict[int, list[tuple[int, Expr, Span | None]]] = {
            inst.index: [(1 if a.kind == "xr" else 2, a.channel, a.span)
                         for a in inst.process.channel_assertions]
            for inst in self.insts if inst.process.channel_assertions}

    # -- names ----------------------------------------------------------------------
    def _fresh(self, base: str) -> str:
        name = base
        n = 1
        while name in self.names or name.lower() in _RESERVED:
            name = f"{base}_{n}"
            n += 1
        self.names.add(name)
        return name

    def mark_failable(self) -> None:
        """Note that a step may set ``bridge_failed``."""
        self.failable = True

    def pc(self, k: int, index: str | None = None) -> str:
        """Return the control-location variable of instance ``k`` (a slot: at its
        number in the pool, or at ``index``)."""
        if k in self.slot_of:
            pool, j = self.slot_of[k]
            return f"bridge_pc_{self.pool_prefix[pool]}[{index or j}]"
        return f"bridge_pc{k}"

    def local_var(self, k: int, name: str, index: str | None = None) -> tuple[str, str | None, int]:
        """Return (variable, offset of instance ``k``'s part or None, size) of a local."""
        t = self.local_types[k].get(name)
        dims, _ = array_dims(t) if t is not None else ([], None)
        size = cell_count(dims) if dims else 1
        cname = self.local_names[k][name]
        if k not in self.slot_of:
            return cname, None, size
        j = index or str(self.slot_of[k][1])
        offset = (str(int(j) * size) if j.isdigit() else f"{j} * {size}") if size > 1 else j
        return cname, offset, size

    def chan_number(self, k: int, name: str, index: str | None = None) -> str:
        """Return the number of local channel ``name`` of instance ``k`` (slots of a pool
        have consecutive channel numbers, so a run can address them by slot index)."""
        number = self.insts[k].channels[name]
        if index is None or k not in self.slot_of:
            return str(number)
        pool, j = self.slot_of[k]
        width = len(self.insts[k].process.channels)
        base = number - j * width
        return f"{base} + {index} * {width}"

    def _constant_parameters(self) -> dict[str, dict[str, int]]:
        """Return, per proctype started by ``run``, the parameters that are the same
        constant at every ``run`` (a channel name, a number) and that the process never
        assigns: they are written as that constant (so a rendezvous on such a channel
        parameter is matched when the model is written, not at every step)."""
        from bridge.backends.csp.plan import run_sites

        assigned_globals: set[str] = set()
        assigned_locals: dict[str, set[str]] = {}
        runs: dict[str, list[Run]] = {}
        for process in self.system.processes:
            mine = assigned_locals.setdefault(process.name, set())
            for e in process.edges:
                stmts: list[Stmt] = [e.comm] if e.comm is not None else []
                for st, _ in iter_statements([*stmts, *e.effect]):
                    for target in _targets(st):
                        base = target
                        while isinstance(base, Index):
                            base = base.base
                        if isinstance(base, Var):
                            (assigned_globals if base.scope == "global" else mine).add(base.name)
            for run, _, _ in run_sites(process):
                runs.setdefault(run.proctype, []).append(run)

        def value(e: Expr) -> int | None:
            if isinstance(e, Const):
                return int(e.value)
            if isinstance(e, Var) and e.scope == "global":
                if e.name in self.plan.global_channels:
                    return self.plan.global_channels[e.name]
                return None
            if isinstance(e, Index) and isinstance(e.base, Var) and e.base.scope == "global" \
                    and e.base.name not in assigned_globals:
                init = next((v.init for v in self.system.globals if v.name == e.base.name), None)
                i = value(e.index)
                if isinstance(init, tuple) and i is not None and 0 <= i < len(init):
                    return value(init[i])
                return None
            if isinstance(e, Unary):
                v = value(e.operand)
                return None if v is None else {"-": -v, "!": int(not v), "~": ~v}.get(e.op)
            if isinstance(e, Binary):
                a, b = value(e.left), value(e.right)
                return None if a is None or b is None else apply_binary(e.op, a, b)
            return None

        out: dict[str, dict[str, int]] = {}
        for name, sites in runs.items():
            try:
                process = self.system.process(name)
            except KeyError:
                continue
            types = {v.name: v.type for v in process.locals}
            fixed: dict[str, int] = {}
            for n, p in enumerate(process.parameters):
                if p in assigned_locals.get(name, set()) or isinstance(types.get(p), ArrayType):
                    continue
                found = {value(r.args[n]) if n < len(r.args) else None for r in sites}
                if len(found) == 1 and None not in found:
                    (v,) = found
                    assert v is not None
                    fixed[p] = wrap_const(v, types.get(p))
            out[name] = fixed
        return out

    def prio(self, k: int, index: str | None = None) -> str:
        """Return the priority variable of instance ``k`` (priority scheduling)."""
        if k in self.slot_of:
            pool, j = self.slot_of[k]
            return f"bridge_prio_{self.pool_prefix[pool]}[{index or j}]"
        return f"bridge_prio{k}"

    def pid(self, k: int, index: str | None = None) -> str:
        if k in self.slot_of:
            pool, j = self.slot_of[k]
            return f"bridge_pid_{self.pool_prefix[pool]}[{index or j}]"
        return str(k)

    def writer(self, k: int | None) -> Writer:
        return Writer(self, k)

    # -- initial values ---------------------------------------------------------------
    def _initial_values(self) -> dict[tuple[int | None, str], list[int]]:
        """Return the flattened initial value of every variable of the static instances
        and of the globals (slots start dead: their variables are 0)."""
        values: dict[tuple[int | None, str], list[int]] = {}
        for v in self.system.globals:
            values[(None, v.name)] = self._fold_init(v.type, v.init, None, values, v.span)
        for inst in self.insts:
            if not inst.static:
                continue
            k = inst.index
            process = inst.process
            args = dict(zip(process.parameters, inst.arguments, strict=False))
            for p in process.parameters:
                if p in args:
                    t = self.local_types[k][p]
                    got = self._eval(args[p], k, values)
                    if got is None:
                        raise refuse(inst.span, f"the non-constant argument of '{p}'")
                    values[(k, p)] = [wrap_const(got, t)]
                elif p not in {v.name for v in process.locals}:
                    values[(k, p)] = [0]
            for v in process.locals:
                if v.name in args and v.init is None:
                    continue
                values[(k, v.name)] = self._fold_init(v.type, v.init, k, values, v.span)
        return values

    def _fold_init(self, t: Type, init: Expr | tuple[Expr, ...] | None, k: int | None,
                   values: dict, span: Span | None) -> list[int]:
        dims, element = array_dims(t)
        n = cell_count(dims)
        if init is None:
            return [0] * n
        exprs = list(init) if isinstance(init, tuple) else [init]
        out: list[int] = []
        for e in exprs:
            got = self._eval(e, k, values)
            if got is None:
                raise refuse(getattr(e, "span", None) or span,
                              "an initial value that depends on the run of the model")
            out.append(wrap_const(got, element))
        if not isinstance(init, tuple):
            out = out * n
        return (out + [0] * n)[:n]

    def _eval(self, e: Expr, k: int | None, values: dict) -> int | None:
        """Return the value of ``e`` in the initial state (None: not known)."""
        if isinstance(e, Const):
            return int(e.value)
        if isinstance(e, Var):
            if e.scope == "global":
                if e.name in self.plan.global_channels:
                    return self.plan.global_channels[e.name]
                got = values.get((None, e.name))
                return got[0] if got is not None and len(got) == 1 else None
            if k is not None:
                if e.name in self.insts[k].channels:
                    return self.insts[k].channels[e.name]
                got = values.get((k, e.name))
                return got[0] if got is not None and len(got) == 1 else None
            return None
        if isinstance(e, Index):
            base, idx = e, []
            while isinstance(base, Index):
                idx.append(base.index)
                base = base.base
            if not isinstance(base, Var):
                return None
            scope = None if base.scope == "global" else k
            t = (self.global_types.get(base.name) if scope is None
                 else self.local_types[k].get(base.name) if k is not None else None)
            if t is None:
                if k is not None and base.scope == "local" and len(idx) == 1:
                    i = self._eval(idx[0], k, values)
                    return self.insts[k].channels.get(f"{base.name}[{i}]")
                return None
            dims, _ = array_dims(t)
            arr = values.get((scope, base.name))
            ix = [self._eval(x, k, values) for x in reversed(idx)]
            if arr is None or any(x is None for x in ix) or len(ix) != len(dims):
                return None
            flat = 0
            for x, d in zip(ix, dims, strict=True):
                assert x is not None
                if not 0 <= x < d:
                    return None
                flat = flat * d + x
            return arr[flat]
        if isinstance(e, Unary):
            v = self._eval(e.operand, k, values)
            if v is None:
                return None
            return {"-": -v, "!": int(not v), "~": ~v}.get(e.op)
        if isinstance(e, Binary):
            a = self._eval(e.left, k, values)
            if e.op == "&&" and a == 0:
                return 0
            if e.op == "||" and a not in (0, None):
                return 1
            b = self._eval(e.right, k, values)
            if a is None or b is None:
                return None
            return apply_binary(e.op, a, b)
        if isinstance(e, Conditional):
            c = self._eval(e.cond, k, values)
            if c is None:
                return None
            return self._eval(e.then if c else e.otherwise, k, values)
        if isinstance(e, Builtin) and e.name == "_pid" and k is not None:
            return k
        if isinstance(e, ChanQuery) and e.op == "len":
            return 0
        return None

    def _initial_cells(self) -> dict[tuple[int | None, str], frozenset[int]]:
        cells: dict[tuple[int | None, str], frozenset[int]] = {}

        def chan_typed(t: Type | None) -> bool:
            while isinstance(t, ArrayType):
                t = t.element
            return isinstance(t, ChanType)

        for (k, name), vals in self.initial_values.items():
            t = self.global_types.get(name) if k is None else self.local_types[k].get(name)
            if chan_typed(t):
                cells[(k, name)] = frozenset(vals)
        return cells

    # -- channels ---------------------------------------------------------------------
    # -- enabledness ------------------------------------------------------------------
    def edge_kind(self, e: Edge) -> str:
        if isinstance(e.guard, ElseGuard):
            return "else"
        if e.guard is not None and id(e) not in self._beside_else and any(
                isinstance(x, Builtin) and x.name == "timeout"
                for x in iter_subexpressions(e.guard)):
            return "timeout"
        return "normal"

    def normal_guard(self, k: int, e: Edge) -> str:
        """Return the guard of a normal option (``timeout`` false beside an 'else')."""
        if e.guard is None:
            return "true"
        return self.writer(k).cond(e.guard, timeout="false" if id(e) in self._beside_else
                                   else None)

    def exec_text(self, k: int, n: int) -> str:
        """Return when edge ``n`` of instance ``k`` has a step, its control location
        aside (the native engine's enabledness, before atomicity)."""
        key = (k, n)
        if key not in self._exec:
            self._exec[key] = "false"  # a guard of a rendezvous partner never recurses
            self._exec[key] = self._exec_text(k, n)
        return self._exec[key]

    def _exec_text(self, k: int, n: int) -> str:
        inst = self.insts[k]
        e = inst.process.edges[n]
        w = self.writer(k)
        kind = self.edge_kind(e)
        if kind == "else":
            siblings = [m for m in self.by_source[k].get(e.source, [])
                        if m != n and self.edge_kind(inst.process.edges[m]) == "normal"]
            guard = neg(disj([self.exec_text(k, m) for m in siblings]))
        elif kind == "timeout":
            guard = w.cond(e.guard, timeout=self.timeout_text())  # type: ignore[arg-type]
        else:
            guard = self.normal_guard(k, e)
        if e.comm is None or guard == "false":
            return guard
        parts = [self.comm_ready(k, e.comm)]
        parts += [self.pair_ready(p) for p in self.pairs_of(k, n)]
        return conj([guard, disj(parts)])

    def comm_ready_buffered(self, k: int, comm: Send | Receive) -> str:
        """Return when ``comm`` can happen on a buffered channel."""
        w = self.writer(k)
        ref = w.channel(comm.channel)
        out: list[str] = []
        for conds, c, static in ref.cases:
            if static is not None:
                cap = self.plan.channel(static).channel.capacity
                if cap == 0 or wrong_arity(comm, self.plan.channel(static).channel):
                    continue
                ready = (f"bridge_len[{c}] < {cap}" if isinstance(comm, Send)
                         else w.recv_ready(c, comm, cap))
                out.append(conj([*conds, ready]))
            elif isinstance(comm, Send):
                out.append(conj([*conds, self.valid_channel(c), f"bridge_cap[{c}] > 0",
                                  f"bridge_len[{c}] < bridge_cap[{c}]"]))
            else:  # a rendezvous channel never holds a message
                out.append(conj([*conds, self.valid_channel(c),
                                  w.recv_ready(c, comm, None)]))
        return disj(out)

    def comm_ready(self, k: int, comm: Send | Receive) -> str:
        """Return when the buffered form of ``comm`` or its error step can happen."""
        return disj([self.comm_ready_buffered(k, comm), self.writer(k).comm_error(comm)])

    def valid_channel(self, c: str) -> str:
        return f"({c} >= 1 && {c} <= {self.nchan} && bridge_cap[{c}] >= 0)"

    def timeout_text(self) -> str:
        """Return SPIN's ``timeout``: no step of the system, the timeout options read with
        timeout 0 included (pan's normal pass)."""
        if self._timeout_text is None:
            self._timeout_text = "false"
            parts = [self.any_step(k, with_timeouts=False) for k in range(len(self.insts))]
            # a timeout option whose guard holds with timeout 0 moves in pan's normal pass
            for k, inst in enumerate(self.insts):
                parts += [conj([f"{self.pc(k)} == {e.source}",
                                self.writer(k).cond(e.guard, timeout="false")])
                          for e in inst.process.edges if self.edge_kind(e) == "timeout"]
            self._timeout_text = neg(disj(parts))
        return self._timeout_text

    def in_progress(self, k: int) -> bool:
        """Return True while the steps of instance ``k`` are being written (a guard
        that asks enabled() of an instance whose guards ask it back)."""
        return k in self._computing

    def any_step(self, k: int, with_timeouts: bool, atomic_only: bool = False) -> str:
        """Return when instance ``k`` has a step (of any kind, death included);
        ``atomic_only``: only from the locations inside an atomic sequence."""
        self._computing.add(k)
        try:
            return self._any_step(k, with_timeouts, atomic_only)
        finally:
            self._computing.discard(k)

    def _any_step(self, k: int, with_timeouts: bool, atomic_only: bool) -> str:
        inst = self.insts[k]
        out: list[str] = []
        for lid, edges in sorted(self.by_source[k].items()):
            if atomic_only and not self.locations[k][lid].atomic:
                continue
            kinds = [self.edge_kind(inst.process.edges[n]) for n in edges]
            if not with_timeouts:
                edges = [n for n, kd in zip(edges, kinds, strict=True) if kd != "timeout"]
            if not edges:
                continue
            if any(isinstance(inst.process.edges[n].guard, ElseGuard)
                   and inst.process.edges[n].comm is None for n in edges):
                ready = "true"  # the else option or one of its siblings is enabled
            else:
                ready = disj([self.exec_text(k, n) for n in edges])
            out.append(conj([f"{self.pc(k)} == {lid}", ready]))
        out += [self.death_ready(k, loc.id) for loc in inst.process.locations
                if loc.terminal and (loc.atomic or not atomic_only)]
        return disj(out)

    def has_step(self, h: int) -> str:
        """Return when instance ``h`` has a step."""
        if h not in self._has_step:
            self._has_step[h] = self.any_step(h, with_timeouts=True)
        return self._has_step[h]

    def allowed(self, involved: Sequence[int]) -> str:
        """Return when a step of ``involved`` passes Promela's atomicity: no other
        instance holds ``bridge_excl`` while it can move (semantics/statespace.py).
        ``bridge_excl == h`` only right after a step of ``h`` into an atomic sequence
        (every step of another instance or a death resets it), so only ``h``'s steps from
        atomic locations matter."""
        ranked = self.outranked(involved)
        if not self.holders:
            return ranked
        return conj([ranked, neg(self.holding([h for h in self.holders if h not in involved]))])

    def holding(self, holders: Sequence[int]) -> str:
        """Return when one of ``holders`` holds atomicity and can move on (its steps
        from atomic locations, priority scheduling passed)."""
        if not hasattr(self, "_held"):
            self._held = {h: conj([self.any_step(h, with_timeouts=True, atomic_only=True),
                                   self.outranked([h])]) for h in self.holders}
        return disj([conj([f"bridge_excl == {h}", self._held[h]]) for h in holders])

    def outranked(self, involved: Sequence[int]) -> str:
        """Return when a step of ``involved`` passes priority scheduling (pan's
        highest_priority): no other instance with a higher priority than all of them
        has a step. "true" without priorities."""
        if not self.system.priority_scheduling:
            return "true"
        out = []
        for j in range(len(self.insts)):
            if j in involved:
                continue
            higher = conj([f"{self.prio(j)} > {self.prio(k)}" for k in involved])
            out.append(conj([higher, self.has_step(j)]))
        return neg(disj(out))

    def youngest(self, k: int) -> str:
        if self.uses["nr"]:
            if self.insts[k].static:
                return f"bridge_nr == {k + 1}"
            return f"bridge_nr == {self.pid(k)} + 1"
        return conj([f"{self.pc(j)} == -1" for j in range(k + 1, len(self.insts))])

    def death_ready(self, k: int, lid: int) -> str:
        process = self.insts[k].process
        parts = [f"{self.pc(k)} == {lid}", self.youngest(k)]
        if process.provided is not None:
            parts.append(self.writer(k).cond(process.provided))
        return conj(parts)

    def at_end(self, k: int) -> str:
        ends = [loc.id for loc in self.insts[k].process.locations if loc.end or loc.terminal]
        return disj([f"{self.pc(k)} == {x}" for x in [-1, *ends]])

    # -- rendezvous -------------------------------------------------------------------
    def plan_pairs(self) -> None:
        """Find every send/receive pair that may meet on a rendezvous channel."""
        self.pairs: list[_Pair] = []
        self.pairs_by_edge: dict[tuple[int, int], list[_Pair]] = {}
        if not self.has_rendezvous:
            return
        rv = {c.number for c in self.plan.channels if c.channel.capacity == 0}
        sends: list[tuple[int, int, frozenset[int]]] = []
        recvs: list[tuple[int, int, frozenset[int]]] = []
        for inst in self.insts:
            for n, e in enumerate(inst.process.edges):
                if e.comm is None or self.edge_kind(e) != "normal":
                    continue
                values = self.flow.values(inst.index, e.comm.channel)
                if TOP <= values:
                    values = frozenset(rv)
                values = values & rv
                if not values:
                    continue
                (sends if isinstance(e.comm, Send) else recvs).append((inst.index, n, values))
        for i, e, sv in sends:
            for j, f, rvals in recvs:
                if i == j or not (sv & rvals):
                    continue
                send = self.insts[i].process.edges[e].comm
                recv = self.insts[j].process.edges[f].comm
                assert isinstance(send, Send) and isinstance(recv, Receive)
                if len(send.args) != len(recv.args) or recv.random or recv.peek:
                    if recv.random or recv.peek:
                        raise refuse(recv.span, "a random or peeking receive (?? or ?<>) "
                                      "on a rendezvous channel")
                    continue
                pair = self._make_pair(i, e, j, f)
                if pair is None:
                    continue
                self.pairs.append(pair)
                if len(self.pairs) > MAX_PAIRS:
                    raise refuse(send.span, "this many rendezvous pairs (one CSP# channel "
                                  "each)")
                self.pairs_by_edge.setdefault((i, e), []).append(pair)
                self.pairs_by_edge.setdefault((j, f), []).append(pair)

    def pairs_of(self, k: int, n: int) -> list[_Pair]:
        return self.pairs_by_edge.get((k, n), [])

    def _make_pair(self, i: int, e: int, j: int, f: int) -> _Pair | None:
        se = self.insts[i].process.edges[e]
        re = self.insts[j].process.edges[f]
        send, recv = se.comm, re.comm
        assert isinstance(send, Send) and isinstance(recv, Receive)
        ws, wr = self.writer(i), self.writer(j)
        sref, rref = ws.channel(send.channel), wr.channel(recv.channel)
        conds: list[str] = []
        same: list[str] = []
        for sc, stext, sstatic in sref.cases:
            for rc, rtext, rstatic in rref.cases:
                known = [x for x in (sstatic, rstatic) if x is not None]
                if any(self.plan.channel(x).channel.capacity != 0 for x in known):
                    continue
                if len(known) == 2:
                    if sstatic == rstatic:
                        same.append(conj([*sc, *rc]))
                elif known:
                    same.append(conj([*sc, *rc, f"{stext} == {rtext}"]))
                else:
                    same.append(conj([*sc, *rc, f"{stext} == {rtext}", self.valid_channel(stext),
                                       f"bridge_cap[{stext}] == 0"]))
        if not same:
            return None
        conds.append(disj(same))
        field_types = self._field_types(sref)
        values = [ws.num(a) for a in send.args]
        for n, (v, arg) in enumerate(zip(values, recv.args, strict=True)):
            if isinstance(arg, RecvMatch):
                ft = field_types[n] if field_types else None
                stored = combine([v], lambda x, ft=ft: wrap(x[0], ft), send.span)
                conds.append(bool_of(combine([stored, wr.num(arg.value)],
                                               lambda x: f"{x[1]} == {x[0]}", recv.span)))
        name = self._fresh(f"rv_{self.insts[i].name}_e{e}_{self.insts[j].name}_e{f}")
        block: list[str] = []
        temps: list[str] = []
        for n, v in enumerate(values):
            t = f"bridge_m{next(self.temp)}"
            ft = field_types[n] if field_types else None
            block += ws.assign_text(t, v, ft, declare=True, span=send.span)
            temps.append(t)
        block += ws.effects(se.effect, "false")
        block += self.moves(i, se, sender=True)
        for n, arg in enumerate(recv.args):
            if isinstance(arg, RecvBind) and arg.target is not None:
                block += wr.store(arg.target, Alts.one(temps[n]), arg.span)
        block += wr.effects(re.effect, "false")
        block += self.moves(j, re, receiver=True)
        block += self._last(j)
        return _Pair(i, e, j, f, name, conj(conds), block)

    def _field_types(self, ref: ChanRef) -> tuple[Type, ...] | None:
        statics = {s for _, _, s in ref.cases}
        if len(statics) == 1 and None not in statics:
            (s,) = statics
            assert s is not None
            return self.plan.channel(s).channel.fields
        return None

    def pair_ready(self, p: _Pair) -> str:
        si = self.insts[p.i].process.edges[p.e]
        rj = self.insts[p.j].process.edges[p.f]
        ws, wr = self.writer(p.i), self.writer(p.j)
        return conj([f"{self.pc(p.i)} == {si.source}",
                      ws.cond(si.guard) if si.guard is not None else "true",
                      f"{self.pc(p.j)} == {rj.source}",
                      wr.cond(rj.guard) if rj.guard is not None else "true",
                      p.cond])

    def moves(self, k: int, e: Edge, receiver: bool = False, sender: bool = False) -> list[str]:
        """Return the bookkeeping of instance ``k`` taking edge ``e``: its new control
        location and Promela's exclusivity (semantics/statespace.py; a rendezvous
        passes control to the receiver: its ``sender`` lets go of it, edgecode)."""
        out = []
        if e.target != e.source:
            out.append(f"{self.pc(k)} = {e.target};")
        if self.uses["excl"]:
            target_atomic = self.locations[k][e.target].atomic if e.target in self.locations[k] else False
            if target_atomic and not sender:
                out.append(f"bridge_excl = {k};")
            elif not receiver:
                out.append("bridge_excl = -1;")
        return out

    # -- xr / xs channel assertions ---------------------------------------------------
    def claim_owner_other(self, k: int, c: str, bit: int) -> str:
        """Return when another instance than ``k`` holds the ``xr`` (bit 1) or ``xs``
        (bit 2) claim on channel number ``c``: a global channel's claim stays with the
        claimant's pid (``bridge_claim``), a process channel's is a live claimant's."""
        nglobal = len(self.system.channels)
        out = []
        if nglobal:
            slot = f"bridge_claim[2 * {c} + {bit - 1}]"
            mine = f"{slot} != {self.pid(k)} + 1"
            out.append(conj([f"{c} <= {nglobal}", f"{slot} != 0", mine]))
        local = []
        for j, claims in self.claims.items():
            if j == k:
                continue
            w = self.writer(j)
            for kbit, expr, _ in claims:
                if kbit == bit:
                    local.append(conj([f"{self.pc(j)} != -1",
                                        bool_of(combine([w.num(expr)],
                                                          lambda v: f"{v[0]} == {c}", None))]))
        if local:
            out.append(conj([f"{c} > {nglobal}", disj(local)]))
        return disj(out)

    def claim_violation(self, k: int, e: Edge) -> str:
        """Return when instance ``k`` trying edge ``e`` breaks another's claim: a receive
        (xr) or send (xs) on a claimed channel, or a query or poll of it in the guard
        (either claim), as pan's default build checks (ir/model.py ChannelAssertion)."""
        if not self.claims:
            return "false"
        w = self.writer(k)
        uses: list[tuple[Expr, tuple[int, ...]]] = []
        if e.comm is not None:
            uses.append((e.comm.channel, (1,) if isinstance(e.comm, Receive) else (2,)))
        if e.guard is not None and not isinstance(e.guard, ElseGuard):
            for x in iter_subexpressions(e.guard):
                if isinstance(x, ChanQuery | ChanPoll):
                    uses.append((x.channel, (1, 2)))
        out = []
        for channel, bits in uses:
            for conds, c, _ in w.channel(channel).cases:
                out.append(conj([*conds, disj([self.claim_owner_other(k, c, b)
                                                 for b in bits])]))
        return disj(out)

    def claim_on_start(self, k: int, index: str, w: Writer) -> list[str]:
        """Return the claims of a new instance (slot ``k`` at ``index``), pan's
        setq_claim: an unset channel, a rendezvous channel or another's claim is an
        error; a global channel's claim is recorded with the pid."""
        out: list[str] = []
        nglobal = len(self.system.channels)
        for bit, expr, span in self.claims.get(k, []):
            t = f"bridge_x{next(self.temp)}"
            out += w.assign_text(t, w.num(expr), None, declare=True, span=span)
            pid = self.pid(k, index)
            slot = f"bridge_claim[2 * {t} + {bit - 1}]"
            others = []
            for j, claims in self.claims.items():
                if j in self.slot_of and self.slot_of[j][0] == self.slot_of.get(k, ("", 0))[0]:
                    pool_j = True
                else:
                    pool_j = False
                wj = self.writer(j)
                for kbit, other, _ in claims:
                    if kbit != bit:
                        continue
                    same = bool_of(combine([wj.num(other)],
                                             lambda v, t=t: f"{v[0]} == {t}", None))
                    alive = f"{self.pc(j)} != -1"
                    if pool_j:
                        alive = conj([alive, f"{self.pid(j)} != {pid}"])
                    others.append(conj([alive, same]))
            local_clash = disj(others)
            global_part = (f"if ({slot} == 0) {{ {slot} = {pid} + 1; }} else if ({slot} != "
                           f"{pid} + 1) {{ bridge_failed = 1; }}") if nglobal else ""
            out.append(f"if ({t} == 0 || bridge_cap[{t}] == 0) {{ bridge_failed = 1; }} "
                       + (f"else if ({t} <= {nglobal}) {{ {global_part} }} " if nglobal else "")
                       + (f"else if ({local_clash}) {{ bridge_failed = 1; }}"
                          if local_clash != "false" else ""))
        return out

    # -- processes --------------------------------------------------------------------
    def options(self, k: int) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """Return the local options of instance ``k`` (under its atomicity guard) and
        its rendezvous options (each with its own)."""
        inst = self.insts[k]
        w = self.writer(k)
        local: list[tuple[str, str]] = []
        for n, e in enumerate(inst.process.edges):
            kind = self.edge_kind(e)
            if kind == "else":
                guard = self.exec_text(k, n)
            elif kind == "timeout":
                guard = w.cond(e.guard, timeout=self.timeout_text())  # type: ignore[arg-type]
            else:
                guard = self.normal_guard(k, e)
            pc = f"{self.pc(k)} == {e.source}"
            event = self._fresh(f"{inst.name}_e{n}")
            note = _note(e)
            claimed = self.claim_violation(k, e)
            if claimed != "false":
                self.failable = True
                local.append(_option(conj([pc, claimed if kind == "else" else
                                            conj([guard, claimed])]),
                                     self._fresh(f"{event}_claim"),
                                     ["bridge_failed = 1;", *self._last(k)],
                                     f"{self.proc_names[k]}(m)",
                                     "xr/xs assertion violated: " + note))
            if e.comm is None:
                flag = "false"
                if kind == "timeout":
                    if not _needs_timeout(e.guard):
                        # (timeout || x == 3) is also taken in pan's normal pass
                        for st, _ in iter_statements(e.effect):
                            for x in _stmt_exprs(st):
                                if any(isinstance(y, Builtin) and y.name == "timeout"
                                       for y in iter_subexpressions(x)):
                                    raise refuse(x.span or e.span, "'timeout' read in the "
                                                 "effect of an option whose guard holds "
                                                 "without it")
                    flag = "true"
                body = w.effects(e.effect, flag) + self.moves(k, e) + self._last(k)
                local.append(_option(conj([pc, guard]), event, body, f"{self.proc_names[k]}(m)", note))
                continue
            if kind != "normal":
                raise refuse(e.span, "an 'else' or 'timeout' option that starts with a "
                              "channel operation")
            ready, body = w.comm_block(e.comm)
            if ready != "false":
                body = body + w.effects(e.effect, "false") + self.moves(k, e) + self._last(k)
                local.append(_option(conj([pc, guard, ready]), event, body,
                                     f"{self.proc_names[k]}(m)", note))
            error = w.comm_error(e.comm)
            if error != "false":
                self.failable = True
                local.append(_option(conj([pc, guard, error]), self._fresh(f"{event}_error"),
                                     ["bridge_failed = 1;", *self._last(k)],
                                     f"{self.proc_names[k]}(m)",
                                     "a model error: " + note))
        for loc in inst.process.locations:
            if loc.terminal:
                local.append(_option(self.death_ready(k, loc.id),
                                     self._fresh(f"{inst.name}_end"), self.death(k),
                                     f"{self.proc_names[k]}(m)",
                                     "the process dies (youngest first)"))
        rendezvous: list[tuple[str, str]] = []
        for p in self.pairs:
            # PAT documents a block after a channel output (cspsharp.md section 3.1):
            # the whole joint step is the sender's block; the receiver only takes part.
            if p.i == k:
                cond = conj([self.pair_ready(p), *self.turn_guards(),
                              self.allowed([p.i, p.j])])
                rendezvous.append((f"([{cond}] {p.name}!0{{{' '.join(p.block)}}} -> "
                                   f"{self.proc_names[k]}(m))",
                                   f"{_note(inst.process.edges[p.e])} to "
                                   f"{self.insts[p.j].label}"))
            if p.j == k:
                rendezvous.append((f"({p.name}?0 -> {self.proc_names[k]}(m))",
                                   f"{_note(inst.process.edges[p.f])} from "
                                   f"{self.insts[p.i].label}"))
        return local, rendezvous

    def _last(self, k: int) -> list[str]:
        """Return the bookkeeping every step of instance ``k`` ends with: ``_last``, and
        with a never claim, the claim's turn."""
        out = [f"bridge_last = {self.pid(k)};"] if self.uses["last"] else []
        if self.claim is not None:
            out.append("bridge_turn = 0;")
        return out

    def turn_guards(self) -> list[str]:
        """Return the conditions of every system step: with ``m == 1`` (the safety
        check) a failed assertion stops the model; with ``m == 2`` (a never claim) the
        claim moves between system steps."""
        out = ["(m != 1 || bridge_failed == 0)"]
        if self.claim is not None:
            out.append("(m != 2 || bridge_turn == 1)")
        return out

    def readable(self) -> tuple[str, list[str]]:
        """Return the name of the proposition "SPIN's claim reads this state" (no holder
        of atomicity can move on; README, "Promela as pan runs it") and its ``#define``
        the first time it is asked for (else no line)."""
        if getattr(self, "_readable", None) is not None:
            return self._readable, []
        self._readable = self._fresh("bridge_read")
        return self._readable, [f"#define {self._readable} {neg(self.holding(self.holders))};"
                                "  // SPIN's claim reads this state (no holder of atomicity "
                                "can move on)"]

    def claim_process(self, name: str) -> list[str]:
        """Return the never claim as a CSP# process that moves before every system step
        and once more whenever the system cannot move (SPIN's stutter extension),
        reading the current state, as the native check (fairness/never.py)."""
        claim = self.claim
        assert claim is not None
        w = self.writer(None)
        options: list[tuple[str, str]] = []
        by_source: dict[int, list] = {}
        for e in claim.edges:
            if e.comm is not None or e.effect:
                raise refuse(e.span or claim.span, f"the never claim statement '{e.text}' "
                              "with side effects")
            by_source.setdefault(e.source, []).append(e)
        # SPIN's claim does not step in a state whose holder of atomicity can move on:
        # there it passes its turn without reading the state.
        read, define = self.readable() if self.holders else ("true", [])
        if self.holders:
            options.append(_option(conj(["bridge_turn == 0", neg(read)]),
                                   self._fresh("claim_wait"), ["bridge_turn = 1;"], f"{name}()",
                                   "inside an atomic sequence: SPIN's claim does not step"))
        for lid, edges in sorted(by_source.items()):
            guards: list[str] = []
            for e in edges:
                guards.append("true" if e.guard is None or isinstance(e.guard, ElseGuard)
                              else w.cond(e.guard))
            plain = [g for g, e in zip(guards, edges, strict=True)
                     if not isinstance(e.guard, ElseGuard)]
            for n, (g, e) in enumerate(zip(guards, edges, strict=True)):
                if isinstance(e.guard, ElseGuard):
                    g = neg(disj(plain))
                guard = conj(["bridge_turn == 0", read, f"bridge_claim == {lid}", g])
                options.append(_option(guard, self._fresh(f"claim_L{lid}_{n}"),
                                       [f"bridge_claim = {e.target};", "bridge_turn = 1;"],
                                       f"{name}()", "claim: " + _note(e)))
            blocked = conj(["bridge_turn == 0", read, f"bridge_claim == {lid}",
                             neg(disj(guards))])
            if blocked != "false":
                options.append(_option(blocked, self._fresh(f"claim_L{lid}_blocked"),
                                       ["bridge_claim = -2;"], f"{name}()",
                                       "no option of the claim: the run is cut"))
        for loc in claim.locations:
            if loc.terminal:
                options.append(_option(conj(["bridge_turn == 0", f"bridge_claim == {loc.id}"]),
                                       self._fresh("claim_end"), ["bridge_turn = 1;"], f"{name}()",
                                       "the claim has terminated: it matched"))
        stuck = neg(disj([self.has_step(k) for k in range(len(self.insts))]))
        options.append(_option(conj(["bridge_turn == 1", stuck]), self._fresh("claim_stutter"),
                               ["bridge_turn = 0;"], f"{name}()",
                               "the system cannot move: its last state repeats"))
        body = [f"    {'   ' if n == 0 else '[] '}{text}{';' if n == len(options) - 1 else ''}"
                f"  // {note}" for n, (text, note) in enumerate(options)]
        return [*define, f"{name}() =", *body]

    def death(self, k: int) -> list[str]:
        """Return the block of instance ``k``'s death: its variables and channels return
        to their dead values (zeros, capacity -1) so states compare as in the engine."""
        inst = self.insts[k]
        out: list[str] = []
        for name in self.local_names[k]:
            cname, offset, size = self.local_var(k, name)
            t = self.local_types[k].get(name)
            if offset is None and not isinstance(t, ArrayType):
                out.append(f"{cname} = 0;")
            else:
                out += _zero_range(cname, int(offset or 0), size, self)
        for number in inst.channels.values():
            out.append(f"bridge_cap[{number}] = -1;")
            cap = self.plan.channel(number).channel.capacity
            if cap > 0:
                out.append(f"bridge_len[{number}] = 0;")
                out += _zero_range("bridge_buf", number * self.width, self.width, self)
        out.append(f"{self.pc(k)} = -1;")
        if k in self.slot_of:
            out.append(f"{self.pid(k)} = 0;")
            prefix = self.pool_prefix[self.slot_of[k][0]]
            out.append(f"bridge_n_{prefix} = bridge_n_{prefix} - 1;")
        if self.system.priority_scheduling:
            out.append(f"{self.prio(k)} = 0;")
        if self.uses["nr"]:
            out.append("bridge_nr = bridge_nr - 1;")
        if self.uses["excl"]:
            out.append("bridge_excl = -1;")
        out += self._last(k)
        return out

    def start(self, run: Run, creator: int, span: Span | None) -> list[str]:
        """Return the block of ``run P(args)`` executed by ``creator``: the lowest dead
        slot of ``P``'s pool wakes with pid ``bridge_nr`` (SPIN's rule)."""
        slots = self.plan.pools.get(run.proctype, [])
        process = self.system.process(run.proctype)
        if len(run.args) != len(process.parameters):
            raise UnsupportedError.at(span, f"'run {run.proctype}' passes {len(run.args)} "
                                      f"arguments for {len(process.parameters)} parameters")
        self.failable = True
        w = self.writer(creator)
        head: list[str] = []
        temps: list[str] = []
        fixed = self.constants.get(run.proctype, {})
        for p, a in zip(process.parameters, run.args, strict=True):
            if p in fixed:
                temps.append("")  # written as the constant in the process
                continue
            t = f"bridge_a{next(self.temp)}"
            head += w.assign_text(t, w.num(a), None, declare=True, span=span)
            temps.append(t)
        if not slots:
            raise UnsupportedError.at(span, f"'run {run.proctype}': no process slot planned")
        first = slots[0]
        prefix = self.pool_prefix[run.proctype]
        index = f"bridge_s{next(self.temp)}"
        ws = Writer(self, first, index)
        body: list[str] = [f"{self.pid(first, index)} = bridge_nr;",
                           "bridge_nr = bridge_nr + 1;",
                           f"bridge_n_{prefix} = bridge_n_{prefix} + 1;"]
        limit = [f"bridge_nr >= {self.system.max_instances}", f"{index} >= {len(slots)}"]
        if self.system.priority_scheduling:
            level = "1"
            if run.priority is not None:
                level = f"bridge_r{next(self.temp)}"
                head += w.assign_text(level, w.num(run.priority), None, declare=True, span=span)
                limit += [f"{level} < 1", f"{level} > 255"]  # pan: priority is out of range
            body.append(f"{self.prio(first, index)} = {level};")
        for p, t in zip(process.parameters, temps, strict=True):
            if p in self.local_names[first]:
                cname, offset, _ = self.local_var(first, p, index)
                body.append(f"{cname}[{offset}] = {wrap(t, self.local_types[first].get(p))};")
        for v in process.locals:
            if v.name in process.parameters or v.init is None:
                continue
            body += ws.initialise(v.name, v.type, v.init, v.span)
        for c in process.channels:
            body.append(f"bridge_cap[{self.chan_number(first, c.name, index)}] = {c.capacity};")
        body += self.claim_on_start(first, index, ws)
        body.append(f"{self.pc(first, index)} = {process.initial};")
        if run.target is not None:
            body += w.store(run.target, Alts.one(self.pid(first, index)), span)
        # the live instances of a pool fill its first slots (youngest dies first)
        return head + [f"var {index} = bridge_n_{prefix};",
                       f"if ({' || '.join(limit)}) "
                       f"{{ bridge_failed = 1; }} else {{ {' '.join(body)} }}"]

    # -- output -------------------------------------------------------------------------
    def initial_claims(self) -> tuple[list[int], int]:
        """Return the global claim table after the static instances' claims (pid order)
        and 1 if one of those claims is already an error (pan reports it at once)."""
        nglobal = len(self.system.channels)
        table = [0] * (2 * (nglobal + 1))
        failed = 0
        local: dict[tuple[int, int], int] = {}
        for k, claims in sorted(self.claims.items()):
            if not self.insts[k].static:
                continue
            for bit, expr, span in claims:
                c = self._eval(expr, k, self.initial_values)
                if c is None:
                    raise refuse(span, "an xr/xs claim on a channel known only at run time")
                if c == 0 or c > len(self.plan.channels) or \
                        self.plan.channel(c).channel.capacity == 0:
                    failed = 1
                elif c <= nglobal:
                    if table[2 * c + bit - 1] not in (0, k + 1):
                        failed = 1
                    table[2 * c + bit - 1] = k + 1
                elif local.setdefault((c, bit), k) != k:
                    failed = 1
        if failed:
            self.failable = True
        return table, failed

    def declarations(self) -> list[str]:
        out: list[str] = ["// globals (Promela booleans are 0/1 integers)"]
        for v in self.system.globals:
            out.append(_declare(self.global_names[v.name], v.type,
                                self.initial_values[(None, v.name)], v.hidden))
        for inst in self.insts:
            k = inst.index
            if not inst.static:
                continue
            out.append(f"// {inst.label}: proctype {inst.process.name}, pid {k}")
            for name, cname in self.local_names[k].items():
                t = self.local_types[k][name]
                vals = self.initial_values.get((k, name))
                if vals is None:
                    dims, _ = array_dims(t)
                    vals = [0] * (cell_count(dims) if dims else 1)
                out.append(_declare(cname, t, vals, False))
            out.append(f"var {self.pc(k)} = {inst.process.initial};")
            if self.system.priority_scheduling:
                out.append(f"var {self.prio(k)} = {self.system.instances[k].priority};")
        for pool, slots in self.plan.pools.items():
            prefix = self.pool_prefix[pool]
            first = slots[0]
            out.append(f"// proctype {pool}: {len(slots)} process(es) started by run, "
                       f"variables indexed by slot (the live ones fill the first slots)")
            for name, cname in self.local_names[first].items():
                _, _, size = self.local_var(first, name)
                out.append(f"var {cname}[{size * len(slots)}];")
            out.append(f"var bridge_pc_{prefix} = [{', '.join(['-1'] * len(slots))}];  "
                       "// -1: not running")
            out.append(f"var bridge_pid_{prefix}[{len(slots)}];")
            if self.system.priority_scheduling:
                out.append(f"var bridge_prio_{prefix}[{len(slots)}];  // 0: not running")
            out.append(f"var bridge_n_{prefix} = 0;  // running {pool} processes")
        out.append("// bookkeeping")
        if self.uses["nr"]:
            statics = sum(1 for inst in self.insts if inst.static)
            out.append(f"var bridge_nr = {statics};  // _nr_pr")
        if self.uses["excl"]:
            out.append("var bridge_excl = -1;  // the instance inside an atomic sequence")
        if self.uses["last"]:
            out.append("var bridge_last = 0;  // _last")
        if self.has_channels:
            caps = [-1]
            for c in self.plan.channels:
                alive = c.owner is None or self.insts[c.owner].static
                caps.append(c.channel.capacity if alive else -1)
            out.append(f"var bridge_cap = [{', '.join(str(c) for c in caps)}];  "
                       "// capacity by channel number (-1: no such channel now)")
            out.append(f"var bridge_len[{self.nchan + 1}];  // messages in each channel")
            out.append(f"var bridge_buf[{(self.nchan + 1) * self.width}];  // channel c, "
                       f"message j, field f at c * {self.width} + j * {self.fields} + f")
        claims, failed = self.initial_claims()
        if self.claims and self.system.channels:
            out.append(f"var bridge_claim = [{', '.join(str(v) for v in claims)}];  // xr, xs "
                       "of global channel c at 2c, 2c+1: the claimant's pid + 1")
        out.append(f"var bridge_failed = {failed};  // 1: an assertion failed or a model error")
        if self.claim is not None:
            out.append(f"var bridge_claim = {self.claim.initial};  // the never claim's "
                       "location (-2: it has no option, the run is cut)")
            out.append("var bridge_turn = 0;  // with the claim: 0 claim moves, 1 system moves")
        return out


def _chan_typed(t: Type) -> bool:
    while isinstance(t, ArrayType):
        t = t.element
    return isinstance(t, ChanType)


def _note(e: Edge) -> str:
    text = " ".join((e.text or "").split())
    if len(text) > 60:
        text = text[:57] + "..."
    line = f"line {e.span.line}: " if e.span is not None else ""
    return (line + text).replace("*/", "* /")


def _option(guard: str, event: str, body: list[str], then: str, note: str) -> tuple[str, str]:
    block = "{" + " ".join(body) + "}" if body else ""
    head = f"[{guard}] " if guard != "true" else ""
    return f"({head}{event}{block} -> {then})", note


def _declare(name: str, t: Type, values: list[int], hidden: bool) -> str:
    kw = "hvar" if hidden else "var"
    dims, _ = array_dims(t)
    if not dims:
        return f"{kw} {name} = {values[0]};"
    if all(v == 0 for v in values):
        return f"{kw} {name}[{cell_count(dims)}];"
    return f"{kw} {name} = [{', '.join(str(v) for v in values)}];"


def _zero(name: str, size: int | None, em: _Emitter) -> list[str]:
    if size is None:
        return [f"{name} = 0;"]
    return _zero_range(name, 0, size, em)


def _zero_range(name: str, start: int, count: int, em: _Emitter) -> list[str]:
    if count <= 8:
        return [f"{name}[{start + x}] = 0;" for x in range(count)]
    t = f"bridge_z{next(em.temp)}"
    return [f"var {t} = {start};", f"while ({t} < {start + count}) {{ {name}[{t}] = 0; "
            f"{t} = {t} + 1; }}"]


_RESERVED = frozenset(x.lower() for x in (
    "var", "hvar", "channel", "enum", "define", "assert", "alphabet", "import", "include",
    "if", "ifa", "ifb", "else", "while", "case", "default", "atomic", "interrupt", "Skip",
    "Stop", "tau", "true", "false", "call", "new", "deadlockfree", "divergencefree",
    "deterministic", "nonterminating", "reaches", "refines", "with", "min", "max", "xor",
    "init", "G", "F", "X", "U", "R", "V", "W", "wf", "sf", "wl", "sl", "m",
))
# ---------------------------------------------------------------------------------
# Properties


def _properties(em: _Emitter, props: Sequence[Property], root: str,
                claim_root: str | None) -> list[str]:
    out: list[str] = []
    defines: dict[str, str] = {}
    w = em.writer(None)
    # SPIN's claim does not read a state whose holder of atomicity can move on (README,
    # "Promela as pan runs it"); PAT's automaton reads every state. Each state atom p
    # is read as its value at the next state SPIN's claim reads, (!r U (r && p)): the
    # run the automaton sees then stutters where SPIN's claim waits, which LTL without
    # X does not tell apart (so X is refused here). A run that never leaves an atomic
    # sequence (pan does not terminate on it) reads every atom false from there on.
    readable: str | None = None
    if em.holders and any(p.kind in (PropertyKind.LTL, PropertyKind.NEVER) for p in props):
        readable, define = em.readable()
        out += define

    def atom(a: LtlState) -> str:
        text = w.cond(a.expr)
        if text in ("true", "false"):
            return text
        if text not in defines:
            defines[text] = em._fresh(f"bridge_p{len(defines)}")
            out.append(f"#define {defines[text]} {text};  // {' '.join(a.text.split())}")
        return defines[text]

    def ltl(f: Ltl) -> str:
        if isinstance(f, LtlConst):
            return "true" if f.value else "false"
        if isinstance(f, LtlState):
            if readable is not None:
                return f"(!{readable} U ({readable} && {atom(f)}))"
            return atom(f)
        if isinstance(f, LtlEvent):
            raise refuse(f.span, f"the event atom '{f.name}' of a Promela formula")
        if isinstance(f, LtlUnary):
            if f.op == "X" and readable is not None:
                raise refuse(None, "the next-time operator X over a model with atomic "
                             "sequences (SPIN's claim skips the states inside them)")
            op = {"G": "[]", "F": "<>", "X": "X", "!": "!"}[f.op]
            return f"{op}({ltl(f.operand)})"
        if isinstance(f, LtlBinary):
            a, b = ltl(f.left), ltl(f.right)
            if f.op == "W":
                return f"(([]({a})) || (({a}) U ({b})))"
            return f"(({a}) {f.op} ({b}))"
        raise refuse(None, type(f).__name__)

    asserts: list[str] = []
    for p in props:
        if p.kind is PropertyKind.LTL and p.formula is not None:
            formula = ltl(p.formula)
            asserts.append(f"// {p.name}: {' '.join(p.text.split())}")
            asserts.append(f"#assert {root}(0) |= {formula};")
        elif p.kind is PropertyKind.SAFETY:
            asserts.append(f"// {p.name}: assertions and invalid end states (SPIN's safety "
                           "check): NOT VALID iff an assertion can fail or the model can "
                           "block with a process outside an end state")
            asserts.append(f"#assert {root}(1) deadlockfree;")
        elif p.kind is PropertyKind.INVARIANT and p.condition is not None:
            asserts.append(f"#assert {root}(0) |= [](" + atom(LtlState(p.condition, p.text))
                           + ");")
        elif p.kind is PropertyKind.DEADLOCK_FREE:
            asserts.append(f"#assert {root}(1) deadlockfree;")
        elif p.kind is PropertyKind.NON_PROGRESS:
            # a run that ends is no non-progress cycle: np_ must hold on real steps
            stuck = neg(disj([em.has_step(k) for k in range(len(em.insts))]))
            name = em._fresh("bridge_np_moving")
            out.append(f"#define {name} {conj([w.np(), neg(stuck)])};")
            asserts.append(f"// {p.name or 'non-progress'}: SPIN's non-progress cycles (pan -l)")
            asserts.append(f"#assert {root}(0) |= !(<>[] {name});")
        elif p.kind is PropertyKind.ACCEPTANCE:
            at = [f"{em.pc(inst.index)} == {loc.id}" for inst in em.insts
                  for loc in inst.process.locations if loc.accept]
            name = em._fresh("bridge_accepting")
            out.append(f"#define {name} {disj(at)};")
            asserts.append(f"// {p.name or 'acceptance'}: SPIN's acceptance cycles through "
                           "accept labels (pan -a)")
            asserts.append(f"#assert {root}(0) |= !([]<> {name});")
        elif p.kind is PropertyKind.NEVER and claim_root is not None and em.claim is not None:
            accept = [loc.id for loc in em.claim.locations if loc.accept or loc.terminal]
            name = em._fresh("bridge_claim_accepts")
            text = disj([f"bridge_claim == {x}" for x in accept])
            out.append(f"#define {name} {text};")
            asserts.append(f"// {p.name or 'never claim'}: violated iff the claim passes an "
                           "accept label infinitely often or terminates")
            asserts.append(f"#assert {claim_root}() |= !([]<> {name});")
        else:
            raise refuse(p.span, f"the property kind '{p.kind.value}'")
    return out + asserts


# ---------------------------------------------------------------------------------
# Entry point


def emit_csp(system: TransitionSystem, properties: Sequence[Property] | None = None,
             pool_sizes: Mapping[str, int] | None = None) -> str:
    """Return CSP# text for ``system`` (a Promela model) with its properties.

    ``pool_sizes`` bounds the instances of each proctype whose ``run`` statements may
    execute without a bound the control graph shows (``unbounded_runs``). Raises
    ``UnsupportedError`` naming the first construct CSP# lacks (module doc, README).
    """
    if system.language is not SourceLanguage.PROMELA:
        stack = [system.composition] if system.composition is not None else []
        while stack:
            node = stack.pop()
            if isinstance(node, Parallel):
                leaf: Composition = node
                while not isinstance(leaf, InstanceRef):
                    leaf = leaf.children[0]
                raise UnsupportedError.at(
                    system.instances[leaf.instance].span,
                    "the alphabetised parallel composition '||' (barrier synchronisation) "
                    "is not written back: translate the original model")
            if isinstance(node, Interleave):
                stack.extend(node.children)
        raise UnsupportedError.at(
            system.instances[0].span if system.instances else None,
            "translate --to csp reads Promela models (this model is already CSP#)")
    _refuse_reassigned_channels(system)
    plan = make_plan(system, pool_sizes)
    em = _Emitter(system, plan)
    props = list(properties if properties is not None else system.properties)
    if system.end_condition is not None and any(p.kind is PropertyKind.SAFETY for p in props):
        raise UnsupportedError.at(system.end_condition.span, "the end-state rule of a "
                                  "Promela trace/notrace "
                                  "(pan: 'event_trace not completed') has no CSP# form")
    if system.never is not None and any(p.kind is PropertyKind.NEVER for p in props):
        em.claim = system.never
    _scan_builtins(em, system, props)
    em.plan_pairs()
    processes: list[str] = []
    roots: list[str] = []
    for inst in plan.instances:
        k = inst.index
        local, rendezvous = em.options(k)
        name = em.proc_names[k]
        lines: list[tuple[str, str]] = []  # (text, comment)
        if local:
            guard = conj([*em.turn_guards(), em.allowed([k])])
            lines.append((f"[{guard}] (" if guard != "true" else "(", ""))
            for n, (text, note) in enumerate(local):
                lines.append((("       " if n == 0 else "    [] ") + text, note))
            lines.append(("  )", ""))
        for text, note in rendezvous:
            lines.append(((" [] " if lines else "") + text, note))
        lines.append(((" [] " if lines else "") + f"([m == 1 && bridge_failed == 0 && {em.at_end(k)}] Skip)",
                      "may end here (deadlock check)"))
        body = []
        for n, (text, note) in enumerate(lines):
            end = ";" if n == len(lines) - 1 else ""
            body.append(f"    {text}{end}" + (f"  // {note}" if note else ""))
        processes.append(f"{name}(m) =\n" + "\n".join(body))
        roots.append(f"{name}(m)")
    channels = [f"channel {p.name} 0;" for p in em.pairs]
    root = em._fresh("BridgeSystem")
    claim_root = None
    if em.claim is not None:
        claim_name = em._fresh("BridgeClaim")
        claim_root = em._fresh("BridgeNever")
        processes += em.claim_process(claim_name)
    properties_text = _properties(em, props, root, claim_root)
    header = [
        f"// {system.name}: written by bridge from {', '.join(system.source_files) or 'Promela'}",
        "// One Promela step is one PAT step. Check the Promela safety property with",
        f"// '{root}(1)' (an instance at an end state may terminate) and LTL with",
        f"// '{root}(0)' (blocked runs stutter, as in SPIN).",
    ]
    lines = [*header, *em.declarations()]
    if channels:
        lines += ["// one synchronous channel per rendezvous (send edge, receive edge)", *channels]
    lines += ["", *processes, "", f"{root}(m) = {' ||| '.join(roots)};"]
    if claim_root is not None:
        lines.append(f"{claim_root}() = {root}(2) ||| {claim_name}();  // the system and "
                     "its never claim, in turns")
    lines += ["", *properties_text]
    return "\n".join(lines) + "\n"


def _scan_builtins(em: _Emitter, system: TransitionSystem, props: Sequence[Property]) -> None:
    """Note which bookkeeping variables the model reads (before any text is written,
    since every step writes them)."""
    exprs: list[Expr] = []
    for p in system.processes:
        for e in p.edges:
            if e.guard is not None:
                exprs.append(e.guard)
            for s, _ in iter_statements(e.effect):
                exprs += _stmt_exprs(s)
            if e.comm is not None:
                exprs += _stmt_exprs(e.comm)
        if p.provided is not None:
            exprs.append(p.provided)
    for prop in props:
        if prop.condition is not None:
            exprs.append(prop.condition)
        if prop.formula is not None:
            exprs += [f.expr for f in ltl_nodes(prop.formula) if isinstance(f, LtlState)]
    for e in exprs:
        for x in iter_subexpressions(e):
            if isinstance(x, Builtin) and x.name == "_nr_pr":
                em.uses["nr"] = True
            if isinstance(x, Builtin) and x.name == "_last":
                em.uses["last"] = True


def _refuse_reassigned_channels(system: TransitionSystem) -> None:
    """Refuse a process-local channel whose name is assigned another channel (``chan
    mine = [1] of {byte}; mine = left``): the encoding numbers each local channel once
    and writes its name as that number, so a later assignment has no CSP# form."""
    for process in system.processes:
        names = {c.name for c in process.channels}
        for e in process.edges:
            stmts: list[Stmt] = [e.comm] if e.comm is not None else []
            for st, _ in iter_statements([*stmts, *e.effect]):
                for target in _targets(st):
                    if isinstance(target, Var) and target.scope == "local" \
                            and target.name in names:
                        raise refuse(target.span, f"the process-local channel '{target.name}' "
                                     "assigned another channel")


def _needs_timeout(guard: Expr | None) -> bool:
    """Return True if ``guard`` holds only with ``timeout`` (it is ``timeout`` or a
    conjunction with it): the option is taken in pan's timeout pass only."""
    if isinstance(guard, Builtin):
        return guard.name == "timeout"
    if isinstance(guard, Binary) and guard.op == "&&":
        return _needs_timeout(guard.left) or _needs_timeout(guard.right)
    return False


def _targets(s: Stmt) -> list[Expr]:
    """Return the variables a statement writes (assignment, receive, run's pid)."""
    if isinstance(s, Assign):
        return [s.target]
    if isinstance(s, Receive):
        return [a.target for a in s.args if isinstance(a, RecvBind) and a.target is not None]
    if isinstance(s, Run) and s.target is not None:
        return [s.target]
    if isinstance(s, LocalVar):
        return [Var(s.name, "block")]
    return []


def _stmt_exprs(s: Stmt) -> list[Expr]:
    if isinstance(s, Assign):
        return [s.target, s.value]
    if isinstance(s, If):
        return [c for c, _ in s.branches]
    if isinstance(s, While):
        return [s.cond]
    if isinstance(s, AssertStmt):
        return [s.cond]
    if isinstance(s, Send):
        return [s.channel, *s.args]
    if isinstance(s, Receive):
        return [s.channel, *[a.value for a in s.args if isinstance(a, RecvMatch)],
                *[a.target for a in s.args if isinstance(a, RecvBind) and a.target is not None]]
    if isinstance(s, Run):
        return list(s.args)
    if isinstance(s, LocalVar) and s.init is not None:
        return list(s.init) if isinstance(s.init, tuple) else [s.init]
    return []

