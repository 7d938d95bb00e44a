"""Declarations of the Promela lowering: mtypes, typedefs,
variables, arrays, channels and their initial values."""

from __future__ import annotations

from dataclasses import replace

from lark import Token, Tree

from bridge.diagnostics import SemanticError
from bridge.frontends.promela.builder import ProcBuilder
from bridge.frontends.promela.trees import (
    BOOL_T,
    BUILTINS,
    ChanInit,
    RecordField,
    Symbol,
    cell_assigns,
    fold_int,
    index_tuples,
    mtype_type,
    tree_children,
    tree_subtrees,
    wrap_type,
)
from bridge.ir import (
    BIT,
    BYTE,
    INT,
    PID,
    SHORT,
    ArrayType,
    Channel,
    ChanType,
    Const,
    Expr,
    Stmt,
    Type,
    Variable,
    unsigned,
)


class Declarations:
    """Declarations: mtypes, typedefs, variables, channels
    (a mixin of ``lower._Lowering``: its state is there)."""

    def mtype_def(self, u: Tree) -> None:
        set_name: str | None = None
        names: list[Token] = []
        for c in tree_children(u):
            if isinstance(c, Tree) and c.data == "mtype_name":
                set_name = str(c.children[0])
            elif isinstance(c, Token) and c.type == "NAME":
                names.append(c)
        base = self.mtype_counts.get(set_name, 0)
        k = len(names)
        if base + k > 255:
            raise self.error(u, "too many mtype names (at most 255)")
        for i, tok in enumerate(names):
            if tok.value in self.symbols:
                raise self.error(tok, f"'{tok.value}' already declared")
            value = base + k - i
            self.symbols[tok.value] = Symbol("const", tok.value, "global", value=value,
                                           span=self.span(tok))
            self.enums.append((str(tok.value), value))
        self.mtype_counts[set_name] = base + k

    def typename(self, t: Tree) -> tuple[Type | None, str | None]:
        """Return (IR type, None) or (None, typedef name)."""
        tok = t.children[0]
        kind = tok.type
        if kind == "BIT":
            return BIT, None
        if kind == "BOOL":
            return BOOL_T, None
        if kind == "BYTE":
            return BYTE, None
        if kind == "SHORT":
            return SHORT, None
        if kind == "INT":
            return INT, None
        if kind == "PID":
            return PID, None
        if kind == "CHAN":
            return ChanType(), None
        if kind == "MTYPE":
            set_name = None
            if len(t.children) > 1 and t.children[1] is not None:
                set_name = str(t.children[1].children[0])
                if set_name not in self.mtype_counts:
                    raise self.error(t, f"undeclared mtype set '{set_name}'")
            return mtype_type(set_name), None
        if kind == "UNAME":
            return None, str(tok.value)
        raise self.error(t, f"unknown type {tok}")  # pragma: no cover

    def typedef(self, u: Tree) -> None:
        name = str(u.children[1])
        if name in self.typedefs:
            raise self.error(u.children[1], f"typedef '{name}' already declared")
        fields: list[RecordField] = []
        decls = tree_subtrees(u.children[2])
        for d in decls:
            for fname, ftype, frec, flen, finit, tok in self.decl_items(d):
                if any(f.name == fname for f in fields):
                    raise self.error(tok, f"field '{fname}' declared twice in {name}")
                init: Expr | tuple[Expr, ...] | ChanInit | None = None
                if isinstance(finit, Tree) and finit.data == "ch_init":
                    if not isinstance(ftype, ChanType):
                        raise self.error(tok, f"chan initialiser for non-channel '{fname}'")
                    init = ChanInit(*self.channel_spec(finit))
                elif finit is not None:
                    init = self.initial_value(finit, flen)
                fields.append(RecordField(fname, ftype, frec, flen, init))
        self.typedefs[name] = fields

    def decl_items(self, d: Tree):
        """Yield (name, type, record, length, init tree, name token) of a declaration."""
        kids = tree_children(d)
        if kids and isinstance(kids[0], Tree) and kids[0].data == "visibility":
            kids = kids[1:]
        if d.data in ("unsigned_decl", "unsigned_param"):
            for uv in kids:
                if not isinstance(uv, Tree):
                    continue
                name_tok = uv.children[0]
                width = self.const_int(uv.children[1], "the width of an unsigned")
                if not 1 <= width <= 31:
                    raise SemanticError.at(
                        self.span(uv.children[1]),
                        f"invalid unsigned width {width}: must be 1..31",
                    )
                init = uv.children[3] if len(uv.children) > 3 else None
                yield str(name_tok), unsigned(width), None, None, init, name_tok
            return
        t, rec = self.typename(kids[0])
        for iv in kids[1:]:
            if isinstance(iv, Token) and iv.type == "NAME":  # a parameter name
                yield str(iv), t, rec, None, None, iv
                continue
            if not isinstance(iv, Tree):
                continue
            ch = tree_children(iv)
            name_tok = ch[0]
            length = None
            init = None
            for c in ch[1:]:
                if isinstance(c, Tree) and c.data == "array_size":
                    length = self.array_bound(c.children[0])
                    if length < 1:
                        raise self.error(c, "an array size must be positive")
                elif isinstance(c, Token) and c.type == "ASGN":
                    continue
                else:
                    init = c
            yield str(name_tok), t, rec, length, init, name_tok

    def array_bound(self, tree: Tree) -> int:
        """Return an array size: a constant, or (spin.y ``NAME '[' NAME ']'``, with a
        warning in SPIN) a variable's name, which stands for its initial value when
        that is a positive constant and for 1 otherwise."""
        fields = tree_subtrees(tree) if tree.data == "varref" else []
        if len(fields) == 1 and fields[0].children[1] is None:
            sym = self.lookup(str(fields[0].children[0]))
            if sym is not None and sym.kind == "var" and sym.length is None:
                var = next((v for v in (self.globals if sym.scope == "global" else
                                        (self.pb.locals if self.pb else []))
                            if v.name == sym.name), None)
                init = var.init if var is not None else None
                value = fold_int(init) if init is not None and not isinstance(init, tuple) else None
                return value if value is not None and value > 0 else 1
        return self.const_int(tree, "an array size")

    def leaves(self, record: str) -> list[tuple[str, Type, tuple[int, ...], object]]:
        """Return (path suffix, scalar type, dims, init) of each leaf field of a record."""
        out = []
        for f in self.typedefs[record]:
            dims = (f.length,) if f.length is not None else ()
            if f.record is not None:
                for suffix, t, d, init in self.leaves(f.record):
                    out.append((f"{f.name}.{suffix}", t, dims + d, init))
            else:
                assert f.type is not None
                out.append((f.name, f.type, dims, f.init))
        return out

    def initial_value(self, init: Tree, length: int | None) -> Expr | tuple[Expr, ...]:
        if isinstance(init, Tree) and init.data == "list_init":
            values = tuple(self.expr(c) for c in tree_subtrees(init))
            if length is None:
                raise self.error(init, "a list initialiser needs an array")
            if len(values) > length:
                raise self.error(init, f"too many initialisers for an array of {length}")
            return values + tuple(Const(0) for _ in range(length - len(values)))
        if isinstance(init, Tree) and init.data == "ch_init":
            raise self.error(init, "a channel initialiser needs a chan variable")
        value = self.expr(init)
        if length is not None:
            return tuple(value for _ in range(length))
        return value

    def channel_spec(self, ch: Tree) -> tuple[int, tuple[Type, ...]]:
        kids = tree_children(ch)
        capacity = self.const_int(kids[0], "a channel capacity")
        if capacity < 0:
            raise self.error(kids[0], "a channel capacity must be >= 0")
        fields: list[Type] = []
        for t in kids[1:]:
            if isinstance(t, Tree) and t.data == "typename":
                ft, rec = self.typename(t)
                if rec is not None:
                    for _suffix, lt, dims, _init in self.leaves(rec):
                        fields.extend(lt for _ in index_tuples(dims))
                else:
                    assert ft is not None
                    fields.append(ft)
        return capacity, tuple(fields)

    def declare(self, d: Tree, pb: ProcBuilder | None) -> list[tuple[Tree, Expr, Expr]]:
        """Declare the variables of ``d``; return late initialisations (ivar, target,
        value) that must become assignment statements (locals after the first
        statement)."""
        scope = "global" if pb is None else "local"
        table = self.symbols if pb is None else pb.symbols
        if pb is not None and self.scopes:
            table = self.scopes[-1]
        kids = tree_children(d)
        hidden = bool(kids and isinstance(kids[0], Tree) and kids[0].data == "visibility"
                      and kids[0].children[0].type == "HIDDEN")
        if hidden and pb is not None:
            raise self.error(d, "'hidden' is only allowed for global variables")
        late: list[tuple[Tree, tuple[Stmt, ...], str]] = []
        is_late = pb is not None and pb.stmt_seen
        for name, t, rec, length, init, tok in self.decl_items(d):
            if name in table or (pb is not None and name in pb.parameters and not self.scopes):
                raise self.error(tok, f"'{name}' already declared")
            irname = name
            if pb is not None and self.scopes:
                taken = {v.name for v in pb.locals} | {c.name for c in pb.channels}
                k = 1
                while irname in taken or any(v.name.startswith(irname + ".") for v in pb.locals):
                    irname, k = f"{name}__{k}", k + 1
            if pb is None and name in self.proctypes:
                raise self.error(tok, f"'{name}' already declared as a proctype")
            if name in BUILTINS:
                raise self.error(tok, f"'{name}' is a predefined variable")
            span = self.span(tok)
            if rec is not None:
                if rec not in self.typedefs:
                    raise self.error(tok, f"unknown type '{rec}'")
                if init is not None:
                    raise self.unsupported(init, "an initialiser for a whole record")
                table[name] = Symbol("record", irname, scope, record=rec, length=length, span=span)
                outer = (length,) if length is not None else ()
                late_assigns: list[Stmt] = []
                for suffix, lt, dims, linit in self.leaves(rec):
                    full_dims = outer + dims
                    vinit = None
                    if isinstance(linit, ChanInit):
                        made = self.record_channels(irname, suffix, len(outer), full_dims,
                                                    linit, pb, tok)
                        if made is None:
                            continue  # channels only: the leaf names them
                        vinit = made
                    elif linit is not None:
                        count = 1
                        for n in full_dims:
                            count *= n
                        cells = linit if isinstance(linit, tuple) else (linit,)
                        vinit = cells if not full_dims else tuple(
                            cells[i % len(cells)] for i in range(count))
                        if len(full_dims) == 0 and isinstance(vinit, tuple):
                            vinit = vinit[0]
                    var = Variable(f"{irname}.{suffix}", wrap_type(lt, full_dims), vinit, hidden, span)
                    (self.globals if pb is None else pb.locals).append(var)
                    if is_late:
                        late_assigns.extend(cell_assigns(var, span))
                        (pb.locals if pb else self.globals)[-1] = replace(var, init=None)
                if is_late:
                    late.append((tok, tuple(late_assigns), f"{name} = 0"))
                continue
            assert t is not None
            if isinstance(t, ChanType) and isinstance(init, Tree) and init.data == "ch_init":
                capacity, fields = self.channel_spec(init)
                if pb is None:
                    if length is None:
                        reassigned = name in self.global_assigned
                        # ``fa = fp`` somewhere (SPIN: a chan variable holds a channel id):
                        # the channel is ``fa'`` and ``fa`` a variable holding its id.
                        self.channels.append(Channel(f"{name}'" if reassigned else name,
                                                     capacity, fields, span))
                        if reassigned:
                            self.globals.append(Variable(name, t, Const(len(self.channels)),
                                                         hidden, span))
                        table[name] = Symbol("chan", name, scope, type=t, fields=fields,
                                           capacity=capacity, span=span,
                                           reassigned=reassigned)
                    else:
                        ids = []
                        for i in range(length):
                            self.channels.append(Channel(f"{name}[{i}]", capacity, fields, span))
                            ids.append(Const(len(self.channels)))
                        self.globals.append(
                            Variable(name, ArrayType(t, length), tuple(ids), hidden, span))
                        table[name] = Symbol("var", name, scope, type=ArrayType(t, length),
                                           fields=fields, capacity=capacity, span=span)
                elif length is not None:
                    # One channel per cell, created with the instance; ``c[i]`` reads as
                    # the channel ``c[k]`` chosen by comparing i with each k (varref).
                    for i in range(length):
                        pb.channels.append(Channel(f"{irname}[{i}]", capacity, fields, span))
                    table[name] = Symbol("chanarray", irname, scope, type=ArrayType(t, length),
                                       length=length, fields=fields, capacity=capacity,
                                       span=span)
                else:
                    pb.channels.append(Channel(irname, capacity, fields, span))
                    table[name] = Symbol("chan", irname, scope, type=t, fields=fields,
                                       capacity=capacity, span=span,
                                       reassigned=name in pb.assigned)
                continue
            vtype = t if length is None else ArrayType(t, length)
            table[name] = Symbol("var", irname, scope, type=vtype, length=length, span=span)
            value = None
            if init is not None:
                value = self.initial_value(init, length)
            var = Variable(irname, vtype, value, hidden, span)
            if is_late:
                # SPIN 6.5.2: a local declared after the first statement starts at 0
                # and its declaration is a statement that (re)initialises it there.
                late.append((tok, cell_assigns(var, span),
                             f"{name} = {self.text(init) if init is not None else 0}"))
                var = replace(var, init=None)
            (self.globals if pb is None else pb.locals).append(var)
        return late

    def record_channels(self, irname: str, suffix: str, outer: int, dims: tuple[int, ...],
                        spec: ChanInit, pb: ProcBuilder | None, tok: Token
                        ) -> tuple[Expr, ...] | None:
        """Create the channels of a record variable's field ``chan c = [n] of {...}``.

        Return None when the leaf is one channel named by the leaf path itself (read as
        its id, like a declared ``chan``), or the ids of an array leaf's channels (a
        global array variable holding them, like a global channel array). Inside a
        proctype an array leaf would need ids known only when the instance is created:
        refused by name."""
        span = self.span(tok)
        if not dims:
            channel = Channel(f"{irname}.{suffix}", spec.capacity, spec.fields, span)
            (self.channels if pb is None else pb.channels).append(channel)
            return None
        if pb is not None:
            raise self.unsupported(
                tok, "an array of records (or a record's array field) with a channel "
                "initialiser declared inside a proctype")
        ids: list[Expr] = []
        for combo in index_tuples(dims):
            head = "".join(f"[{i}]" for i in combo[:outer])
            tail = "".join(f"[{i}]" for i in combo[outer:])
            self.channels.append(
                Channel(f"{irname}{head}.{suffix}{tail}", spec.capacity, spec.fields, span))
            ids.append(Const(len(self.channels)))
        return tuple(ids)

