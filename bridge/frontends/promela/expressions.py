"""Expressions of the Promela lowering: names, variable
references, records, remote references, inline substitution."""

from __future__ import annotations

from lark import Token, Tree

from bridge.diagnostics import ParseError, Span
from bridge.frontends.promela.trees import (
    BINOPS,
    BUILTINS,
    LTL_NODES,
    Symbol,
    fold_int,
    index_tuples,
    tree_children,
    tree_subtrees,
)
from bridge.ir import (
    ArrayType,
    Binary,
    Builtin,
    ChanPoll,
    ChanQuery,
    Conditional,
    Const,
    Enabled,
    Expr,
    GetPriority,
    Index,
    RemoteLabel,
    RemoteVar,
    Unary,
    Var,
)


class Expressions:
    """Expressions, variable references and inline substitution
    (a mixin of ``lower._Lowering``: its state is there)."""

    def lookup(self, name: str) -> Symbol | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if self.pb is not None and name in self.pb.symbols:
            return self.pb.symbols[name]
        return self.symbols.get(name)

    def lvalue(self, tree: Tree) -> Expr:
        e = self.expr(tree)
        if isinstance(e, Const):
            raise self.error(tree, f"cannot assign to constant '{self.text(tree)}'")
        if isinstance(e, Builtin) or not isinstance(e, (Var, Index, RemoteVar)):
            raise self.error(tree, f"cannot assign to '{self.text(tree)}'")
        sym = self.lookup(e.name) if isinstance(e, Var) else None
        if sym is not None and sym.kind == "chan" and not sym.reassigned:
            raise self.error(tree, f"cannot assign to channel '{e.name}'")
        return e

    def substitute(self, tree: Tree) -> Tree | None:
        """Return the inline argument replacing a varref's head name, or None."""
        if not self.inline_env:
            return None
        fields = tree_subtrees(tree)
        head = str(fields[0].children[0])
        for env in reversed(self.inline_env):
            if head in env:
                actual = env[head]
                if len(fields) == 1 and fields[0].children[1] is None:
                    return actual
                if not (isinstance(actual, Tree) and actual.data == "varref"):
                    raise self.error(tree, f"inline parameter '{head}' is used as a variable but "
                                     f"the argument is '{self.text(actual)}'")
                afields = list(tree_subtrees(actual))
                idx = fields[0].children[1]
                if idx is not None:
                    last = afields[-1]
                    if last.children[1] is not None:
                        raise self.error(tree, f"cannot index the inline argument '{self.text(actual)}'")
                    afields[-1] = Tree("field", [last.children[0], self.substitute_all(idx)],
                                       last.meta)
                rest = [self.substitute_indices(f) for f in fields[1:]]
                return Tree("varref", afields + rest, tree.meta)
            break
        return None

    def substitute_indices(self, f: Tree) -> Tree:
        """Return a ``field`` whose index has the inline's parameters substituted."""
        idx = f.children[1]
        if idx is None:
            return f
        return Tree("field", [f.children[0], self.substitute_all(idx)], f.meta)

    def substitute_all(self, tree: Tree | Token) -> Tree | Token:
        """Return ``tree`` with every parameter of the innermost inline replaced by its
        argument. The part of a varref that follows a substituted parameter
        (``p.f[i]`` for argument ``a``: ``a.f[i]``) is lowered outside the inline's
        parameter scope, so its indices must not mention the parameters any more."""
        if not isinstance(tree, Tree):
            return tree
        if tree.data == "varref":
            sub = self.substitute(tree)
            if sub is not None:
                return sub
            return Tree("varref", [self.substitute_indices(f) for f in tree_subtrees(tree)],
                        tree.meta)
        return Tree(tree.data, [self.substitute_all(c) for c in tree.children], tree.meta)

    def varref(self, tree: Tree) -> Expr:
        sub = self.substitute(tree)
        if sub is not None:
            # The argument is lowered outside the inline's own parameter scope.
            env = self.inline_env.pop()
            try:
                return self.expr(sub)
            finally:
                self.inline_env.append(env)
        fields = tree_subtrees(tree)
        head_tok = fields[0].children[0]
        head = str(head_tok)
        idx_tree = fields[0].children[1]
        span = self.span(tree)
        if head in BUILTINS and len(fields) == 1 and idx_tree is None:
            if head == "_pid" and self.pb is not None and "_pid" in self.pb.symbols:
                return Var("_pid", "local", span)  # see receives_into_pid
            return Builtin(head, span)
        if head == "_priority" and len(fields) == 1 and idx_tree is None:
            if self.pb is None or self.pb is self.never_builder:
                raise self.error(head_tok, "'_priority' outside a proctype")
            return GetPriority(Builtin("_pid", span), span)
        sym = self.lookup(head)
        if sym is None:
            raise self.error(head_tok, f"undeclared variable '{head}'")
        if sym.kind == "const":
            if len(fields) > 1 or idx_tree is not None:
                raise self.error(tree, f"'{head}' is an mtype constant")
            return Const(sym.value, span)
        if sym.kind == "record":
            path, indices, record = self.record_path(sym, fields, head_tok)
            if record is not None:
                raise self.error(
                    tree, f"incomplete structure reference '{self.text(tree)}': a whole "
                    "record can only be sent or received")
            e: Expr = Var(".".join(path), sym.scope, span)
            for ix in indices:
                e = Index(e, ix, span)
            return e
        if len(fields) > 1:
            raise self.error(fields[1], f"'{head}' is not a record")
        if sym.kind == "chan":
            if idx_tree is not None:
                raise self.error(tree, f"channel '{head}' is not an array")
            return Var(sym.name, sym.scope, span)
        if sym.kind == "chanarray":
            if idx_tree is None:
                raise self.error(tree, f"'{head}' is an array of channels: an index is needed")
            assert sym.length is not None
            index = self.expr(idx_tree)
            k = fold_int(index)
            if k is not None:
                if not 0 <= k < sym.length:
                    raise self.error(idx_tree, f"index {k} out of range for '{head}'")
                return Var(f"{sym.name}[{k}]", sym.scope, span)
            # Out of range: channel id 0, which the engine reports as an invalid channel.
            out: Expr = Const(0, span)
            for k in reversed(range(sym.length)):
                out = Conditional(Binary("==", index, Const(k), span),
                                  Var(f"{sym.name}[{k}]", sym.scope, span), out, span)
            return out
        e = Var(sym.name, sym.scope, span)
        if idx_tree is not None:
            if not isinstance(sym.type, ArrayType):
                raise self.error(tree, f"'{head}' is not an array")
            e = Index(e, self.expr(idx_tree), span)
        return e

    def expr(self, tree: Tree | Token) -> Expr:
        if isinstance(tree, Token):  # pragma: no cover - grammar wraps tokens
            raise self.error(tree, f"unexpected token {tree}")
        kind = tree.data
        span = self.span(tree)
        if kind == "varref":
            return self.varref(tree)
        if kind == "number":
            return Const(int(tree.children[0]), span)
        if kind == "charlit":
            raw = str(tree.children[0])[1:-1]
            value = {"\\n": 10, "\\t": 9, "\\r": 13, "\\f": 12}.get(raw)
            if value is None:
                value = ord(raw[-1])
            return Const(value, span)
        if kind in ("true", "skip"):
            return Const(1, span)
        if kind == "false":
            return Const(0, span)
        if kind == "binary":
            left, op, right = tree.children
            return Binary(BINOPS[op.type], self.expr(left), self.expr(right), span)
        if kind == "unop":
            op, operand = tree.children
            if op.type == "BANG" and isinstance(operand, Tree) and operand.data == "chan_pred":
                raise ParseError.at(
                    span, "full/empty/nfull/nempty cannot be negated in SPIN",
                    "use nfull/nempty/full/empty instead")
            inner = self.expr(operand)
            symbol = {"BANG": "!", "TILDE": "~", "MINUS": "-"}[op.type]
            if symbol == "-" and isinstance(inner, Const):
                return Const(-int(inner.value), span)
            return Unary(symbol, inner, span)
        if kind == "cond":
            c, _arrow, a, b = tree.children
            return Conditional(self.expr(c), self.expr(a), self.expr(b), span)
        if kind == "chan_len":
            return ChanQuery("len", self.chan_ref(tree_subtrees(tree)[0]), span)
        if kind == "chan_pred":
            op = str(tree.children[0])
            return ChanQuery(op, self.chan_ref(tree_subtrees(tree)[0]), span)
        if kind in ("poll", "random_poll"):
            chan = self.chan_ref(tree.children[0])
            args = self.fit_receive(chan, self.recv_args(tree.children[2]), tree, poll=True)
            return ChanPoll(chan, args, kind == "random_poll", span)
        if kind == "run_expr":
            raise self.error(tree, "'run' may only be used as a statement or as x = run P(...)")
        if kind == "timeout":
            return Builtin("timeout", span)
        if kind == "np":
            return Builtin("np_", span)
        if kind in ("remote_label", "remote_label_single"):
            kids = tree_children(tree)
            proctype = str(kids[0])
            pid = self.expr(kids[1]) if kind == "remote_label" else None
            label = str(kids[-1])
            self.remote_checks.append((proctype, "label", label, self.span(kids[-1])))
            return RemoteLabel(proctype, pid, label, span)
        if kind in ("remote_var", "remote_var_single"):
            kids = tree_children(tree)
            proctype = str(kids[0])
            pid = self.expr(kids[1]) if kind == "remote_var" else None
            return self.remote_var(proctype, pid, kids[-1], span)
        if kind == "enabled":
            self.enabled_spans.append(span)
            return Enabled(self.expr(tree_subtrees(tree)[0]), span)
        if kind == "get_priority":
            return GetPriority(self.expr(tree_subtrees(tree)[0]), span)
        if kind == "set_priority":
            raise self.error(tree, "set_priority(pid, p) is a statement, not a value")
        if kind == "pc_value":
            raise self.unsupported(tree, f"{kind}()")
        if kind in LTL_NODES:
            raise self.error(tree, "temporal operators are only allowed in ltl formulas")
        raise self.error(tree, f"unexpected expression {kind}")  # pragma: no cover

    def record_path(self, sym: Symbol, fields: list[Tree], head_tok: Token
                    ) -> tuple[list[str], list[Expr], str | None]:
        """Return (IR name parts, indices, record type still selected or None)."""
        path = [sym.name]
        indices: list[Expr] = []
        idx_tree = fields[0].children[1]
        if idx_tree is not None:
            indices.append(self.expr(idx_tree))
        elif sym.length is not None:
            raise self.error(head_tok, f"'{head_tok}' is an array of records: an index is needed")
        record = sym.record
        for f in fields[1:]:
            fname = str(f.children[0])
            if record is None:
                raise self.error(f, f"'{'.'.join(path)}' has no field '{fname}'")
            spec = next((x for x in self.typedefs[record] if x.name == fname), None)
            if spec is None:
                raise self.error(f, f"type {record} has no field '{fname}'")
            path.append(fname)
            if f.children[1] is not None:
                if spec.length is None:
                    raise self.error(f, f"field '{fname}' is not an array")
                indices.append(self.expr(f.children[1]))
            elif spec.length is not None and spec.record is not None:
                raise self.error(f, f"field '{fname}' is an array of records: an index is needed")
            record = spec.record
        return path, indices, record

    def record_cells(self, tree: Tree) -> tuple[str, list[Expr]] | None:
        """Return (record type, one lvalue per scalar cell in field order) if ``tree``
        names a whole record, else None."""
        if not (isinstance(tree, Tree) and tree.data == "varref"):
            return None
        sub = self.substitute(tree)
        if sub is not None:
            env = self.inline_env.pop()
            try:
                return self.record_cells(sub)
            finally:
                self.inline_env.append(env)
        fields = tree_subtrees(tree)
        head_tok = fields[0].children[0]
        sym = self.lookup(str(head_tok))
        if sym is None or sym.kind != "record":
            return None
        path, indices, record = self.record_path(sym, fields, head_tok)
        if record is None:
            return None
        span = self.span(tree)
        cells: list[Expr] = []
        for suffix, _t, dims, _init in self.leaves(record):
            base: Expr = Var(".".join(path) + "." + suffix, sym.scope, span)
            for ix in indices:
                base = Index(base, ix, span)
            for combo in index_tuples(dims):
                e = base
                for i in combo:
                    e = Index(e, Const(i), span)
                cells.append(e)
        return record, cells

    def send_values(self, trees: list[Tree]) -> tuple[Expr, ...]:
        out: list[Expr] = []
        for t in trees:
            cells = self.record_cells(t)
            if cells is not None:
                out.extend(cells[1])
            else:
                out.append(self.expr(t))
        return tuple(out)

    def remote_var(self, proctype: str, pid: Expr | None, ref: Tree, span: Span | None) -> Expr:
        fields = tree_subtrees(ref)
        name = str(fields[0].children[0])
        u = self.proctypes.get(proctype)
        if u is None:
            raise self.error(ref, f"unknown proctype '{proctype}'")
        declared = self.declared_locals(proctype)
        if name not in declared:
            raise self.error(ref, f"proctype {proctype} has no local variable '{name}'")
        if len(fields) > 1:
            raise self.unsupported(ref, "a remote reference to a record field")
        e: Expr = RemoteVar(proctype, pid, name, span)
        if fields[0].children[1] is not None:
            e = Index(e, self.expr(fields[0].children[1]), span)
        return e

    def declared_locals(self, proctype: str) -> set[str]:
        """Return the names of the locals and parameters declared in a proctype."""
        u = self.proctypes[proctype]
        names = set(self.param_names(proctype))
        for t in u.iter_subtrees():
            if t.data in ("one_decl", "unsigned_decl"):
                kids = tree_children(t)
                for c in kids:
                    if isinstance(c, Tree) and c.data in ("ivar", "uvar"):
                        names.add(str(c.children[0]))
        return names


