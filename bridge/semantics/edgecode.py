"""The Python source of each control location and edge of a compiled state space
(DESIGN.md section 7): a mixin of ``statespace.CompiledStateSpace``, whose state it
uses (the layout, the step table, the generator)."""

from __future__ import annotations

from collections.abc import Hashable

from bridge.diagnostics import UnsupportedError
from bridge.ir import (
    Edge,
    ElseGuard,
    Receive,
    Send,
)
from bridge.semantics.codegen import (
    Context,
    Generator,
    as_stored,
    converting,
    event_code,
    event_constant,
    event_is_constant,
    field_types,
    location_options,
    store_code,
)
from bridge.semantics.state import ProcessLayout
from bridge.semantics.successors import Step


def _b(base: int | str) -> str:
    return str(base)


class EdgeCode:
    """Code generation of ``CompiledStateSpace`` (a mixin: its state is there)."""

    def _gen_process(self, gen: Generator, code: list[str], tpl: ProcessLayout,
                     base: int | str, pid: int | str, tag: str) -> list[tuple[int, str, list[str]]]:
        """Emit one function per location of ``tpl``; return (location id, function name,
        its source lines) triples."""
        out_names: list[tuple[int, str, list[str]]] = []
        by_source: dict[int, list[tuple[int, Edge]]] = {}
        for k, e in enumerate(tpl.process.edges):
            by_source.setdefault(e.source, []).append((k, e))
        sync = self._sync_sets.get(pid, frozenset()) if isinstance(pid, int) else frozenset()
        for loc in tpl.process.locations:
            edges = by_source.get(loc.id, [])
            if not edges:
                continue
            if loc.id < 0:
                raise UnsupportedError.at(loc.span, "negative location id")
            fname = f"_f{tag}_{loc.id}"
            normal, elses, timeouts, _ = location_options(edges)
            if len(elses) > 1:
                raise UnsupportedError.at(elses[1][1].span, "more than one 'else' at a location")
            # Every option but the timeout ones is taken in pan's normal pass, where
            # ``timeout`` reads 0 (in a guard beside an ``else`` too, m99; outside a guard,
            # m111: the front-end refuses the reads pan's flags decide).
            ctx = Context("s", base, pid, tpl, timeout_false=True)
            may_sync = any(self._may_sync(gen, e, sync) for _, e in normal)
            lines = [f"def {fname}(s, b, pid, out, aux):"]
            if elses and not may_sync:
                lines.append("    _n0 = len(out)")
            for k, e in normal:
                self._gen_edge(gen, lines, "    ", ctx, tpl, k, e, sync, base, pid, tag)
            if elses:
                k, e = elses[0]
                if may_sync:
                    ename = f"_fe{tag}_{loc.id}"
                    sub = [f"def {ename}(s, b, pid, out, aux):"]
                    self._gen_edge(gen, sub, "    ", ctx, tpl, k, e, frozenset(), base, pid, tag)
                    sub.append("    pass")
                    code.extend(sub)
                    lines.append(f"    aux.append((4, {pid}, {ename}, {_b(base)}))")
                else:
                    lines.append("    if len(out) == _n0:")
                    self._gen_edge(gen, lines, "        ", ctx, tpl, k, e, frozenset(), base, pid, tag)
            if timeouts:
                tname = f"_ft{tag}_{loc.id}"
                sub = [f"def {tname}(s, b, pid, out, aux, _timeout):"]
                tctx = Context("s", base, pid, tpl, timeout=True)
                for k, e in timeouts:
                    self._gen_edge(gen, sub, "    ", tctx, tpl, k, e, frozenset(), base, pid, tag)
                sub.append("    pass")
                code.extend(sub)
                lines.append(f"    aux.append((5, {pid}, {tname}, {_b(base)}))")
            lines.append("    pass")
            code.extend(lines)
            out_names.append((loc.id, fname, lines))
        return out_names

    def _may_sync(self, gen: Generator, e: Edge, sync: frozenset[str]) -> bool:
        if e.comm is not None:
            slot = gen.static_channel(e.comm.channel)
            return slot is None or slot.capacity == 0
        if e.event is None or e.data_operation or not sync:
            return False
        if event_is_constant(gen, e.event):
            return event_constant(gen, e.event) in sync
        return True

    def _step_for(self, event: str | None, edges: tuple[tuple[int, int], ...]) -> Step:
        """Return the interned step for an event taken by ``edges``."""
        key = (event, edges)
        st = self._steps.get(key)
        if st is not None:
            return st
        processes = tuple(sorted({p for p, _ in edges}))
        if self.csp:
            if event is None:
                st = Step(None, ("tau",) + edges[0], processes, edges, tau=True)
            else:
                st = Step(event, event, processes, edges)
        else:
            action: Hashable = edges[0] if len(edges) == 1 else edges
            st = Step(event, action, processes, edges)
        self._steps[key] = st
        return st

    def _gen_edge(self, gen: Generator, lines: list[str], ind: str, ctx: Context,
                  tpl: ProcessLayout, k: int, e: Edge, sync: frozenset[str],
                  base: int | str, pid: int | str, tag: str) -> None:
        """Emit the code of one edge (enabled test, successor, step)."""
        lay = self.layout
        comment = (e.text or "").replace("\n", " ")[:60]
        lines.append(f"{ind}# edge {k}: {comment}")
        guard = "True"
        if e.guard is not None and not isinstance(e.guard, ElseGuard):
            guard = gen.expr(e.guard, ctx)
        loc_slot = ctx.rel(0)
        move = f"t[{loc_slot}] = {e.target}" if e.target != e.source else ""
        last_parts = []
        if lay.last_slot is not None:
            last_parts.append(f"t[{lay.last_slot}] = {pid}")
        target_atomic = e.target in self._atomic_sets[tpl.index]
        if lay.exclusive_slot is not None:
            last_parts.append(f"t[{lay.exclusive_slot}] = {pid if target_atomic else -1}")
        last = "; ".join(last_parts)
        ectx = ctx.with_src("t")
        ectx.block = {}
        effect: list[str] = []
        gen.stmts(e.effect, ectx, effect, ind + "    ")
        # The step (event name) of this edge.
        ev_const = event_is_constant(gen, e.event)
        if e.event is None:
            ev_code = "None"
        elif ev_const:
            ev_code = repr(event_constant(gen, e.event))
        else:
            ev_code = event_code(gen, e.event, ctx)
        hidden = self._hidden_sets.get(pid, frozenset()) if isinstance(pid, int) else frozenset()
        if hidden and e.event is not None and not ev_const and any(
                n.split(".", 1)[0] == e.event.base for n in hidden):
            raise UnsupportedError.at(
                e.span, f"unsupported construct: hiding event '{e.event.base}' whose "
                "components depend on the state")
        if isinstance(pid, int) and ev_const and not (self.csp and e.comm is not None and e.event is None):
            name = None if e.event is None else event_constant(gen, e.event)
            if name in hidden and (e.data_operation or name not in sync):
                name = None  # hidden above a composition, and not a barrier: tau
            step_ref = gen.constant(self._step_for(name, ((pid, k),)), "_S")
        elif self._family_steps is not None and ev_const:
            step_ref = f"{self._family_steps}[pid][{k}]"  # the member's own event name
        else:
            step_ref = f"_mkstep({ev_code}, {pid}, {k})"
        # Events that may be CSP barriers: not data operations, no channel operation
        # (an effect the front-end added for bookkeeping still runs, jointly).
        if e.comm is None and e.event is not None and not e.data_operation and sync:
            bapply = "None"
            if effect:
                bapply = gen.fresh(f"_B{tag}_")
                blines = [f"def {bapply}(t, b, pid, _msg):"]
                blines.extend(x[len(ind):] if x.startswith(ind) else x for x in effect)
                blines.append("    pass")
                self._pending_code.extend(blines)
            offer = f"{pid}, {k}, {loc_slot}, {e.target}, {bapply}, {_b(base)}"
            if ev_const and (pid, k) in self._vector_edges:
                # Taken by a precomputed synchronisation vector in the layout function.
                self._vector_records[(pid, k)] = (guard, loc_slot, e.source, e.target, bapply)
                return
            if ev_const:
                if event_constant(gen, e.event) in sync:
                    lines.append(f"{ind}if {guard}:")
                    lines.append(f"{ind}    aux.append((3, {ev_code}, {offer}))")
                    return
            else:
                sname = gen.constant(sync, "_SY")
                lines.append(f"{ind}if {guard}:")
                lines.append(f"{ind}    _en = {ev_code}")
                lines.append(f"{ind}    if _en in {sname}:")
                lines.append(f"{ind}        aux.append((3, _en, {offer}))")
                lines.append(f"{ind}    else:")
                lines.append(f"{ind}        t = list(s)")
                if move:
                    lines.append(f"{ind}        {move}")
                lines.extend("    " + x for x in effect)
                if last:
                    lines.append(f"{ind}        {last}")
                lines.append(f"{ind}        out.append((_mkstep(_en, {pid}, {k}), tuple(t)))")
                return
        if e.comm is None:
            lines.append(f"{ind}if {guard}:")
            lines.append(f"{ind}    t = list(s)")
            for x in (move,):
                if x:
                    lines.append(f"{ind}    {x}")
            lines.extend(effect)
            if last:
                lines.append(f"{ind}    {last}")
            lines.append(f"{ind}    out.append(({step_ref}, tuple(t)))")
            return
        self._gen_comm_edge(gen, lines, ind, ctx, ectx, tpl, k, e, guard, move, last,
                            effect, ev_code, step_ref, base, pid, tag)

    def _gen_comm_edge(self, gen: Generator, lines: list[str], ind: str, ctx: Context,
                       ectx: Context, tpl: ProcessLayout, k: int, e: Edge, guard: str,
                       move: str, last: str, effect: list[str], ev_code: str, step_ref: str,
                       base: int | str, pid: int | str, tag: str) -> None:
        comm = e.comm
        assert comm is not None
        sid = gen.span_id(comm.span or e.span)
        slot = gen.static_channel(comm.channel)
        # Apply function for the rendezvous form (used when the channel has capacity 0).
        aname = gen.fresh(f"_A{tag}_")
        alines = [f"def {aname}(t, b, pid, _msg):"]
        if move:
            alines.append(f"    {move}")
        if self.layout.exclusive_slot is not None:
            # Rendezvous inside atomic passes control to the receiver (promela-spin.md 5):
            # the sender (applied first) lets go of it even when it stays inside its
            # atomic sequence, the receiver holds it if its step enters one (pan: after
            # the handshake any process moves unless the receiver is atomic).
            ex = self.layout.exclusive_slot
            if isinstance(comm, Send):
                alines.append(f"    t[{ex}] = -1")
            elif e.target in self._atomic_sets[tpl.index]:
                alines.append(f"    t[{ex}] = pid")
        condition = comm.condition if isinstance(comm, Receive) else None
        if isinstance(comm, Receive):
            # the sender's values as computed (a bool stays one in its name c.True)
            gen.binds(comm.args, "_msg", ectx, alines, "    ", "m" if gen.sends_bools() else None)
            if condition is not None:
                alines.append(f"    if not {gen.expr(condition, ectx)}: return False")
        alines.extend(x[len(ind):] if x.startswith(ind) else x for x in effect)
        alines.append("    return True")
        self._pending_code.extend(alines)
        ch = gen.chan(comm.channel, ctx)
        arity_check = False
        if isinstance(comm, Send):
            types = field_types(comm, slot)
            # The message as computed names the step (c!True); the buffer holds it as
            # stored (c!(n == 2) stores 1: codegen.stored_value).
            kinds = [None if j < len(types) and converting(types[j]) else gen.bool_kind(a)
                     for j, a in enumerate(comm.args)]
            pushed = "_mv" if not any(kinds) else "(" + "".join(
                as_stored(f"_mv[{j}]", k) + ", " for j, k in enumerate(kinds)) + ")"
            msg = "(" + "".join(
                store_code(gen.expr(a, ctx), ftype, self.language, sid) + ", "
                for a, ftype in zip(comm.args, types, strict=False)
            ) + "".join(gen.expr(a, ctx) + ", " for a in comm.args[len(types):]) + ")"
            # pan checks the number of fields when the send executes (SPIN accepts a
            # send with fewer values: "too few parameters in send stmnt").
            mismatch = slot is not None and len(comm.args) != len(types)
            if self.csp:
                if mismatch:
                    raise UnsupportedError.at(comm.span, "send with the wrong number of fields")
            else:
                arity_check = slot is None or mismatch
        else:
            msg = gen.pattern(comm.args, ctx)
        csp_event = self.csp and e.event is None
        lines.append(f"{ind}if {guard}:")
        ind2 = ind + "    "
        lines.append(f"{ind2}_ch = {ch}")
        if self.layout.claim_slot is not None:
            mask = 2 if isinstance(comm, Send) else 1
            lines.append(f"{ind2}_xacc(s, _ch[3], {pid}, {mask}, {sid})")
        lines.append(f"{ind2}_mv = {msg}")
        if arity_check:
            lines.append(f"{ind2}if len(_mv) != _ch[2]: _arity(s, _ch, _mv, {sid})")
        kind = 1 if isinstance(comm, Send) else 2
        lines.append(f"{ind2}if _ch[1] == 0:")
        lines.append(f"{ind2}    aux.append(({kind}, _ch[3], _mv, {pid}, {k}, {aname}, {_b(base)}))")
        if isinstance(comm, Send):
            lines.append(f"{ind2}elif s[_ch[0]] < _ch[1]:")
            lines.append(f"{ind2}    t = list(s)")
            lines.append(f"{ind2}    _push(t, _ch, {pushed}, {comm.sorted})")
            sref = f"_mkstep(_chev(_ch, '!', _mv), {pid}, {k})" if csp_event else step_ref
        else:
            lines.append(f"{ind2}else:")
            if condition is None:
                lines.append(f"{ind2}    _mi = _find(s, _ch, _mv, {comm.random})")
                lines.append(f"{ind2}    if _mi >= 0:")
            else:
                # c?[cond]x: the first matching message whose bound fields satisfy cond.
                lines.append(f"{ind2}    for _mi in _candidates(s, _ch, _mv, {comm.random}):")
            ind2 = ind2 + "    "
            lines.append(f"{ind2}    t = list(s)")
            lines.append(f"{ind2}    _msg = _take(t, _ch, _mi, {comm.peek})")
            gen.binds(comm.args, "_msg", ectx, lines, ind2 + "    ")
            if condition is not None:
                lines.append(f"{ind2}    if not {gen.expr(condition, ectx)}: continue")
            sref = f"_mkstep(_chev(_ch, '?', _msg), {pid}, {k})" if csp_event else step_ref
        if move:
            lines.append(f"{ind2}    {move}")
        extra = "    " * (ind2.count("    ") - ind.count("    ") - 0)
        for x in effect:
            lines.append(extra + x)
        if last:
            lines.append(f"{ind2}    {last}")
        lines.append(f"{ind2}    out.append(({sref}, tuple(t)))")
        if condition is not None and isinstance(comm, Receive):
            lines.append(f"{ind2}    break")
        del slot, sid

    def _gen_segment_init(self, gen: Generator, code: list[str], tpl: ProcessLayout) -> None:
        lines = [f"def _seginit{tpl.index}(t, b, pid, args, cids):"]
        ctx = Context("t", "b", "pid", tpl)
        lines.append(f"    t[b] = {tpl.process.initial}")
        params = tpl.process.parameters
        lines.append(f"    if len(args) != {len(params)}:")
        lines.append(
            f"        _fail('process {tpl.process.name} takes {len(params)} arguments', -1)"
        )
        for j, pname in enumerate(params):
            lslot = tpl.locals[pname]
            lines.append(
                f"    t[b+{lslot.offset}] = "
                + store_code(f"args[{j}]", lslot.type, self.language, 0)
            )
        for v in tpl.process.locals:
            if v.name in params or v.init is None:
                continue
            lslot = tpl.locals[v.name]
            self._gen_init_value(gen, lines, ctx, f"b+{lslot.offset}", v.type, v.init, lslot.size)
        for j, c in enumerate(tpl.channels):
            lines.append(f"    t[b+{c.offset - 1}] = cids[{j}]")
        lines.append("    pass")
        code.extend(lines)

    def _gen_init_value(self, gen: Generator, lines: list[str], ctx: Context, off: str,
                        vtype, init, size: int) -> None:
        from bridge.semantics.state import _dims

        _, element = _dims(vtype)
        if isinstance(init, tuple):
            if len(init) > size:
                raise UnsupportedError.at(None, "too many initial values for an array")
            for j, x in enumerate(init):
                val = store_code(gen.stored_expr(x, ctx), element, self.language, 0)
                lines.append(f"    t[{off}+{j}] = {val}")
        else:
            val = store_code(gen.stored_expr(init, ctx), element, self.language, 0)
            if size == 1:
                lines.append(f"    t[{off}] = {val}")
            else:
                lines.append(f"    t[{off}:{off}+{size}] = [{val}] * {size}")

    def _gen_claims(self, gen: Generator, code: list[str]) -> None:
        """Emit ``_claims<k>(t, b, pid)`` per template with ``xr``/``xs``: the tuple of
        ``(1 for xr | 2 for xs, channel id, span id)`` a new instance claims."""
        for tpl in self.layout.processes:
            assertions = tpl.process.channel_assertions
            if not assertions:
                continue
            ctx = Context("t", "b", "pid", tpl)
            items = "".join(
                f"({1 if a.kind == 'xr' else 2}, {gen.channel_id(a.channel, ctx)}, "
                f"{gen.span_id(a.span)}), " for a in assertions)
            code.extend([f"def _claims{tpl.index}(t, b, pid):", f"    return ({items})"])

    def _gen_globals_init(self, gen: Generator, code: list[str]) -> None:
        lines = ["def _globals_init(t):"]
        ctx = Context("t", None, None, None)
        for v in self.system.globals:
            if v.init is None:
                continue
            slot = self.layout.globals[v.name]
            self._gen_init_value(gen, lines, ctx, str(slot.offset), v.type, v.init, slot.size)
        lines.append("    pass")
        code.extend(lines)

