"""d_step of the Promela lowering: one edge whose effect holds the
whole sequence (``lower.py``'s module docstring)."""

from __future__ import annotations

from lark import Token, Tree

from bridge.diagnostics import SemanticError
from bridge.frontends.promela.builder import BuildEdge
from bridge.frontends.promela.trees import (
    BOOL_T,
    label_target,
    labeled_skip_tree,
    may_break,
    mentions_timeout,
    tree_children,
    tree_subtrees,
)
from bridge.ir import (
    AssertStmt,
    Assign,
    Binary,
    ChanPoll,
    ChanQuery,
    Const,
    ElseGuard,
    Expr,
    If,
    IntType,
    LocalVar,
    Overflow,
    Stmt,
    Unary,
    Var,
    While,
)


class DSteps:
    """d_step sequences as one edge
    (a mixin of ``lower._Lowering``: its state is there)."""

    def dstep(self, st: Tree, s: int, e: int) -> None:
        pb = self.pb
        assert pb is not None
        seq = tree_subtrees(st)[0]
        if self.jumps_in(seq):
            self.dstep_graph(st, s, e)
            return
        with self.block_scope():  # the d_step's braces are a block of their own
            self.dstep_structured(st, seq, s, e)

    def dstep_structured(self, st: Tree, seq: Tree, s: int, e: int) -> None:
        """Lower a ``d_step`` without gotos as one edge with a structured effect."""
        pb = self.pb
        assert pb is not None
        steps = self.flat_steps(seq)
        span = self.span(st)
        text = self.text(st)
        edge = BuildEdge(s, e, None, text=text, span=span)
        pb.in_dstep = True
        try:
            if steps:
                first, rest = steps[0], steps[1:]
                kind = first.data
                if kind in ("send", "sorted_send"):
                    edge.comm = self.send(first)
                    edge.effect = self.dstep_effects(rest, None)
                elif kind in ("receive", "random_receive", "peek_receive", "random_peek_receive"):
                    edge.comm = self.receive(first)
                    edge.effect = self.receive_fault(first) + self.dstep_effects(rest, None)
                elif kind == "expr_stmt" and not (
                    isinstance(first.children[0], Tree) and first.children[0].data == "run_expr"
                ):
                    g = self.expr(first.children[0])
                    if mentions_timeout(g):
                        raise self.unsupported(first, "timeout inside d_step")
                    edge.guard = None if isinstance(g, Const) and g.value not in (0, False) else g
                    edge.effect = self.dstep_effects(rest, None)
                elif kind in ("if_stmt", "do_stmt"):
                    edge.guard = self.options_guard(first)
                    edge.effect = self.dstep_effects(steps, None)
                elif kind == "else_stmt":
                    raise self.error(first, "'else' must be the first statement of an option")
                else:
                    edge.effect = self.dstep_effects(steps, None)
        finally:
            pb.in_dstep = False
        pb.add_edge(edge)

    def jumps_in(self, tree: Tree) -> bool:
        """Return True if ``tree`` (inline bodies it calls included) has a ``goto``."""
        for t in tree.iter_subtrees():
            if t.data == "goto_stmt":
                return True
            if t.data == "inline_call":
                name = next(str(c) for c in t.children if isinstance(c, Token)
                            and c.type == "INAME")
                if name in self.inlines and name not in self.inline_stack:
                    self.inline_stack.append(name)
                    try:
                        if self.jumps_in(self.inlines[name][1]):
                            return True
                    finally:
                        self.inline_stack.pop()
        return False

    def dstep_graph(self, st: Tree, s: int, e: int) -> None:
        """Lower a ``d_step`` with gotos as one edge that runs its control flow graph.

        The body is lowered like any sequence (gotos and labels included) into
        locations of its own; the edge's guard is the executability of the body's
        first statements and its effect a loop over a block-local program counter that
        takes, at each location, the first executable edge (SPIN: d_step is
        deterministic) until the end; no executable edge is "block in d_step".
        """
        pb = self.pb
        assert pb is not None
        span = self.span(st)
        first_edge, first_goto, first_loc = len(pb.edges), len(pb.gotos), len(pb.locs)
        labels_before = {k: len(v) for k, v in pb.labels.items()}
        entry, done = pb.new_loc(), pb.new_loc()
        pb.in_dstep = True
        try:
            with self.block_scope():
                self.sequence(tree_subtrees(st)[0], entry, done, shared=False)
        finally:
            pb.in_dstep = False
        for src, label, lspan, _as_edge, _text, path in pb.gotos[first_goto:]:
            inside = pb.labels.get(label, [])[labels_before.get(label, 0):]
            if not inside:
                raise SemanticError.at(lspan, f"a goto out of a d_step (to '{label}')")
            pb.alias(src, label_target(inside, path), lspan)
        del pb.gotos[first_goto:]
        for label in list(pb.labels):  # a label inside a d_step cannot be a goto target
            pb.labels[label] = pb.labels[label][:labels_before.get(label, 0)]
            if not pb.labels[label]:
                del pb.labels[label]
        for k in range(first_loc, len(pb.locs)):  # nor a remote reference's (unreachable)
            pb.locs[k].labels.clear()
        body = pb.edges[first_edge:]
        del pb.edges[first_edge:]
        at = {id(x): pb.find(x.source) for x in body}
        start, end = pb.find(entry), pb.find(done)
        first = [x for x in body if at[id(x)] == start]
        if not first:
            raise self.unsupported(st, "a d_step that starts with a jump")
        pc = Var(f"_dpc{len(pb.locs)}", "block", span)
        branches: list[tuple[Expr, tuple[Stmt, ...]]] = []
        for x in body:
            if any(mentions_timeout(g) for g in (x.guard,)):
                raise self.unsupported(st, "timeout inside d_step")
            here = Binary("==", pc, Const(at[id(x)]), span)
            if isinstance(x.guard, ElseGuard):
                others = [o for o in body if o is not x and at[id(o)] == at[id(x)]]
                cond = here if not others else \
                    Binary("&&", here, Unary("!", self.executable(others, st), span), span)
            else:
                cond = Binary("&&", here, self.executable([x], st), span)
            moves = ((x.comm,) if x.comm is not None else ()) + x.effect
            branches.append((cond, moves + (Assign(pc, Const(pb.find(x.target)), span),)))
        stuck = (AssertStmt(Const(0), f"block in d_step seq: {self.text(st)}", span),)
        guard = None if any(isinstance(x.guard, ElseGuard) for x in first) \
            else self.executable(first, st)  # an else makes the first statement executable
        edge = BuildEdge(s, e, guard, text=self.text(st), span=span)
        edge.effect = (LocalVar(pc.name, IntType(0, len(pb.locs), Overflow.WRAP, "int"),
                                Const(start), span),
                       While(Binary("!=", pc, Const(end), span),
                             (If(tuple(branches), stuck, span),), span))
        pb.add_edge(edge)

    def fresh_flag(self) -> str:
        """Return a new name for a d_step loop's block-local break flag."""
        self.flags += 1
        return f"_break{self.flags}"

    def flat_steps(self, seq: Tree) -> list[Tree]:
        """Return the statements of a d_step sequence, blocks and atomics flattened,
        declarations registered (their initialisers become assignments)."""
        pb = self.pb
        assert pb is not None
        out: list[Tree] = []
        for step in tree_subtrees(seq):
            if step.data in ("one_decl", "unsigned_decl"):
                for node, effect, _text in self.declare(step, pb):
                    out.append(Tree("_late_assign", [node, effect], step.meta))
                continue
            if step.data == "xu_decl":
                self.channel_assertions(step)
                continue
            pb.stmt_seen = True
            if step.data in ("block", "atomic_stmt", "dstep_stmt"):
                out.extend(self.flat_steps(tree_subtrees(step)[0]))
            elif step.data == "labeled":
                out.append(step.children[1])
            elif step.data == "labeled_skip":
                out.append(labeled_skip_tree(step).children[1])
            elif step.data == "inline_call":
                out.append(step)
            else:
                out.append(step)
        return out

    def option_guard(self, q: Tree) -> tuple[Expr | None, list[Tree], bool]:
        """Return (guard, remaining steps, is_else) of a d_step option."""
        steps = self.flat_steps(q)
        if not steps:
            return Const(1), [], False
        first = steps[0]
        kind = first.data
        if kind == "else_stmt":
            return None, steps[1:], True
        if kind == "expr_stmt" and not (isinstance(first.children[0], Tree)
                                        and first.children[0].data == "run_expr"):
            g = self.expr(first.children[0])
            if mentions_timeout(g):
                raise self.unsupported(first, "timeout inside d_step")
            return g, steps[1:], False
        if kind in ("receive", "random_receive"):
            r = self.receive(first)
            return ChanPoll(r.channel, r.args, r.random, r.span), steps, False
        if kind in ("send", "sorted_send"):
            snd = self.send(first)
            return ChanQuery("nfull", snd.channel, snd.span), steps, False
        if kind in ("if_stmt", "do_stmt"):
            return self.options_guard(first), steps, False
        return Const(1), steps, False

    def options_guard(self, st: Tree) -> Expr | None:
        opts = [c for c in st.children if isinstance(c, Tree) and c.data == "options"][0]
        parts = []
        pb = self.pb
        assert pb is not None
        for q in tree_subtrees(opts):
            g, _rest, is_else = self.option_guard(q)
            if is_else:
                return None
            assert g is not None
            parts.append(g)
        out = parts[0]
        for p in parts[1:]:
            out = Binary("||", out, p)
        return out

    def dstep_effects(self, steps: list[Tree], brk: Var | None) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for i, st in enumerate(steps):
            kind = st.data
            span = self.span(st)
            if kind == "_late_assign":
                out.extend(st.children[1])
                continue
            if kind == "break_stmt":
                if brk is None:
                    raise self.error(st, "'break' outside a do loop")
                out.append(Assign(brk, Const(1), span))
                return tuple(out)  # the rest of this sequence is dead
            if kind == "goto_stmt":
                raise self.unsupported(st, "goto inside d_step")
            if kind == "else_stmt":
                raise self.error(st, "'else' must be the first statement of an option")
            if kind in ("if_stmt", "do_stmt"):
                inner_brk = brk
                if kind == "do_stmt":
                    inner_brk = Var(self.fresh_flag(), "block", span)
                branches: list[tuple[Expr, tuple[Stmt, ...]]] = []
                otherwise: tuple[Stmt, ...] | None = None
                opts = [c for c in st.children if isinstance(c, Tree) and c.data == "options"][0]
                for q in tree_subtrees(opts):
                    g, rest, is_else = self.option_guard(q)
                    body = self.dstep_effects(rest, inner_brk)
                    if is_else:
                        otherwise = body
                    else:
                        assert g is not None
                        branches.append((g, body))
                if otherwise is None:
                    otherwise = (AssertStmt(Const(0), "block in d_step seq (no option enabled)",
                                            span),)
                stmt: Stmt = If(tuple(branches), otherwise, span)
                if kind == "do_stmt":
                    assert inner_brk is not None
                    out.append(LocalVar(inner_brk.name, BOOL_T, Const(0), span))
                    out.append(While(Unary("!", inner_brk), (stmt,), span))
                else:
                    out.append(stmt)
                if brk is not None and may_break(st):
                    rest_code = self.dstep_effects(steps[i + 1:], brk)
                    if rest_code:
                        out.append(If(((Unary("!", brk), rest_code),), (), span))
                    return tuple(out)
                continue
            if kind == "for_range":
                kids = tree_children(st)
                var = self.loop_variable(st)
                lo, hi = self.expr(kids[2]), self.expr(kids[4])
                inner_brk = Var(self.fresh_flag(), "block", span)
                body = self.dstep_effects(self.flat_steps(kids[5]), inner_brk)
                out.append(Assign(var, lo, span))
                out.append(LocalVar(inner_brk.name, BOOL_T, Const(0), span))
                out.append(While(
                    Binary("&&", Unary("!", inner_brk), Binary("<=", var, hi)),
                    (If(((Unary("!", inner_brk), body),), ()),
                     If(((Unary("!", inner_brk), (Assign(var, Binary("+", var, Const(1))),)),), ())),
                    span))
                continue
            if kind == "select_stmt":
                out.extend(self.dstep_select(st))
                continue
            if kind in ("for_in", "unless"):
                raise self.unsupported(st, f"{kind.split('_')[0]} inside d_step")
            if kind == "inline_call":
                name_tok = next(c for c in st.children if isinstance(c, Token) and c.type == "INAME")
                params, body_tree, _ = self.inlines[str(name_tok)]
                args = [c for c in st.children[1:] if isinstance(c, Tree)]
                if len(args) != len(params):
                    raise self.error(st, f"inline {name_tok} takes {len(params)} argument(s), "
                                     f"{len(args)} given")
                self.inline_env.append(dict(zip(params, args, strict=True)))
                try:
                    with self.block_scope():
                        out.extend(self.dstep_effects(self.flat_steps(tree_subtrees(body_tree)[0]),
                                                      brk))
                finally:
                    self.inline_env.pop()
                continue
            if kind == "expr_stmt" and not (isinstance(st.children[0], Tree)
                                            and st.children[0].data in ("run_expr",
                                                                        "set_priority")):
                g = self.expr(st.children[0])
                if isinstance(g, Const) and g.value not in (0, False):
                    continue
                out.append(AssertStmt(g, f"block in d_step seq: {self.text(st)}", span))
                continue
            edge = self.simple(st, 0, 0)
            if edge.comm is not None:
                out.append(edge.comm)
            out.extend(edge.effect)
        return tuple(out)

    def dstep_select(self, st: Tree) -> tuple[Stmt, ...]:
        """Return a ``select`` inside a ``d_step``: the first executable option of the
        form SPIN builds (``select_form``) each time, so ``v`` ends at ``lo`` for the
        choice and spin.y's loop (its ``break`` first) and at ``hi`` for the lexer's loop
        (``v = lo; do :: (v < hi) -> v++ :: break od``), as pan runs them."""
        kids = tree_children(st)
        var = self.loop_variable(st)
        span = self.span(st)
        lo, hi = self.expr(kids[2]), self.expr(kids[4])
        form, _ = self.select_form(st)
        out: tuple[Stmt, ...] = (Assign(var, lo, span),)
        if form == "lexer loop":
            out += (While(Binary("<", var, hi, span),
                          (Assign(var, Binary("+", var, Const(1), span), span),), span),)
        return out

    # ------------------------------------------------------------------ channels

