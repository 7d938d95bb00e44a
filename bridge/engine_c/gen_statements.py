"""The C generator's statements and edges: effects, channel operations (buffered and
rendezvous offers), the location functions of a process template with their deferred
``else`` and ``timeout`` options (``edgecode._gen_edge`` and ``_gen_comm_edge``;
issue 12).
"""
from __future__ import annotations

from bridge.engine_c.gen_base import (
    MAX_LOCAL_ARRAY,
    _Ctx,
)
from bridge.ir import (
    ArrayType,
    AssertStmt,
    Assign,
    Edge,
    ElseGuard,
    Expr,
    If,
    LocalVar,
    ObjectType,
    Print,
    Receive,
    RecvBind,
    Run,
    Send,
    SetPriority,
    Stmt,
    Var,
    While,
    scalar_count,
)
from bridge.semantics.codegen import (
    event_constant,
    event_is_constant,
    location_options,
)


class Statements:
    """The statement half of ``codegen.CGenerator`` (a mixin: its state is there)."""

    def stmts(self, body: tuple[Stmt, ...], ctx: _Ctx, out: list[str], ind: str) -> None:
        for st in body:
            self.stmt(st, ctx, out, ind)

    def stmt(self, st: Stmt, ctx: _Ctx, out: list[str], ind: str) -> None:
        if isinstance(st, Assign):
            if self.is_mixed(st.target, ctx):
                self.mixed_store(st.target, st.value, ctx, out, ind)
                return
            if (self.packed.has_library or ctx.block) \
                    and self.library_class(st.target, ctx) is not None:
                self.library_store(st.target, st.value, ctx, out, ind)
                return
            if self._is_array_value(st.value, ctx):
                self.copy_array(st.target, st.value, ctx, out, ind)
                return
            lit = self.fold(st.value)
            self.store(st.target, self.expr(st.value, ctx), ctx, out, ind, lit)
        elif isinstance(st, If):
            kw = "if"
            for cond, body in st.branches:
                out.append(f"{ind}{kw} ({self.cond(cond, ctx)}) {{")
                self.stmts(body, ctx, out, ind + "  ")
                out.append(f"{ind}}}")
                kw = "else if"
            if st.otherwise:
                out.append(f"{ind}else {{")
                self.stmts(st.otherwise, ctx, out, ind + "  ")
                out.append(f"{ind}}}")
        elif isinstance(st, While):
            guard = self.fresh("_w")
            out.append(f"{ind}{{ long {guard} = 0;")
            out.append(f"{ind}while (!c->err && !c->fallback && ({self.cond(st.cond, ctx)})) {{")
            out.append(f"{ind}  if (++{guard} > 10000000) {{ br_fail(c); break; }}")
            self.stmts(st.body, ctx, out, ind + "  ")
            out.append(f"{ind}}} }}")
        elif isinstance(st, LocalVar):
            if isinstance(st.type, ObjectType):
                self.library_block(st, ctx, out, ind)
                return
            cname = self.fresh("_bl")
            size = scalar_count(st.type)
            assert ctx.decls is not None
            if size == 1 and not isinstance(st.type, ArrayType):  # an array is one even of one cell
                if st.init is None or isinstance(st.init, tuple):
                    init, lit = "0", 0
                else:
                    init, lit = self.expr(st.init, ctx), self.fold(st.init)
                ctx.decls.append(f"V {cname} = 0;")
                ctx.block[st.name] = (cname, st.type)
                conv, _ = self.convert(init, st.type, lit)
                out.append(f"{ind}{cname} = {conv};")
            else:
                # a large array off the C stack: the engine runs one step at a time on
                # one thread and the declaration (re)initialises every cell below
                storage = "static " if size > MAX_LOCAL_ARRAY else ""
                ctx.decls.append(f"{storage}V {cname}[{size}];")
                if isinstance(st.init, tuple):
                    values = [self.expr(x, ctx) for x in st.init]
                    if len(values) != size:
                        raise self.unsupported(st.span, "a block array initialised with "
                                                        f"{len(values)} of {size} values")
                    for j, x in enumerate(values):
                        out.append(f"{ind}{cname}[{j}] = {x};")
                elif st.init is None:
                    out.append(f"{ind}memset({cname}, 0, sizeof {cname});")
                elif not self._is_array_value(st.init, ctx):
                    raise self.unsupported(st.span, "a block array initialised from an expression")
                else:  # a copy of an array, placed before the name is declared (var t = t)
                    src = self.place(st.init, ctx)
                    ctx.block[st.name] = (cname, st.type)
                    self.copy_places(self.place(Var(st.name, "block"), ctx, write=True), src,
                                     ctx, out, ind)
                ctx.block[st.name] = (cname, st.type)
        elif isinstance(st, AssertStmt):
            out.append(f"{ind}if (!({self.cond(st.cond, ctx)})) br_fail(c);")
        elif isinstance(st, Send):
            ch = self.fresh("_sc")
            msg = self.fresh("_sm")
            n = len(st.args)
            value = self.message_value if self.mixed_channel(st.channel) else self.expr
            vals = ", ".join(value(a, ctx) for a in st.args) or "0"
            self.claim_check(st.channel, 2, ctx, out, ind)
            out.append(f"{ind}{{ chan_t {ch} = {self.chan(st.channel, ctx)}; V {msg}[{max(1, n)}] = {{{vals}}};")
            out.append(f"{ind}  if ({ch}.cap == 0 || rd_k({ch}.lk, {ctx.src}, {ch}.off) >= {ch}.cap) br_fail(c);")
            # another number of values than the channel has fields: an error when the
            # send executes (pan's qsend; the Python engine's _send_now)
            out.append(f"{ind}  else if ({ch}.nf != {n}) br_fail(c);")
            out.append(f"{ind}  else ch_push(c, {ctx.src}, &{ch}, {msg}, {int(st.sorted)}); }}")
        elif isinstance(st, Receive):
            ch = self.fresh("_rc")
            m = self.fresh("_rm")
            j = self.fresh("_rj")
            pat, has, decl = self.pattern(st.args, ctx, st.channel)
            n = len(st.args)
            self.claim_check(st.channel, 1, ctx, out, ind)
            out.append(f"{ind}{{ chan_t {ch} = {self.chan(st.channel, ctx)}; {decl} V {m}[{self.max_fields}] = {{0}}; V {j} = -1;")
            out.append(f"{ind}  if ({ch}.cap == 0) br_fail(c);")
            out.append(f"{ind}  else if ({ch}.nf != {n}) br_fallback(c);")
            out.append(f"{ind}  else {{ {j} = ch_find({ctx.src}, &{ch}, {pat}, {has}, {n}, {int(st.random)}, 0);")
            out.append(f"{ind}    if ({j} < 0) br_fail(c); else ch_take({ctx.src}, &{ch}, {j}, {int(st.peek)}, {m}); }}")
            out.append(f"{ind}  if ({j} >= 0) {{")
            self.binds(st.args, m, ctx, out, ind + "    ", st.channel)
            out.append(f"{ind}  }} }}")
        elif isinstance(st, Run):
            tpl = self._template(st.proctype, st.span)
            n = len(st.args)
            args = self.fresh("_ra")
            vals = ", ".join(self.run_argument(tpl, j, a, ctx)
                             for j, a in enumerate(st.args)) or "0"
            out.append(f"{ind}{{ V {args}[{max(1, n)}] = {{{vals}}};")
            priority = "1" if st.priority is None else self.expr(st.priority, ctx)
            creator = -1 if ctx.pid is None else ctx.pid
            code = f"run_{tpl}(c, {ctx.src}, {args}, {n}, {priority}, {creator})"
            if st.target is not None:
                self.store(st.target, code, ctx, out, ind + "  ")
            else:
                out.append(f"{ind}  (void){code};")
            out.append(f"{ind}}}")
        elif isinstance(st, SetPriority):
            if not self.system.priority_scheduling or not self.layout.dynamic:
                raise self.unsupported(st.span, "set_priority() without priority scheduling")
            out.append(f"{ind}model_setprio(c, {ctx.src}, {self.expr(st.pid, ctx)}, "
                       f"{self.expr(st.value, ctx)}, {int(st.checked)});")
        elif isinstance(st, Print):
            pass
        else:
            raise self.unsupported(getattr(st, "span", None), type(st).__name__)

    def claim_check(self, channel: Expr, mask: int, ctx: _Ctx, out: list[str], ind: str) -> None:
        """Emit the ``xr`` (mask 1) or ``xs`` (mask 2) check of a receive or send on
        ``channel`` by the running instance (``semantics.codegen.claim_check``)."""
        if self.layout.claim_slot is None or ctx.pid is None:
            return
        out.append(f"{ind}xacc(c, {ctx.src}, {self.channel_id(channel, ctx)}, {ctx.pid}, {mask});")

    def binds(self, args, msg: str, ctx: _Ctx, out: list[str], ind: str,
              channel: Expr) -> None:
        mixed = self.mixed_channel(channel)
        for k, a in enumerate(args):
            if isinstance(a, RecvBind) and a.target is not None:
                target = self.is_mixed(a.target, ctx)
                if mixed and not target:
                    raise self.unsupported(getattr(a.target, "span", None), "a message that "
                                           "may carry a library value received into a "
                                           "variable that holds ints only")
                # a message of another channel holds ints only: into a slot that may
                # hold a library value, kept out of the ids' range
                value = f"mix_int(c, {msg}[{k}])" if target and not mixed else f"{msg}[{k}]"
                self.store(a.target, value, ctx, out, ind)

    def effect(self, e: Edge, ctx: _Ctx, ind: str) -> tuple[list[str], list[str]]:
        """Return (declarations, statements) of an edge's effect, run on ``t``."""
        ectx = ctx.with_src("t")
        ectx.block = {}
        ectx.decls = []
        body: list[str] = []
        self.stmts(e.effect, ectx, body, ind)
        return ectx.decls, body

    # ------------------------------------------------------------------ edges

    def _move_and_last(self, e: Edge, ctx: _Ctx, tpl: int, ind: str) -> tuple[list[str], list[str]]:
        """Return (move, last) statements of an edge taken by one instance."""
        lay = self.layout
        seg = self.packed.segments[tpl]
        move = []
        if e.target != e.source:
            move.append(f"{ind}wr_{seg.kinds[0].name}(t, {ctx.base} + {seg.offsets[0]}, {e.target});")
        last = []
        if lay.last_slot is not None:
            last.append(f"{ind}wr_u8(t, {self.static_off(lay.last_slot)}, {ctx.pid});")
        if lay.exclusive_slot is not None:
            atomic = e.target in self.space._atomic_sets[tpl]
            last.append(f"{ind}wr_i16(t, {self.static_off(lay.exclusive_slot)}, "
                        f"{ctx.pid if atomic else -1});")
        return move, last

    def _may_sync(self, e: Edge, sync: frozenset[str]) -> bool:
        if self._family_events is not None and id(e) in self._family_barriers:
            return True  # family code (gen_families): a barrier of every member
        if e.comm is not None:
            slot = self.static_channel(e.comm.channel)
            return slot is None or slot.capacity == 0
        if e.event is None or e.data_operation or not sync:
            return False
        if event_is_constant(self.pygen, e.event):
            return event_constant(self.pygen, e.event) in sync
        return True

    def gen_edge(self, lines: list[str], ind: str, ctx: _Ctx, tpl: int, k: int, e: Edge,
                 sync: frozenset[str], vector_edges: set[tuple[int, int]]) -> None:
        """Emit one edge (``edgecode._gen_edge``): enabled test, successor, commit."""
        comment = (e.text or "").replace("\n", " ").replace("*/", "* /")[:60]
        lines.append(f"{ind}/* edge {k}: {comment} */")
        guard = "1"
        if e.guard is not None and not isinstance(e.guard, ElseGuard):
            guard = self.cond(e.guard, ctx)
        label = self.family_label(tpl, k, str(ctx.pid))
        how = self._family_barriers.get(id(e)) if self._family_events is not None else None
        if how is not None:  # family code: a barrier of every member (gen_families)
            if how == "barrier" and guard != "1":
                lines.append(f"{ind}(void)({guard});")
            return
        if e.comm is None and e.event is not None and not e.data_operation and sync:
            if not event_is_constant(self.pygen, e.event):
                self._computed_barrier(lines, ind, ctx, tpl, k, e, guard, sync, label)
                return
            pid = int(ctx.pid)  # static systems only: a literal
            if (pid, k) in vector_edges:
                return  # taken by a synchronisation vector in model_successors
            if event_constant(self.pygen, e.event) in sync:
                if self.runtime_barriers:
                    self._barrier_offer(lines, ind, ctx, tpl, k, e, guard)
                    return
                # a barrier no vector completes: never taken, but Python evaluates the
                # guard (to offer it), so its model errors count
                if guard != "1":
                    lines.append(f"{ind}(void)({guard});")
                return
        if e.comm is None:
            lines.append(f"{ind}if ({guard}) {{")
            lines.extend(self._successor(e, ctx, tpl, ind + "  "))
            event = self.event_id(e)
            code = self.event_code(e, ctx)
            if (event >= 0 and e.event is not None and self.space._hidden_sets
                    and self._family_events is None):  # members hide nothing
                # hidden above a composition and not a barrier: tau (edgecode._gen_edge)
                name = event_constant(self.pygen, e.event)
                # the code of a template in a dynamic system runs the pids that hide
                # nothing (Tables.successors_code gives the others code of their own)
                hidden = (self.space._hidden_sets.get(int(str(ctx.pid)), frozenset())
                          if str(ctx.pid).isdigit() else frozenset())
                if name in hidden and (e.data_operation or name not in sync):
                    code = "-1"
            lines.append(f"{ind}  succ_proc(c, {ctx.pid}); succ_commit(c, {label}, {code});")
            lines.append(f"{ind}}}")
            return
        self.gen_comm_edge(lines, ind, ctx, tpl, k, e, guard, label)

    def _successor(self, e: Edge, ctx: _Ctx, tpl: int, ind: str) -> list[str]:
        """Return the lines (indented by ``ind``) that build the successor ``t`` of a
        step of ``e`` taken by its instance alone: the effect's declarations, the copy,
        the move, the effect, ``_last`` and exclusivity; the caller commits it."""
        decls, body = self.effect(e, ctx, ind)
        move, last = self._move_and_last(e, ctx, tpl, ind)
        return ([f"{ind}{d}" for d in decls] + [f"{ind}uint8_t *t = succ_begin(c, s, slen);"]
                + move + body + last)

    def apply_function(self, prefix: str, tpl: int, e: Edge, ctx: _Ctx
                       ) -> tuple[str, list[str], _Ctx, list[str]]:
        """Start the function that applies edge ``e`` of the instance at base ``b``,
        pid ``pid`` to a joint successor ``t`` (a rendezvous or barrier offer's):
        return its name, its lines so far (head, the effect's declarations, the
        location's move), its context and the effect's statements."""
        seg = self.packed.segments[tpl]
        aname = self.fresh(f"{prefix}{tpl}_")
        actx = _Ctx("t", "b", "pid", ctx.proc, ctx.seg)
        alines = [f"static int {aname}(ctx_t *c, uint8_t *t, uint32_t b, int pid, const V *_msg) {{",
                  "  (void)c; (void)t; (void)b; (void)pid; (void)_msg;"]
        adecls, abody = self.effect(e, actx, "  ")
        alines.extend(f"  {d}" for d in adecls)
        if e.target != e.source:
            alines.append(f"  wr_{seg.kinds[0].name}(t, b + {seg.offsets[0]}, {e.target});")
        return aname, alines, actx, abody

    def _barrier_offer(self, lines: list[str], ind: str, ctx: _Ctx, tpl: int, k: int, e: Edge,
                       guard: str) -> None:
        """Emit the barrier offer of an enabled edge (kind 3: its event's id, the
        instance, the edge and a function moving the location and running the effect
        on the joint successor), as ``statespace._gen_edge`` appends ``(3, name,
        offer)`` to ``aux``; ``br_barriers`` combines them (``runtime_barriers_code``)."""
        aname, alines, _, abody = self.apply_function("B", tpl, e, ctx)
        alines.extend(abody)
        alines += ["  return 1;", "}"]
        self.functions.append("\n".join(alines))
        self.prototypes.append(f"static int {aname}(ctx_t *, uint8_t *, uint32_t, int, const V *);")
        lines.append(f"{ind}if ({guard}) add_offer(c, 3, {self.event_id(e)}, 0, NULL, NULL, "
                     f"{ctx.pid}, {k}, {ctx.base}, {aname}, NULL);")

    def _computed_barrier(self, lines: list[str], ind: str, ctx: _Ctx, tpl: int, k: int,
                          e: Edge, guard: str, sync: frozenset[str], label: str) -> None:
        """Emit an edge of a process that may synchronise whose event name is computed
        at run time (``edgecode._gen_edge``): the name's id, a barrier offer when the
        name is in the process's synchronisation set (``br_barriers`` combines it with
        the others'), else a step of its own under that name. Barriers are combined at
        run time then (``vectors_at_run_time``)."""
        if not self.runtime_barriers or not str(ctx.pid).isdigit():
            raise self.unsupported(e.span, "an event name computed at run time on a process "
                                           "that synchronises (runtime barrier combiner)")
        code = self.event_code(e, ctx)
        if code == "-2":
            raise self.unsupported(e.span, "an event name computed at run time that C cannot "
                                           "name, on a process that synchronises")
        ids = sorted(self.intern_event(n) for n in sync)
        proto = "static int bn_in(const int32_t *, int32_t, int32_t, int32_t);"
        if proto not in self.prototypes:  # defined with br_barriers (gen_tables)
            self.prototypes.append(proto)
        table = self.fresh("BR_SYNC")
        self.functions.append(f"static const int32_t {table}[{len(ids)}] = "
                              f"{{{', '.join(map(str, ids))}}};")
        aname, alines, _, abody = self.apply_function("B", tpl, e, ctx)
        alines.extend(abody)
        alines += ["  return 1;", "}"]
        self.functions.append("\n".join(alines))
        self.prototypes.append(f"static int {aname}(ctx_t *, uint8_t *, uint32_t, int, const V *);")
        lines.append(f"{ind}if ({guard}) {{")
        # the name is needed to combine it, whether or not the search asks for names
        lines.append(f"{ind}  int _nm = c->names; c->names = 1;")
        lines.append(f"{ind}  int32_t _en = (int32_t)({code});")
        lines.append(f"{ind}  c->names = _nm;")
        lines.append(f"{ind}  if (_en == -2) {{ br_fallback(c); return; }}  /* too long a name */")
        lines.append(f"{ind}  if (bn_in({table}, 0, {len(ids)}, _en)) {{")
        lines.append(f"{ind}    add_offer(c, 3, _en, 0, NULL, NULL, {ctx.pid}, {k}, {ctx.base}, "
                     f"{aname}, NULL);")
        lines.append(f"{ind}  }} else {{")
        lines.extend(self._successor(e, ctx, tpl, ind + "    "))
        lines.append(f"{ind}    succ_proc(c, {ctx.pid}); succ_commit(c, {label}, _en);")
        lines.append(f"{ind}  }}")
        lines.append(f"{ind}}}")

    def gen_edge_guarded(self, lines: list[str], ind: str, ctx: _Ctx, tpl: int, k: int, e: Edge,
                         sync: frozenset[str], vector_edges: set[tuple[int, int]]) -> None:
        """Emit one edge of a location function. Promela: a model error met in the edge
        ends the instance's expansion there, as the exception does in the Python engine
        (``statespace._inline_layout``): what the edge committed is taken back and the
        function returns; the caller records the instance in ``perr``."""
        if not self.promela:
            self.gen_edge(lines, ind, ctx, tpl, k, e, sync, vector_edges)
            return
        lines.append(f"{ind}{{ size_t _e0 = c->n, _f0 = c->noffers;")
        self.gen_edge(lines, ind + "  ", ctx, tpl, k, e, sync, vector_edges)
        lines.append(f"{ind}  if (c->err) {{ c->n = _e0; c->noffers = _f0; return; }} }}")

    def gen_comm_edge(self, lines: list[str], ind: str, ctx: _Ctx, tpl: int, k: int, e: Edge,
                      guard: str, label: int) -> None:
        """Emit an edge with a channel operation (``edgecode._gen_comm_edge``)."""
        comm = e.comm
        assert comm is not None
        lay = self.layout
        slot = self.static_channel(comm.channel)
        # The rendezvous form: an apply function run on the joint successor.
        aname, alines, actx, abody = self.apply_function("A", tpl, e, ctx)
        if lay.exclusive_slot is not None:
            ex = self.static_off(lay.exclusive_slot)
            if isinstance(comm, Send):  # control passes to the receiver (edgecode)
                alines.append(f"  wr_i16(t, {ex}, -1);")
            elif e.target in self.space._atomic_sets[tpl]:
                alines.append(f"  wr_i16(t, {ex}, pid);")
        condition = comm.condition if isinstance(comm, Receive) else None
        if isinstance(comm, Receive):
            bctx = actx.with_src("t")
            bctx.block = {}
            bctx.decls = alines  # no block variables in binds
            self.binds(comm.args, "_msg", bctx, alines, "  ", comm.channel)
            if condition is not None:
                cctx = actx.with_src("t")
                alines.append(f"  if (!({self.cond(condition, cctx)})) return 0;")
        alines.extend(abody)
        alines.append("  return 1;")
        alines.append("}")
        self.functions.append("\n".join(alines))
        self.prototypes.append(f"static int {aname}(ctx_t *, uint8_t *, uint32_t, int, const V *);")
        n = len(comm.args)
        i2 = ind + "  "
        lines.append(f"{ind}if ({guard}) {{")
        lines.append(f"{i2}chan_t _ch = {self.chan(comm.channel, ctx)};")
        if self.layout.claim_slot is not None:
            mask = 2 if isinstance(comm, Send) else 1
            lines.append(f"{i2}xacc(c, s, _ch.id, {ctx.pid}, {mask});")
        if isinstance(comm, Send):
            arity = ""
            if slot is not None:
                types = slot.channel.fields
                if len(types) != n and self.csp:
                    raise self.unsupported(comm.span, "send with the wrong number of fields")
                vals = []
                mixed = self.mixed_channel(comm.channel)
                for a, ft in zip(comm.args, types, strict=False):
                    # a mixed channel's fields are plain ints (check_mixed): no conversion
                    conv, _ = (self.message_value(a, ctx), True) if mixed else \
                        self.convert(self.expr(a, ctx), ft, self.fold(a))
                    vals.append(conv)
                vals += [self.expr(a, ctx) for a in comm.args[len(types):]]
                if len(types) != n:
                    arity = "1"
            else:
                value = self.message_value if self.mixed_channel(comm.channel) else self.expr
                vals = [value(a, ctx) for a in comm.args]
                if not self.csp:
                    arity = f"_ch.nf != {n}"
            lines.append(f"{i2}V _mv[{max(1, n)}] = {{{', '.join(vals) or '0'}}};")
            if arity:
                # Promela: a send with another number of values than the channel has
                # fields is an error when it can execute (pan's qsend; the Python
                # engine's _arity); a full buffered channel blocks it first
                lines.append(f"{i2}if (({arity}) && (_ch.cap == 0 || rd_k(_ch.lk, s, _ch.off) < _ch.cap)) {{")
                lines.append(f"{i2}  br_fail(c);")
                lines.append(f"{i2}}} else if (_ch.cap == 0) {{")
            else:
                lines.append(f"{i2}if (_ch.cap == 0) {{")
            kinds = self.sent_kinds(comm, ctx) if self.csp else None
            lines.append(f"{i2}  add_offer(c, 1, _ch.id, {n}, _mv, NULL, {ctx.pid}, {k}, {ctx.base}, "
                         f"{aname}, {'NULL' if kinds is None else kinds});")
            lines.append(f"{i2}}} else if (rd_k(_ch.lk, s, _ch.off) < _ch.cap) {{")
            i3 = i2 + "  "
            decls, body = self.effect(e, ctx, i3)
            move, last = self._move_and_last(e, ctx, tpl, i3)
            lines.extend(f"{i3}{d}" for d in decls)
            lines.append(f"{i3}uint8_t *t = succ_begin(c, s, slen);")
            lines.append(f"{i3}if (_ch.nf != {n}) br_fallback(c);")
            lines.append(f"{i3}else ch_push(c, t, &_ch, _mv, {int(comm.sorted)});")
            lines.extend(move)
            lines.extend(body)
            lines.extend(last)
            ev = self.event_code(e, ctx, "!", "_mv", str(n))
            lines.append(f"{i3}succ_proc(c, {ctx.pid}); succ_commit(c, {label}, {ev});")
            lines.append(f"{i2}}}")
        else:
            pat, has, decl = self.pattern(comm.args, ctx, comm.channel)
            lines.append(f"{i2}{decl}")
            lines.append(f"{i2}if (_ch.cap == 0) {{")
            lines.append(f"{i2}  add_offer(c, 2, _ch.id, {n}, {pat}, {has}, {ctx.pid}, {k}, {ctx.base}, "
                         f"{aname}, NULL);")
            lines.append(f"{i2}}} else if (_ch.nf < {n}) {{ br_fallback(c); }} else {{")
            i3 = i2 + "  "
            ectx = ctx.with_src("t")
            ectx.block = {}
            ectx.decls = []
            binds: list[str] = []
            self.binds(comm.args, "_msg", ectx, binds, i3 + "  ", comm.channel)
            cond = self.cond(condition, ectx) if condition is not None else None
            decls, body = self.effect(e, ctx, i3 + "  ")
            move, last = self._move_and_last(e, ctx, tpl, i3 + "  ")
            rnd = int(comm.random)
            if cond is None:
                lines.append(f"{i3}V _mi = ch_find(s, &_ch, {pat}, {has}, {n}, {rnd}, 0);")
                lines.append(f"{i3}if (_mi >= 0) {{")
            else:
                lines.append(f"{i3}for (V _mi = ch_find(s, &_ch, {pat}, {has}, {n}, {rnd}, 0); _mi >= 0;"
                             f" _mi = ch_find(s, &_ch, {pat}, {has}, {n}, {rnd}, _mi + 1)) {{")
            i4 = i3 + "  "
            lines.extend(f"{i4}{d}" for d in decls + ectx.decls)
            lines.append(f"{i4}uint8_t *t = succ_begin(c, s, slen);")
            lines.append(f"{i4}V _msg[{self.max_fields}];")
            lines.append(f"{i4}ch_take(t, &_ch, _mi, {int(comm.peek)}, _msg);")
            lines.extend(binds)
            if cond is not None:
                lines.append(f"{i4}if (!({cond})) continue;")
            lines.extend(move)
            lines.extend(body)
            lines.extend(last)
            ev = self.event_code(e, ctx, "?", "_msg", "_ch.nf")
            lines.append(f"{i4}succ_proc(c, {ctx.pid}); succ_commit(c, {label}, {ev});")
            if cond is not None:
                lines.append(f"{i4}break;")
            lines.append(f"{i3}}}")
            lines.append(f"{i2}}}")
        lines.append(f"{ind}}}")

    def gen_process(self, tpl: int, base: str, pid: str, tag: str, sync: frozenset[str],
                    vector_edges: set[tuple[int, int]]) -> dict[int, str]:
        """Emit one function per location of template ``tpl``; return location -> name."""
        proc = self.layout.processes[tpl]
        seg = self.packed.segments[tpl]
        by_source: dict[int, list[tuple[int, Edge]]] = {}
        for k, e in enumerate(proc.process.edges):
            by_source.setdefault(e.source, []).append((k, e))
        names: dict[int, str] = {}
        for loc in proc.process.locations:
            edges = by_source.get(loc.id, [])
            if not edges:
                continue
            if loc.id < 0:
                raise self.unsupported(loc.span, "negative location id")
            fname = f"L{tag}_{loc.id}"
            normal, elses, timeouts, _ = location_options(edges)
            if len(elses) > 1:
                raise self.unsupported(elses[1][1].span, "more than one 'else' at a location")
            # as the Python engine: ``timeout`` reads 0 outside the timeout options
            ctx = _Ctx("s", base, pid, proc, seg, timeout_false=True)
            may_sync = any(self._may_sync(e, sync) for _, e in normal)
            lines = [f"static void {fname}(ctx_t *c, const uint8_t *s, uint32_t slen, uint32_t b, int pid) {{",
                     "  (void)b; (void)pid; (void)slen;"]
            if elses and not may_sync:
                lines.append("  size_t _n0 = c->n;")
            for k, e in normal:
                self.gen_edge_guarded(lines, "  ", ctx, tpl, k, e, sync, vector_edges)
            if elses:
                k, e = elses[0]
                if may_sync:
                    self._no_rendezvous(e, "a deferred 'else'")
                    ename = f"E{tag}_{loc.id}"
                    sub = [f"static void {ename}(ctx_t *c, const uint8_t *s, uint32_t slen, uint32_t b, int pid, int tmo) {{",
                           "  (void)b; (void)pid; (void)tmo; (void)slen;"]
                    self.gen_edge(sub, "  ", ctx, tpl, k, e, frozenset(), vector_edges)
                    sub.append("}")
                    self.functions.append("\n".join(sub))
                    self.prototypes.append(f"static void {ename}(ctx_t *, const uint8_t *, uint32_t, uint32_t, int, int);")
                    lines.append(f"  add_defer(c, &c->elses, &c->nelses, &c->elses_cap, {pid}, {base}, {ename});")
                else:
                    lines.append("  if (c->n == _n0) {")
                    self.gen_edge_guarded(lines, "    ", ctx, tpl, k, e, frozenset(), vector_edges)
                    lines.append("  }")
            if timeouts:
                tname = f"T{tag}_{loc.id}"
                sub = [f"static void {tname}(ctx_t *c, const uint8_t *s, uint32_t slen, uint32_t b, int pid, int tmo) {{",
                       "  (void)b; (void)pid; (void)tmo; (void)slen;"]
                tctx = _Ctx("s", base, pid, proc, seg, timeout=True)
                for k, e in timeouts:
                    self._no_rendezvous(e, "a 'timeout' option")
                    self.gen_edge(sub, "  ", tctx, tpl, k, e, frozenset(), vector_edges)
                sub.append("}")
                self.functions.append("\n".join(sub))
                self.prototypes.append(f"static void {tname}(ctx_t *, const uint8_t *, uint32_t, uint32_t, int, int);")
                lines.append(f"  add_defer(c, &c->tmos, &c->ntmos, &c->tmos_cap, {pid}, {base}, {tname});")
            lines.append("}")
            self.functions.append("\n".join(lines))
            self.prototypes.append(f"static void {fname}(ctx_t *, const uint8_t *, uint32_t, uint32_t, int);")
            names[loc.id] = fname
        return names

    def _no_rendezvous(self, e: Edge, what: str) -> None:
        if e.comm is None:
            return
        slot = self.static_channel(e.comm.channel)
        if slot is None or slot.capacity == 0:
            raise self.unsupported(e.span, f"{what} that starts with a channel operation on a "
                                            "channel that may be a rendezvous")

    def dispatch(self, names: dict[int, str], base: str, pid: str, tpl: int, ind: str) -> list[str]:
        """Return the switch calling the function of an instance's current location."""
        if not names:
            return []
        lines = [f"{ind}switch ({self.loc_read('s', base, tpl)}) {{"]
        for loc, fname in sorted(names.items()):
            lines.append(f"{ind}case {loc}: {fname}(c, s, slen, {base}, {pid}); break;")
        lines.append(f"{ind}default: break;")
        lines.append(f"{ind}}}")
        return lines
