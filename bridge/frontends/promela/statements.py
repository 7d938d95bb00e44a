"""Statements of the Promela lowering: sequences, options,
loops, select, unless, inline calls (``lower.py``'s module docstring)."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from lark import Token, Tree

from bridge.diagnostics import Span
from bridge.frontends.promela.builder import BuildEdge, Escape, JumpEscape, ProcBuilder
from bridge.frontends.promela.trees import (
    as_block,
    expr_text,
    first_step,
    first_step_kind,
    fold_int,
    labeled_skip_tree,
    mentions_timeout,
    starts_with_jump,
    tree_children,
    tree_subtrees,
)
from bridge.ir import (
    BYTE,
    ArrayType,
    AssertStmt,
    Assign,
    Binary,
    ChannelAssertion,
    ChanPoll,
    ChanQuery,
    ChanType,
    Const,
    ElseGuard,
    Expr,
    GetPriority,
    Print,
    Process,
    Receive,
    RecvBind,
    Send,
    SetPriority,
    Type,
    Var,
    Variable,
)

# spinlex.c (EXPAND_SELECT) scans the text of a select character by character: up to
# '(', then a name of letters and digits, ':', decimal digits, '.', anything, '.',
# decimal digits, ')'; blanks and tabs are allowed in the three parts, a newline is not
_LEXER_SELECT = re.compile(r"select[^(]*\([A-Za-z0-9 \t]*:([0-9 \t]*)\.[^.]*\.([0-9 \t]*)\)")


def _lexer_select_bounds(raw: str) -> tuple[int, int] | None:
    """Return the bounds of a select that SPIN's lexer expands, else None."""
    m = _LEXER_SELECT.fullmatch(raw)
    if m is None:
        return None
    lo, hi = (g.strip() for g in m.groups())
    return (int(lo or 0), int(hi or 0))

class Statements:
    """Statements: sequences, options, loops, select, unless, inline
    (a mixin of ``lower._Lowering``: its state is there)."""

    def build_body(self, pb: ProcBuilder, body: Tree, provided: Expr | None,
                   span: Span | None) -> Process:
        self.pb = pb
        try:
            start = pb.new_loc(self.span(body))
            end = pb.new_loc()
            seq = tree_subtrees(body)[0]
            self.sequence(seq, start, end, shared=False)
            proc = pb.finish(end, span, provided, start,
                             lambda edges, where: self.executable(edges, where or body))
        finally:
            self.pb = None
        self.proc_locals[proc.name] = pb.symbols
        return proc

    # ------------------------------------------------------------------ sequences

    def sequence(self, seq: Tree, start: int, end: int, shared: bool) -> None:
        pb = self.pb
        assert pb is not None
        units: list[tuple[str, object]] = []
        for step in tree_subtrees(seq):
            if step.data in ("one_decl", "unsigned_decl"):
                for late in self.declare(step, pb):
                    units.append(("assign", late))
                continue
            if step.data == "xu_decl":
                self.channel_assertions(step)
                continue
            pb.stmt_seen = True
            units.append(("step", step))
        if not units:
            if shared:
                pb.add_edge(BuildEdge(start, end, None, text="skip", span=self.span(seq)))
            else:
                pb.alias(start, end, self.span(seq))
            return
        cur = start
        for i, (kind, item) in enumerate(units):
            target = end if i == len(units) - 1 else pb.new_loc()
            first_shared = shared and i == 0
            if kind == "assign":
                node, effect, text = item  # type: ignore[misc]
                pb.add_edge(BuildEdge(cur, target, None, effect=effect, text=text,
                                  span=self.span(node)))
            else:
                self.step(item, cur, target, first_shared)  # type: ignore[arg-type]
            cur = target

    def channel_assertions(self, step: Tree) -> None:
        """Record ``xr c`` / ``xs c, d`` of the process being lowered (a declaration:
        pan claims the channels when the instance is created, wherever it is written)."""
        pb = self.pb
        assert pb is not None
        kind = str(step.children[0])
        if pb is self.never_builder:
            raise self.error(step, f"'{kind}' in a never claim")
        for ref in tree_subtrees(step):
            chan = self.chan_ref(ref)
            if self.type_of(chan) is None:
                raise self.error(ref, f"'{self.text(ref)}' is not a channel")
            pb.channel_assertions.append(ChannelAssertion(kind, chan, self.span(step)))

    @contextmanager
    def block_scope(self) -> Iterator[None]:
        """Open a block scope for the statements lowered inside (SPIN 6: every ``{ }``
        is one, its declarations and labels are its own; a name declared in two
        sibling blocks is two variables, renamed apart in the IR)."""
        self.scope_count += 1
        self.scopes.append({})
        self.scope_ids.append(self.scope_count)
        try:
            yield
        finally:
            self.scopes.pop()
            self.scope_ids.pop()

    def at_private(self, s: int, shared: bool, compile_at: Callable[[int], None]) -> None:
        """Compile at ``s``, or at a fresh location copied onto ``s`` when shared."""
        pb = self.pb
        assert pb is not None
        if not shared:
            compile_at(s)
            return
        h = pb.new_loc()
        compile_at(h)
        pb.copy_out(h, s)

    def step(self, st: Tree, s: int, e: int, shared: bool) -> None:
        pb = self.pb
        assert pb is not None
        kind = st.data
        if kind == "labeled_skip":
            st, kind = labeled_skip_tree(st), "labeled"
        if kind == "labeled":
            label_tok = st.children[0]
            label = str(label_tok)
            path = tuple(self.scope_ids)
            if any(p == path for p, _ in pb.labels.get(label, ())):
                raise self.error(label_tok, f"duplicate label '{label}' in {pb.name}")

            def at(h: int) -> None:
                pb.labels.setdefault(label, []).append((path, h))
                pb.locs[h].labels.append(label)
                self.step(st.children[1], h, e, False)

            self.at_private(s, shared, at)
            return
        if kind == "unless":
            self.at_private(s, shared, lambda h: self.unless(st, h, e))
            return
        if kind == "if_stmt":
            self.options(st, s, e)
            return
        if kind == "do_stmt":

            def loop(h: int) -> None:
                pb.loops.append(e)
                try:
                    self.options(st, h, h)
                finally:
                    pb.loops.pop()

            self.at_private(s, shared, loop)
            return
        if kind == "block":
            # SPIN: a { } block is a sub-sequence node of its own, so a loop that
            # starts it gets a head distinct from the block's entry (as in an option).
            with self.block_scope():
                self.sequence(st.children[0], s, e, shared=True)
            return
        if kind == "atomic_stmt":
            if pb.in_dstep:
                with self.block_scope():
                    self.sequence(tree_subtrees(st)[0], s, e, shared)
                return
            if self.collapse_atomic(st, s, e):
                return
            h = pb.new_loc()
            pb.locs[h].atomic = True
            pb.atomic_depth += 1
            try:
                with self.block_scope():
                    self.sequence(tree_subtrees(st)[0], h, e, False)
            finally:
                pb.atomic_depth -= 1
            pb.copy_out(h, s)
            return
        if kind == "dstep_stmt":
            self.dstep(st, s, e)
            return
        if kind in ("for_range", "for_in"):
            self.for_loop(st, s, e)
            return
        if kind == "select_stmt":
            self.select(st, s, e)
            return
        if kind == "break_stmt":
            if not pb.loops:
                raise self.error(st, "'break' outside a do loop")
            if shared:
                pb.add_edge(BuildEdge(s, pb.loops[-1], None, text="break", span=self.span(st)))
            else:
                pb.alias(s, pb.loops[-1], self.span(st))
            return
        if kind == "goto_stmt":
            label_tok = st.children[1]
            if shared:
                # A goto that starts an option (or an escape) is a step of its own:
                # the edge exists now (an escape copies it at once), and its target
                # location is merged into the label's when the labels are known.
                g = pb.new_loc()
                pb.add_edge(BuildEdge(s, g, None, text=self.text(st), span=self.span(label_tok)))
                s = g
            pb.gotos.append((s, str(label_tok), self.span(label_tok), False, self.text(st),
                             tuple(self.scope_ids)))
            return
        if kind == "inline_call":
            self.inline_call(st, s, e, shared)
            return
        if kind == "else_stmt":
            # Not first in an option, an else is a statement of its own that pan takes
            # when nothing else leaves its state: there, always (spin -a accepts it).
            pb.add_edge(BuildEdge(s, e, ElseGuard(self.span(st)), text="else", span=self.span(st)))
            return
        # Simple statements: one edge.
        pb.add_edge(self.simple(st, s, e))

    _NEVER_BLOCKS = frozenset(
        {"assign", "incr", "decr", "assert_stmt", "printf_stmt", "printm_stmt"})

    def collapse_atomic(self, st: Tree, s: int, e: int) -> bool:
        """Lower a straight-line atomic sequence that cannot block after its first
        statement as one edge; return False (nothing done) for any other sequence.

        pan never stores the states inside such a sequence (it continues atomically
        from each of them) and a never claim does not step inside it, so one edge
        with the first statement's guard/channel operation and all effects gives the
        same stored states and the same LTL semantics as SPIN.
        """
        pb = self.pb
        assert pb is not None
        if self.unless_depth or pb.has_provided or self.priority_scheduling:
            # An escape may interrupt the sequence between its statements; a provided
            # clause may block it there (SPIN guards every statement with it), and so
            # may a higher-priority process that becomes enabled midway (pan checks
            # priorities before every step, inside atomic sequences too).
            return False
        steps = tree_subtrees(tree_subtrees(st)[0])
        if not steps:
            return False
        first, rest = steps[0], steps[1:]
        for r in rest:
            if r.data in self._NEVER_BLOCKS:
                if r.data == "assign" and isinstance(r.children[2], Tree) \
                        and r.children[2].data == "run_expr":
                    return False
                continue
            if r.data == "expr_stmt" and isinstance(r.children[0], Tree) \
                    and r.children[0].data in ("true", "skip"):
                continue
            return False
        kind = first.data
        if kind in ("send", "sorted_send", "receive", "random_receive", "peek_receive",
                    "random_peek_receive"):
            chan = self.chan_ref(first.children[0])
            capacity = self.capacity_of(chan)
            if capacity is None or capacity == 0:
                return False  # a rendezvous passes control to the partner (SPIN)
        elif kind == "expr_stmt":
            inner = first.children[0]
            if isinstance(inner, Tree) and inner.data == "run_expr":
                return False
        elif kind not in self._NEVER_BLOCKS:
            return False
        edge = self.simple(first, s, e)
        effects = list(edge.effect)
        for r in rest:
            if r.data == "expr_stmt":
                continue
            effects.extend(self.simple(r, s, e).effect)
        pb.stmt_seen = True
        edge.effect = tuple(effects)
        edge.text = self.text(st)
        edge.span = self.span(st)
        pb.add_edge(edge)
        return True

    def simple(self, st: Tree, s: int, e: int) -> BuildEdge:
        kind = st.data
        span = self.span(st)
        text = self.text(st)
        edge = BuildEdge(s, e, None, text=text, span=span)
        own = self.own_priority_target(st) if kind in ("assign", "incr", "decr") else None
        if own is not None:
            # _priority = e: pan stores e in the 8-bit field of the process, unchecked.
            if kind == "assign":
                value = self.expr(st.children[2])
            else:
                value = Binary("+" if kind == "incr" else "-", GetPriority(own, span),
                               Const(1), span)
            edge.effect = (SetPriority(own, value, False, span),)
        elif kind == "assign":
            target = self.lvalue(st.children[0])
            rhs = st.children[2]
            if isinstance(rhs, Tree) and rhs.data == "run_expr":
                edge.effect = (self.run_stmt(rhs, target),)
            else:
                edge.effect = (Assign(target, self.expr(rhs), span),)
        elif kind in ("incr", "decr"):
            target = self.lvalue(st.children[0])
            op = "+" if kind == "incr" else "-"
            edge.effect = (Assign(target, Binary(op, target, Const(1), span), span),)
        elif kind in ("send", "sorted_send"):
            edge.comm = self.send(st)
        elif kind in ("receive", "random_receive", "peek_receive", "random_peek_receive"):
            edge.comm = self.receive(st)
            edge.effect = self.receive_fault(st)
        elif kind == "assert_stmt":
            edge.effect = (AssertStmt(self.expr(st.children[1]), text, span),)
        elif kind == "printf_stmt":
            fmt = codecs.decode(str(st.children[1])[1:-1], "unicode_escape")
            args = tuple(self.expr(c) for c in tree_subtrees(st))
            edge.effect = (Print(fmt, args, span),)
        elif kind == "printm_stmt":
            edge.effect = (Print("%e", (self.expr(st.children[1]),), span),)
        elif kind == "expr_stmt":
            inner = st.children[0]
            if isinstance(inner, Tree) and inner.data == "run_expr":
                edge.effect = (self.run_stmt(inner, None),)
            elif isinstance(inner, Tree) and inner.data == "set_priority":
                edge.effect = (self.set_priority(inner),)
            else:
                cond = self.expr(inner)
                if isinstance(cond, Const) and cond.value not in (0, False):
                    cond = None
                edge.guard = cond
        elif kind == "c_thing":
            raise self.unsupported(st, "embedded C")
        else:  # pragma: no cover
            raise self.error(st, f"unexpected statement {kind}")
        return edge

    def options(self, st: Tree, s: int, e: int) -> None:
        opts = [c for c in st.children if isinstance(c, Tree) and c.data == "options"][0]
        seqs = tree_subtrees(opts)
        elses = [q for q in seqs if first_step_kind(q) == "else_stmt"]
        if len(elses) > 1:
            raise self.error(first_step(elses[1]), "more than one 'else' in one if/do")
        for q in seqs:
            self.sequence(q, s, e, shared=True)
        self.pb.pre_empt_siblings(s)  # type: ignore[union-attr]

    def for_loop(self, st: Tree, s: int, e: int) -> None:
        pb = self.pb
        assert pb is not None
        kids = tree_children(st)
        if st.data == "for_in" and self.record_cells(kids[1]) is not None:
            self.for_in_channel(st, s, e)
            return
        var = self.loop_variable(st) if st.data == "for_range" else self.lvalue(kids[1])
        span = self.span(st)
        if st.data == "for_range":
            lo = self.expr(kids[2])
            hi = self.expr(kids[4])
            body = kids[5]
        else:
            lo, hi = Const(0), Const(self.for_in_length(kids[3]) - 1)
            body = kids[4]
        head = pb.new_loc()
        pb.add_edge(BuildEdge(s, head, None, effect=(Assign(var, lo, span),),
                          text=f"{self.text(kids[1])} = {expr_text(lo)}", span=span))
        b = pb.new_loc()
        c = pb.new_loc()
        pb.add_edge(BuildEdge(head, b, Binary("<=", var, hi, span),
                          text=f"{self.text(kids[1])} <= {expr_text(hi)}", span=span))
        pb.add_edge(BuildEdge(head, e, ElseGuard(span), text="else", span=span))
        pb.loops.append(e)
        try:
            with self.block_scope():
                self.sequence(body, b, c, shared=False)
        finally:
            pb.loops.pop()
        pb.add_edge(BuildEdge(c, head, None, effect=(Assign(var, Binary("+", var, Const(1)), span),),
                          text=f"{self.text(kids[1])}++", span=span))

    def for_in_length(self, tree: Tree) -> int:
        """Return the length of the array that ``for (i in a)`` walks (SPIN's
        ``for_index``: any array, an array of channels included)."""
        sub = self.substitute(tree) if tree.data == "varref" else None
        target = sub if sub is not None else tree
        if target.data == "varref":
            fields = tree_subtrees(target)
            sym = self.lookup(str(fields[0].children[0]))
            if len(fields) == 1 and fields[0].children[1] is None and sym is not None \
                    and sym.kind == "chanarray" and sym.length is not None:
                return sym.length
        t = self.type_of(self.expr(tree))
        if not isinstance(t, ArrayType):
            raise self.unsupported(tree, "for (x in ...) over a non-array")
        return t.length

    def for_in_channel(self, st: Tree, s: int, e: int) -> None:
        """Lower ``for (r in q)`` with a record ``r``: SPIN's ``for_index`` walks the
        messages of channel ``q`` with a counter of its own, receiving each message into
        ``r`` and sending it back (so after a full loop ``q`` is as before)."""
        pb = self.pb
        assert pb is not None
        kids = tree_children(st)
        span = self.span(st)
        record, cells = self.record_cells(kids[1])  # type: ignore[misc]
        chan = self.chan_ref(kids[3])
        sym = self.chan_sym(chan)
        if sym is None or sym.fields is None or sym.capacity in (None, 0):
            raise self.error(kids[3], f"for ({self.text(kids[1])} in ...): "
                             f"'{self.text(kids[3])}' must be a buffered channel of {record}")
        self.check_arity(chan, len(cells), st)
        counter = Var(self.fresh_local(f"_for{len(pb.locals)}", BYTE, span), "local", span)
        walk = tuple(RecvBind(c, span) for c in cells)
        head, b, c = pb.new_loc(), pb.new_loc(), pb.new_loc()
        pb.add_edge(BuildEdge(s, head, None, effect=(Assign(counter, Const(0), span),),
                          text=f"{counter.name} = 0", span=span))
        pb.add_edge(BuildEdge(head, b, Binary("<", counter, ChanQuery("len", chan, span), span),
                          text=f"{counter.name} < len({self.text(kids[3])})", span=span))
        pb.add_edge(BuildEdge(head, e, ElseGuard(span), text="else", span=span))
        got, put = pb.new_loc(), pb.new_loc()
        pb.add_edge(BuildEdge(b, got, comm=Receive(chan, walk, False, False, span),
                          text=f"{self.text(kids[3])}?{self.text(kids[1])}", span=span))
        pb.add_edge(BuildEdge(got, put, comm=Send(chan, tuple(cells), False, span),
                          text=f"{self.text(kids[3])}!{self.text(kids[1])}", span=span))
        pb.loops.append(e)
        try:
            with self.block_scope():
                self.sequence(kids[4], put, c, shared=False)
        finally:
            pb.loops.pop()
        pb.add_edge(BuildEdge(c, head, None,
                          effect=(Assign(counter, Binary("+", counter, Const(1)), span),),
                          text=f"{counter.name}++", span=span))

    def fresh_local(self, base: str, t: Type, span: Span | None) -> str:
        """Return the name of a new local of type ``t`` that bridge adds to the process
        (no user name can clash: it is not a declared name of the proctype)."""
        pb = self.pb
        assert pb is not None
        taken = {v.name for v in pb.locals} | {c.name for c in pb.channels}
        name, k = base, 1
        while name in taken or name in pb.symbols:
            name, k = f"{base}_{k}", k + 1
        pb.locals.append(Variable(name, t, None, False, span))
        return name

    def loop_variable(self, st: Tree) -> Expr:
        """Return the variable of ``for (v : lo .. hi)`` or ``select (v : lo .. hi)``,
        checked as spin -a checks it (flow.c ``valid_name``): a plain variable, not an
        array, a record or a channel ("bad index in for-construct"), and constant
        bounds in order ("start value exceeds end-value"; a select that SPIN's lexer
        expands reports "bad range in select statement" instead, see ``select_form``)."""
        kids = tree_children(st)
        tree = kids[1]
        sub = self.substitute(tree) if tree.data == "varref" else None
        target = sub if sub is not None else tree
        fields = tree_subtrees(target) if target.data == "varref" else []
        name = str(fields[0].children[0]) if fields else self.text(target)
        sym = self.lookup(name) if fields else None
        if len(fields) != 1 or fields[0].children[1] is not None or sym is None \
                or sym.kind != "var" or sym.length is not None \
                or isinstance(sym.type, (ArrayType, ChanType)):
            raise self.error(tree, f"bad index in for-construct {name}: SPIN takes a plain "
                             "variable here, not an array element, a record field or a "
                             "channel")
        lo, hi = fold_int(self.expr(kids[2])), fold_int(self.expr(kids[4]))
        if lo is not None and hi is not None and lo > hi and not (
                st.data == "select_stmt" and self.select_form(st)[0] != "loop"):
            raise self.error(st, f"start value for {name} exceeds end-value (SPIN refuses it)")
        return self.lvalue(tree)

    def select_form(self, st: Tree) -> tuple[str, tuple[int, int] | None]:
        """Return how SPIN 6.5.2 builds ``select (v : lo .. hi)``: its lexer
        (spinlex.c EXPAND_SELECT) rewrites a select written with a plain name and
        decimal bounds, outside an inline body, into one choice ``if :: v = lo :: ...
        :: v = hi fi`` ("choice") when the bounds are at most 32 apart, else into the
        loop ``v = lo; do :: (v < hi) -> v++ :: break od`` ("lexer loop", the increment
        first); every other select is spin.y's ``sel_index`` loop, whose ``break`` comes
        first ("loop"). The order decides a ``d_step`` (first executable option): pan
        leaves ``v`` at ``lo``, ``hi`` and ``lo`` (measured)."""
        inline = bool(self.inline_stack or self.inline_env)
        bounds = None if inline else _lexer_select_bounds(self.raw_text(st))
        if bounds is None:
            return "loop", None
        if bounds[0] > bounds[1]:
            raise self.error(st, "bad range in select statement")
        return ("choice" if bounds[1] - bounds[0] <= 32 else "lexer loop"), bounds

    def select(self, st: Tree, s: int, e: int) -> None:
        """``select (v : lo .. hi)`` in the form ``select_form`` names: one step with
        a choice, or a loop whose intermediate values are states of their own."""
        pb = self.pb
        assert pb is not None
        kids = tree_children(st)
        var = self.loop_variable(st)
        span = self.span(st)
        lo_e, hi_e = self.expr(kids[2]), self.expr(kids[4])
        name = self.text(kids[1])
        form, bounds = self.select_form(st)
        if form == "choice":
            assert bounds is not None
            for v in range(bounds[0], bounds[1] + 1):
                pb.add_edge(BuildEdge(s, e, None, effect=(Assign(var, Const(v), span),),
                                  text=f"{name} = {v}", span=span))
            return
        head = pb.new_loc()
        pb.add_edge(BuildEdge(s, head, None, effect=(Assign(var, lo_e, span),),
                          text=f"{name} = {expr_text(lo_e)}", span=span))
        brk = BuildEdge(head, e, None, text="break", span=span)
        if form == "loop":  # pan tries sel_index's break first (spin -d lists it first)
            pb.add_edge(brk)
        mid = pb.new_loc()
        pb.add_edge(BuildEdge(head, mid, Binary("<", var, hi_e, span),
                          text=f"({name} < {expr_text(hi_e)})", span=span))
        pb.add_edge(BuildEdge(mid, head, None, effect=(Assign(var, Binary("+", var, Const(1)), span),),
                          text=f"{name}++", span=span))
        if form == "lexer loop":  # the lexer writes the increment first
            pb.add_edge(brk)

    def unless(self, st: Tree, s: int, e: int) -> None:
        pb = self.pb
        assert pb is not None
        main, escape = st.children[0], st.children[2]
        first_loc = len(pb.locs)
        first_edge = len(pb.edges)
        # The braces of ``{ main } unless { escape }`` belong to the unless itself,
        # not to a sub-sequence (checked against SPIN's state counts).
        self.unless_depth += 1
        try:
            if main.data == "block":
                with self.block_scope():
                    self.sequence(main.children[0], s, e, shared=False)
            else:
                self.step(main, s, e, False)
        finally:
            self.unless_depth -= 1
        main_locs = {s} | set(range(first_loc, len(pb.locs)))
        main_edges = pb.edges[first_edge:]
        entry = pb.new_loc()
        if starts_with_jump(escape):
            # spin.y: the escape's first element is a goto, which SPIN's jump
            # elimination replaces by the statement at its target (not lowered yet).
            self.step(as_block(escape), entry, e, False)
            record = Escape(None)
            pb.jump_escapes.append(JumpEscape(record, entry, main_locs, e, escape,
                                               self.span(escape)))
        else:
            self.step(escape, entry, e, False)
            esc_edges = pb.out_edges(entry)
            if pb.find(entry) != entry or not esc_edges:
                raise self.unsupported(escape, "an escape sequence that starts with a jump")
            record = Escape(self.executable(esc_edges, escape))
        for edge in main_edges:
            if edge.source in main_locs and pb.find(edge.source) == edge.source:
                record.pre_empt(edge)
        if record.guard is not None:
            for loc in sorted(main_locs):
                if pb.find(loc) == loc and loc != pb.find(e):
                    for edge in esc_edges:
                        pb.add_edge(replace(edge, source=loc))
        pb.escapes.setdefault(s, []).append((record, {id(x) for x in pb.out_edges(s)}))

    def executable(self, edges: list[BuildEdge], where: Tree) -> Expr:
        """Return an expression that is true iff one of ``edges`` can be taken."""
        parts: list[Expr] = []
        for edge in edges:
            g = edge.guard
            if isinstance(g, ElseGuard) or mentions_timeout(g):
                raise self.unsupported(where, "else/timeout as the first statement of an escape")
            if isinstance(edge.comm, Receive):
                c = ChanPoll(edge.comm.channel, edge.comm.args, edge.comm.random, edge.span)
                g = c if g is None else Binary("&&", g, c)
            elif isinstance(edge.comm, Send):
                cap = self.capacity_of(edge.comm.channel)
                if cap is None or cap == 0:
                    raise self.unsupported(where, "a rendezvous send as the first statement of an escape")
                c = ChanQuery("nfull", edge.comm.channel, edge.span)
                g = c if g is None else Binary("&&", g, c)
            if g is None:
                return Const(1)
            parts.append(g)
        out = parts[0]
        for p in parts[1:]:
            out = Binary("||", out, p)
        return out

    def inline_call(self, st: Tree, s: int, e: int, shared: bool) -> None:
        kids = tree_children(st)
        name_tok = next(c for c in kids if isinstance(c, Token) and c.type == "INAME")
        name = str(name_tok)
        args = [c for c in st.children[1:] if isinstance(c, Tree)]
        if name not in self.inlines:  # pragma: no cover - lexer only marks declared ones
            raise self.error(name_tok, f"unknown inline '{name}'")
        params, body, _span = self.inlines[name]
        if len(args) != len(params):
            raise self.error(
                st, f"inline {name} takes {len(params)} argument(s), {len(args)} given")
        if name in self.inline_stack:
            raise self.error(st, f"recursive inline call of '{name}'")
        env = dict(zip(params, args, strict=True))
        self.inline_env.append(env)
        self.inline_stack.append(name)
        try:
            # SPIN wraps an inline body in { } (spin -I): a block, see ``step``; each
            # expansion is a block scope of its own, so its declarations and labels
            # do not clash with those of another expansion.
            with self.block_scope():
                self.sequence(tree_subtrees(body)[0], s, e, shared=True)
        finally:
            self.inline_env.pop()
            self.inline_stack.pop()

    # ------------------------------------------------------------------ d_step

