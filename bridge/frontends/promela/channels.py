"""Channel operations of the Promela lowering: sends, receives
and their arity, run, priorities."""

from __future__ import annotations

from lark import Token, Tree

from bridge.frontends.promela.trees import Symbol, tree_children, tree_subtrees
from bridge.ir import (
    ArrayType,
    AssertStmt,
    Builtin,
    ChanType,
    Conditional,
    Const,
    Expr,
    Index,
    Receive,
    RecvArg,
    RecvBind,
    RecvMatch,
    Run,
    Send,
    SetPriority,
    Stmt,
    Type,
    Var,
)


class Channels:
    """Channel operations, run and priorities
    (a mixin of ``lower._Lowering``: its state is there)."""

    def capacity_of(self, chan: Expr) -> int | None:
        sym = self.chan_sym(chan)
        return None if sym is None else sym.capacity

    def chan_sym(self, chan: Expr) -> Symbol | None:
        if isinstance(chan, Conditional):
            chan = chan.then
        if isinstance(chan, Var) and chan.scope == "local" and chan.name.endswith("]") \
                and self.pb is not None:
            root = chan.name[: chan.name.index("[")]
            for sym in self.pb.symbols.values():
                if sym.kind == "chanarray" and sym.name == root:
                    return sym
        base = chan
        while isinstance(base, Index):
            base = base.base
        if not isinstance(base, Var):
            return None
        table = self.pb.symbols if (self.pb is not None and base.scope == "local") else self.symbols
        sym = table.get(base.name)
        return None if sym is not None and sym.reassigned else sym

    def send(self, st: Tree) -> Send:
        chan = self.chan_ref(st.children[0])
        args_tree = st.children[2]
        args = self.send_values(tree_subtrees(args_tree))
        # Fewer values than fields: SPIN accepts the model, and pan reports "too few
        # parameters in send stmnt" when the send executes (the engine does the same).
        self.check_arity(chan, len(args), st, fewer_allowed=True)
        return Send(chan, args, st.data == "sorted_send", self.span(st))

    def receive(self, st: Tree) -> Receive:
        chan = self.chan_ref(st.children[0])
        args_tree = [c for c in st.children if isinstance(c, Tree)
                     and c.data == "recv_args"][0]
        args = self.fit_receive(chan, self.recv_args(args_tree), st)
        random = st.data in ("random_receive", "random_peek_receive")
        peek = st.data in ("peek_receive", "random_peek_receive")
        return Receive(chan, args, random, peek, self.span(st))

    def fit_receive(self, chan: Expr, args: tuple[RecvArg, ...], st: Tree,
                    poll: bool = False) -> tuple[RecvArg, ...]:
        """Return a receive's (or poll's) arguments fitted to the channel's fields.

        SPIN accepts any number (pan.c ``qrecv``): a receive with fewer arguments
        takes the message and reports "missing pars in receive" (a peek ``?<>`` takes
        nothing and reports nothing), one with more reads
        past the last field and reports "too many fields in recv" (``receive_fault``
        adds that error to the step; the missing fields are wildcards, the extra
        ones dropped). A poll tests only the fields it names; a constant past the
        last field would make evaluating it an error, which is refused by name."""
        sym = self.chan_sym(chan)
        if sym is None or sym.fields is None:
            return args
        k = len(sym.fields)
        if len(args) <= k:
            wildcard = RecvBind(None, args[-1].span if args else None)
            return args + (wildcard,) * (k - len(args))
        if any(isinstance(a, RecvMatch) for a in args[k:]):
            raise self.unsupported(
                st, f"a {'poll' if poll else 'receive'} that compares a value past the last "
                f"field of channel '{sym.name}' ({k} field{'s' if k != 1 else ''}; pan "
                "reports 'too many fields in recv' when it evaluates it)")
        return args[:k]

    def receive_fault(self, st: Tree) -> tuple[Stmt, ...]:
        """Return the run-time error pan reports when a receive whose argument count
        differs from its channel's fields executes (see ``fit_receive``), or ()."""
        chan = self.chan_ref(st.children[0])
        sym = self.chan_sym(chan)
        if sym is None or sym.fields is None:
            return ()
        args_tree = next(c for c in st.children if isinstance(c, Tree) and c.data == "recv_args")
        n = len(self.recv_args(args_tree))
        peek = st.data in ("peek_receive", "random_peek_receive")
        if n == len(sym.fields) or (peek and n < len(sym.fields)):
            return ()  # a peek leaves the message, pan checks the count only on removal
        what = "missing pars in receive" if n < len(sym.fields) else "too many fields in recv"
        return (AssertStmt(Const(0), f"{what}: {self.text(st)}", self.span(st)),)

    def recv_args(self, tree: Tree) -> tuple[RecvArg, ...]:
        out: list[RecvArg] = []
        for a in tree_subtrees(tree):
            span = self.span(a)
            if a.data == "recv_eval":
                out.append(RecvMatch(self.expr(tree_subtrees(a)[0]), span))
            elif a.data == "neg_const":
                out.append(RecvMatch(Const(-int(a.children[1])), span))
            elif a.data == "varref":
                fields = tree_subtrees(a)
                head = str(fields[0].children[0])
                if len(fields) == 1 and head == "_" and fields[0].children[1] is None:
                    out.append(RecvBind(None, span))
                    continue
                cells = self.record_cells(a)
                if cells is not None:
                    out.extend(RecvBind(c, span) for c in cells[1])
                    continue
                e = self.expr(a)
                if isinstance(e, Const):
                    out.append(RecvMatch(e, span))
                else:
                    out.append(RecvBind(self.lvalue(a), span))
            else:
                out.append(RecvMatch(self.expr(a), span))
        return tuple(out)

    def check_arity(self, chan: Expr, n: int, st: Tree, fewer_allowed: bool = False) -> None:
        sym = self.chan_sym(chan)
        if sym is None or sym.fields is None:
            return
        k = len(sym.fields)
        if n > k or (n < k and not fewer_allowed):
            plural = "field" if k == 1 else "fields"
            raise self.error(st, f"channel '{sym.name}' has {k} {plural}, the statement uses {n}")

    def chan_ref(self, tree: Tree) -> Expr:
        e = self.expr(tree)
        t = self.type_of(e)
        if t is not None and not isinstance(t, ChanType):
            raise self.error(tree, f"'{self.text(tree)}' is not a channel")
        return e

    def type_of(self, e: Expr) -> Type | None:
        if isinstance(e, Index):
            t = self.type_of(e.base)
            return t.element if isinstance(t, ArrayType) else None
        if isinstance(e, Conditional):
            return self.type_of(e.then)
        if isinstance(e, Var) and self.pb is not None and e.scope == "local" and any(
                c.name == e.name for c in self.pb.channels):
            return ChanType()
        if isinstance(e, Var):
            table = self.pb.symbols if (self.pb is not None and e.scope == "local") else self.symbols
            sym = table.get(e.name)
            if sym is not None:
                if sym.kind == "chan":
                    return ChanType()
                return sym.type
            for v in self.globals if e.scope == "global" else (self.pb.locals if self.pb else []):
                if v.name == e.name:
                    return v.type
        return None

    # ------------------------------------------------------------------ run

    def run_stmt(self, tree: Tree, target: Expr | None) -> Run:
        kids = tree_children(tree)
        name_tok = kids[1]
        name = str(name_tok)
        arg_trees = [c for c in kids[2:] if isinstance(c, Tree)]
        priority: Expr | None = None
        if any(isinstance(c, Token) and c.type == "PRIORITY" for c in kids):
            # SPIN: a number after 'priority'; 0 means the default (1), as in pan.
            prio_tree = arg_trees.pop()
            value = self.const_int(prio_tree, "the priority of a run")
            if not 0 <= value <= 255:
                raise self.error(prio_tree, f"bad priority {value} in run {name}, valid "
                                 "range: 1..255")
            priority = Const(value, self.span(prio_tree)) if value else None
        args = self.send_values(arg_trees)  # records: fields
        if name not in self.proctypes:
            raise self.error(name_tok, f"unknown proctype '{name}'")
        nparams = len(self.param_names(name))
        if nparams != len(args):
            raise self.error(tree, f"proctype {name} takes {nparams} argument(s), {len(args)} given")
        return Run(name, args, target, self.span(tree), priority)

    def own_priority_target(self, st: Tree) -> Expr | None:
        """Return ``_pid`` if the statement assigns ``_priority`` (the process's own
        priority, pan's ``_priority`` field), else None."""
        ref = st.children[0]
        if not (isinstance(ref, Tree) and ref.data == "varref"):
            return None
        fields = tree_subtrees(ref)
        if len(fields) != 1 or str(fields[0].children[0]) != "_priority":
            return None
        if fields[0].children[1] is not None:
            raise self.error(ref, "'_priority' is not an array")
        if self.pb is None or self.pb is self.never_builder:
            raise self.error(ref, "'_priority' outside a proctype")
        return Builtin("_pid", self.span(ref))

    def set_priority(self, tree: Tree) -> SetPriority:
        """Return the statement ``set_priority(pid, value)`` (pan checks 1..255)."""
        pid_tree, value_tree = tree_subtrees(tree)
        return SetPriority(self.expr(pid_tree), self.expr(value_tree), True, self.span(tree))

    def param_names(self, proctype: str) -> list[str]:
        if proctype not in self.proc_params:
            u = self.proctypes[proctype]
            names: list[str] = []
            for c in tree_children(u):
                if isinstance(c, Tree) and c.data == "param_list":
                    for pd in tree_subtrees(c):
                        for nm, _t, rec, *_rest in self.decl_items(pd):
                            if rec is not None and rec in self.typedefs:
                                names.extend(f"{nm}.{leaf[0]}" for leaf in self.leaves(rec))
                            else:
                                names.append(nm)
            self.proc_params[proctype] = names
        return self.proc_params[proctype]

    # ------------------------------------------------------------------ expressions

