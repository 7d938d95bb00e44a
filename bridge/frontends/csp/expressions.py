"""Lower CSP# expressions and event-block statements to the IR (cspsharp.md section 4).

``ExpressionLowering`` is the part of ``context.Lowerer`` that resolves names
(block locals, bindings in scope, globals, constants, ``#define`` propositions) and
types expressions as ``int``/``bool``/``array:...``; ``Ctx`` is the name-resolution
context of one expression or block.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge.diagnostics import SemanticError, Span, UnsupportedError
from bridge.frontends.csp import syntax as s
from bridge.frontends.csp.configurations import (
    Env,
    env_get,
)
from bridge.frontends.csp.fold import (
    BINOP,
    const_type,
    fold,
    product,
    type_word,
)
from bridge.frontends.csp.terms import substitute
from bridge.ir import (
    UNBOUNDED,
    ArrayType,
    Assign,
    Binary,
    BoolType,
    Call,
    ChanQuery,
    Conditional,
    Const,
    Expr,
    If,
    Index,
    LocalVar,
    ObjectType,
    Stmt,
    Type,
    Unary,
    Var,
    While,
)
from bridge.ir.library import LIBRARIES, MATH, METHODS, Operation

_CHANNEL_QUERIES = {"cempty": "empty", "cfull": "full", "ccount": "len", "csize": "size"}
_BOOL_OPS = {"&&", "||", "xor"}
_CMP_OPS = {"==", "!=", "<", "<=", ">", ">="}
_INT_OPS = {"+", "-", "*", "/", "%", "&", "|", "^"}


@dataclass
class Ctx:
    """Name-resolution context: bindings in scope and block-local variables."""

    env: Env = ()
    pre: bool = False
    block_locals: dict[str, str] = field(default_factory=dict)
    block_types: dict[str, Type] = field(default_factory=dict)  # their IR types

    def child(self) -> Ctx:
        return Ctx(self.env, self.pre, dict(self.block_locals), dict(self.block_types))


class ExpressionLowering:
    """Expressions and statements of ``Lowerer``.

    A mixin: the tables it reads (``constants``, ``globals``, ``props``, ``macros``,
    ``channels``, ``defs``) and the helpers it calls (``channel``, ``index_envs``,
    ``const_int``, ``_undeclared``) are ``Lowerer``'s, in ``context.py``.
    """

    # -- expressions --------------------------------------------------------------------
    def expr(self, e: s.SExpr, ctx: Ctx) -> Expr:
        """Return the IR expression of ``e`` under ``ctx`` (names resolved, folded)."""
        result, _ = self._expr(e, ctx)
        return fold(result)

    def typed(self, e: s.SExpr, ctx: Ctx) -> tuple[Expr, str | None]:
        result, t = self._expr(e, ctx)
        return fold(result), t

    def bool_expr(self, e: s.SExpr, ctx: Ctx, what: str) -> Expr:
        result, t = self._expr(e, ctx)
        if t == "int" or _is_array(t):
            raise SemanticError.at(e.span, f"{what} must be a boolean expression, not "
                                   f"{'an integer' if t == 'int' else 'an array'}")
        return fold(result)

    def _name(self, name: str, span: Span, ctx: Ctx) -> tuple[Expr, str | None]:
        if name in ctx.block_locals:
            return Var(name, "block", span), ctx.block_locals[name]
        bound = env_get(ctx.env, name)
        if bound is not None:
            return bound, const_type(bound)
        if name in self.globals:
            g = self.globals[name]
            return Var(name, "global", span), type_word(g.type)
        if name in self.constants:
            value = self.constants[name]
            return Const(value, span), "bool" if isinstance(value, bool) else "int"
        if name in self.props:
            return self._proposition(name, span), "bool"
        if name in self.macros:
            return self._macro_value(name, self.macros[name], span, ctx)
        if name in self.channels or name in self.channel_arrays:
            raise SemanticError.at(span, f"channel '{name}' used as a value")
        if name in self.defs:
            raise SemanticError.at(span, f"process '{name}' used as a value")
        raise self._undeclared(name, span, "variable")

    def _macro_value(self, name: str, body: s.SStmt, span: Span, ctx: Ctx
                     ) -> tuple[Expr, str | None]:
        """Return the value of a block macro used in an expression: a block of one
        expression, or ``if (c) {e1} else {e2}`` of two (``#define xdist if (x > t)
        {x - t} else {t - x};``), a conditional expression."""
        while isinstance(body, s.SBlock) and len(body.stmts) == 1:
            body = body.stmts[0]
        if isinstance(body, s.SExprStmt):
            return self._expr(body.expr, ctx)
        if isinstance(body, s.SIf) and body.otherwise is not None:
            cond = self.bool_expr(body.cond, ctx, "an if condition")
            then, t1 = self._macro_value(name, body.then, span, ctx)
            other, t2 = self._macro_value(name, body.otherwise, span, ctx)
            if None not in (t1, t2) and t1 != t2:
                raise SemanticError.at(span, f"macro '{name}' has a {t1} in one branch and "
                                       f"a {t2} in the other")
            return Conditional(cond, then, other, span), t1 or t2
        raise SemanticError.at(
            span, f"macro '{name}' is a block of statements, not a value",
            "a macro used as a value is an expression, or 'if (c) {e1} else {e2}'",
        )

    def _proposition(self, name: str, span: Span) -> Expr:
        if name in self._prop_cache:
            return self._prop_cache[name]
        if name in self._prop_busy:
            raise SemanticError.at(span, f"#define '{name}' refers to itself")
        self._prop_busy.add(name)
        try:
            d = self.props[name]
            assert d.expr is not None
            value = self.expr(d.expr, Ctx())
        finally:
            self._prop_busy.discard(name)
        self._prop_cache[name] = value
        return value

    def _expr(self, e: s.SExpr, ctx: Ctx) -> tuple[Expr, str | None]:
        if isinstance(e, s.SInt):
            return Const(e.value, e.span), "int"
        if isinstance(e, s.SBool):
            return Const(e.value, e.span), "bool"
        if isinstance(e, s.SName):
            return self._name(e.name, e.span, ctx)
        if isinstance(e, s.SIndex):
            return _element(e, *self._expr(e.base, ctx), *self._expr(e.index, ctx))
        if isinstance(e, s.SUnary):
            a, t = self._expr(e.operand, ctx)
            if _is_array(t):  # a whole array is a value of == and != only
                raise SemanticError.at(e.span, f"type clash: '{e.op}' applied to an array")
            if e.op == "-":
                if t == "bool":
                    raise SemanticError.at(e.span, "type clash: unary '-' applied to a boolean")
                return Unary("-", a, e.span), "int"
            if t == "int":
                raise SemanticError.at(e.span, "type clash: '!' applied to an integer")
            return Unary("!", a, e.span), "bool"
        if isinstance(e, s.SBinary):
            a, ta = self._expr(e.left, ctx)
            b, tb = self._expr(e.right, ctx)
            op = e.op
            for t, side in ((ta, e.left), (tb, e.right)):
                # a whole array (the tuple of its cells in both engines) is compared
                # with a value that is not a number or a boolean only (another array, a
                # library value, a variable that received an array: equal contents)
                if _is_array(t) and op in ("==", "!=") and {ta, tb} & {"int", "bool"}:
                    other = "an integer" if "int" in (ta, tb) else "a boolean"
                    raise SemanticError.at(
                        side.span, f"type clash: '{op}' compares an array with {other}")
                if _is_array(t) and op not in ("==", "!="):
                    need = "booleans" if op in _BOOL_OPS else "integers"
                    raise SemanticError.at(
                        side.span, f"type clash: '{op}' needs {need}, this is an array")
            if op in _BOOL_OPS:
                for t, side in ((ta, e.left), (tb, e.right)):
                    if t == "int":
                        raise SemanticError.at(
                            side.span, f"type clash: '{op}' needs booleans, this is an integer"
                        )
                return Binary(op, a, b, e.span), "bool"
            if op in _INT_OPS or op in ("<", "<=", ">", ">="):
                for t, side in ((ta, e.left), (tb, e.right)):
                    if t == "bool" or t in METHODS:
                        raise SemanticError.at(
                            side.span, f"type clash: '{op}' needs integers, this is a "
                            f"{'boolean' if t == 'bool' else t}"
                        )
                result = "bool" if op in _CMP_OPS else "int"
                return Binary(BINOP.get(op, op), a, b, e.span), result
            if op in ("==", "!="):
                if {ta, tb} == {"int", "bool"}:
                    raise SemanticError.at(
                        e.span, f"type clash: '{op}' compares an integer with a boolean"
                    )
                return Binary(op, a, b, e.span), "bool"
            raise SemanticError.at(e.span, f"unknown operator '{op}'")  # pragma: no cover
        if isinstance(e, (s.SAssign, s.SIncDec)):
            raise SemanticError.at(
                e.span, "an assignment is only allowed as a statement inside an event block"
            )
        if isinstance(e, s.SIndexedOp):
            envs = self.index_envs(s.Index(variables=e.variables, span=e.span), ctx.env)
            result: Expr | None = None
            for env in envs:
                inner = Ctx(env, ctx.pre, dict(ctx.block_locals))
                for iv in e.variables:
                    inner.block_locals.pop(iv.name, None)
                part, t = self._expr(e.body, inner)
                if t == "int":
                    raise SemanticError.at(e.body.span, f"'{e.op}' over an index needs booleans")
                result = part if result is None else Binary(e.op, result, part, e.span)
            if result is None:  # an empty index: the operator's unit
                return Const(e.op == "&&", e.span), "bool"
            return result, "bool"
        if isinstance(e, s.SCall) and e.function in _CHANNEL_QUERIES:
            arg = e.args[0] if len(e.args) == 1 else None
            name = arg.base if isinstance(arg, s.SIndex) else arg
            if not isinstance(name, s.SName):
                raise SemanticError.at(e.span, f"call({e.function}, c) takes one channel")
            index = arg.index if isinstance(arg, s.SIndex) else None
            ch_expr, ch = self.channel_ref(name.name, index, name.span, ctx)
            op = _CHANNEL_QUERIES[e.function]
            if op == "size":
                return Const(ch.capacity, e.span), "int"
            result = "int" if op == "len" else "bool"
            return ChanQuery(op, ch_expr, e.span), result
        if isinstance(e, s.SCall):
            macro = self.param_macros.get(e.function)
            if macro is not None:
                body = self.expand_macro(macro, e)
                if isinstance(body, s.SBlock):
                    raise SemanticError.at(
                        e.span, f"macro '{e.function}' is a block of statements: it can only "
                        "be a statement of an event block, not a value"
                    )
                return self._expr(body, ctx)
            return self._math_call(e, ctx)
        if isinstance(e, s.SMethodCall):
            target, cls = self._expr(e.target, ctx)
            op = self._method(e, cls)
            if op.mutates:
                raise SemanticError.at(
                    e.span, f"'{e.method}' changes its {cls}: it can only be a statement "
                    "of an event block or the whole right side of an assignment"
                )
            args = self._call_args(e.args, op.params, e, ctx)
            return Call(f"{cls}.{e.method}", (target, *args), e.span), op.result
        if isinstance(e, s.SNew):
            cls = self._library_class(e.type_name, e.span)
            if e.args:
                raise SemanticError.at(e.span, f"'new {cls}()' takes no arguments")
            return Call(f"{cls}.new", (), e.span), cls
        raise SemanticError.at(getattr(e, "span", None), "unsupported expression")

    # -- library calls (PAT.Math, PAT.Lib.*) ------------------------------------------
    def _math_call(self, e: s.SCall, ctx: Ctx) -> tuple[Expr, str | None]:
        if e.function in MATH and self.math_imported:
            op = MATH[e.function]
            args = self._call_args(e.args, op.params, e, ctx)
            return Call(f"Math.{e.function}", tuple(args), e.span), op.result
        if e.function in self.macros:
            raise SemanticError.at(
                e.span, f"'{e.function}' is a block macro without parameters: write its "
                "name as a statement, not call(...)"
            )
        notes = []
        if e.function in MATH:
            notes.append(f"call({e.function}, ...) is PAT's math library: add "
                         '\'#import "PAT.Math";\'')
        else:
            notes.append("bridge implements #define macros and PAT.Math "
                         f"({', '.join(sorted(MATH))}); other functions come from C# "
                         "libraries it cannot run")
        raise UnsupportedError.at(
            e.span, f"unsupported construct: call({e.function}, ...) (C# library function)",
            *notes,
        )

    def _library_class(self, name: str, span: Span) -> str:
        if name in self.classes:
            return name
        known = [f"PAT.Lib.{c}" for c in METHODS]
        hint = next((lib for lib, cls in LIBRARIES.items() if cls == name), None)
        note = (f'add \'#import "{hint}";\'' if hint is not None else
                f"bridge implements the library classes {', '.join(known)}")
        raise SemanticError.at(span, f"unknown library class '{name}'", note)

    def _method(self, e: s.SMethodCall, cls: str | None) -> Operation:
        if cls not in METHODS:
            raise SemanticError.at(
                e.target.span, f"'.{e.method}(...)' needs an object of a library class "
                "(a 'var<Set>' variable, ...)"
            )
        op = METHODS[cls].get(e.method)
        if op is None:
            raise UnsupportedError.at(
                e.span, f"unsupported construct: method '{e.method}' of {cls}",
                f"bridge implements {cls}.{', '.join(sorted(METHODS[cls]))}",
            )
        return op

    def _call_args(self, args: tuple[s.SExpr, ...], params: tuple[str, ...], e, ctx: Ctx
                   ) -> list[Expr]:
        name = getattr(e, "method", None) or getattr(e, "function", "?")
        if len(args) != len(params):
            raise SemanticError.at(
                e.span, f"'{name}' takes {len(params)} argument"
                f"{'' if len(params) == 1 else 's'} but {len(args)} "
                f"{'was' if len(args) == 1 else 'were'} given"
            )
        out = []
        for a, want in zip(args, params, strict=True):
            value, t = self._expr(a, ctx)
            if t is not None and t != want and not (want == "int" and t == "int"):
                raise SemanticError.at(
                    a.span, f"type clash: '{name}' needs {'an' if want == 'int' else 'a'} "
                    f"{want} here, this is {'an' if t == 'int' else 'a'} {t}"
                )
            out.append(fold(value))
        return out

    def expand_macro(self, d: s.Define, e: s.SCall) -> s.SExpr | s.SBlock:
        """Return the body of macro ``d`` with its parameters replaced by the arguments
        of ``call(name, args)`` (PAT 3.4.2: a macro is substituted where it is called)."""
        assert d.params is not None
        if len(e.args) != len(d.params):
            raise SemanticError.at(
                e.span, f"macro '{d.name}' takes {len(d.params)} argument"
                f"{'' if len(d.params) == 1 else 's'} but {len(e.args)} "
                f"{'was' if len(e.args) == 1 else 'were'} given",
                f"'{d.name}' is defined at {d.name_span}",
            )
        body = d.block if d.block is not None else d.expr
        assert body is not None
        return substitute(body, dict(zip(d.params, e.args, strict=True)))

    # -- statements -----------------------------------------------------------------------
    def block(self, b: s.SBlock, ctx: Ctx, depth: int = 0) -> list[Stmt]:
        out: list[Stmt] = []
        inner = ctx.child()
        for st in b.stmts:
            out.extend(self.stmt(st, inner, depth))
        return out

    def stmt(self, st: s.SStmt, ctx: Ctx, depth: int = 0) -> list[Stmt]:
        if isinstance(st, s.SBlock):
            return self.block(st, ctx, depth)
        if isinstance(st, s.SExprStmt):
            return self._expr_stmt(st.expr, ctx, depth)
        if isinstance(st, s.SIf):
            cond = self.bool_expr(st.cond, ctx, "an if condition")
            then = self.stmt(st.then, ctx.child(), depth)
            otherwise = self.stmt(st.otherwise, ctx.child(), depth) if st.otherwise else []
            return [If(((cond, tuple(then)),), tuple(otherwise), st.span)]
        if isinstance(st, s.SWhile):
            cond = self.bool_expr(st.cond, ctx, "a while condition")
            body = self.stmt(st.body, ctx.child(), depth)
            return [While(cond, tuple(body), st.span)]
        if isinstance(st, s.SLocalVar):
            return self._local_var(st, ctx)
        raise SemanticError.at(getattr(st, "span", None), "unsupported statement")

    def _local_var(self, st: s.SLocalVar, ctx: Ctx) -> list[Stmt]:
        dims = [self.const_int(d, "array size", ctx.env) for d in st.dims]
        init: Expr | tuple[Expr, ...] | None = None
        word, copy = "int", False
        if isinstance(st.init, s.ArrayLit):
            elements = self._array_exprs(st.init, ctx)
            init = tuple(elements)
            if not dims:
                dims = [len(elements)]
            elif len(elements) != product(dims):  # as a global array's (context.py)
                raise SemanticError.at(
                    st.init.span,
                    f"array '{st.name}' has {product(dims)} elements but its initialiser "
                    f"has {len(elements)}",
                )
        elif st.init is not None:
            init, t = self.typed(st.init, ctx)
            word = t or "int"
            if _is_array(word):
                # ``var x = a``: a block array of a's shape, a copy of its cells (as the
                # assignment ``bak = slots`` copies), not a scalar holding a tuple
                shape = self._array_shape(init, ctx)
                if shape is None:
                    raise UnsupportedError.at(st.init.span, "unsupported construct: a block "
                                              "variable initialised with this array")
                if dims and product(dims) != product(shape):
                    raise SemanticError.at(
                        st.init.span, f"array '{st.name}' has {product(dims)} elements but "
                        f"its initialiser has {product(shape)}")
                dims, word, copy = dims or shape, "int", True
        t_ir: Type = BoolType() if word == "bool" else UNBOUNDED
        if word in METHODS:
            if dims:
                raise UnsupportedError.at(st.span, "unsupported construct: an array of objects")
            t_ir = ObjectType(word)
        for n in reversed(dims):
            t_ir = ArrayType(t_ir, n)
        # an array of n dimensions: its rows are arrays (``w[1] == m[0]``)
        ctx.block_locals[st.name] = "array:" * len(dims) + "int" if dims else word
        ctx.block_types[st.name] = t_ir
        if dims and isinstance(init, Expr) and not copy:
            init = tuple([init] * product(dims))
        return [LocalVar(st.name, t_ir, init, st.span)]

    def _array_shape(self, e: Expr, ctx: Ctx) -> list[int] | None:
        """Return the lengths of the dimensions of the array ``e`` names (a global or
        block array, a row of one), None when not known here."""
        t: Type | None = None
        rows = 0
        while isinstance(e, Index):
            e, rows = e.base, rows + 1
        if isinstance(e, Var) and e.scope == "block":
            t = ctx.block_types.get(e.name)
        elif isinstance(e, Var) and e.scope == "global" and e.name in self.globals:
            t = self.globals[e.name].type
        for _ in range(rows):
            t = t.element if isinstance(t, ArrayType) else None
        shape = []
        while isinstance(t, ArrayType):
            shape.append(t.length)
            t = t.element
        return shape or None

    def _expr_stmt(self, e: s.SExpr, ctx: Ctx, depth: int) -> list[Stmt]:
        if isinstance(e, s.SAssign):
            out: list[Stmt] = []
            value_src = e.value
            if isinstance(value_src, s.SAssign):  # x = y = v
                out.extend(self._expr_stmt(value_src, ctx, depth))
                value_src = value_src.target
            if isinstance(value_src, s.SMethodCall):
                changed = self._changing_call(value_src, ctx)
                if changed is not None:  # v = q.Dequeue(): the result, then the change
                    result, word, update = changed
                    target, tt = self._lvalue(e.target, ctx)
                    if tt is not None and tt != word:
                        raise SemanticError.at(
                            e.span, f"type clash: assigning {'an' if word == 'int' else 'a'} "
                            f"{word} to {'an' if tt == 'int' else 'a'} {tt} variable"
                        )
                    tmp = f"_r{len(ctx.block_locals)}"
                    ctx.block_locals[tmp] = word
                    out.append(LocalVar(tmp, BoolType() if word == "bool" else UNBOUNDED,
                                        result, e.span))
                    out.append(update)
                    out.append(Assign(target, Var(tmp, "block", e.span), e.span))
                    return out
            target, tt = self._lvalue(e.target, ctx)
            value, vt = self.typed(value_src, ctx)
            if (tt in METHODS or vt in METHODS) and tt != vt and None not in (tt, vt):
                raise SemanticError.at(e.span, f"type clash: assigning a {vt} to a {tt}")
            arrays = [w for w in (tt, vt) if w is not None and w.startswith("array:")]
            if len(arrays) == 1 and None not in (tt, vt):
                # a whole array and a single value: no engine can store one as the other
                what = "an array" if vt in arrays else f"a{'n' if vt == 'int' else ''} {vt}"
                into = "an array" if tt in arrays else \
                    f"a{'n' if tt == 'int' else ''} {tt} variable"
                raise SemanticError.at(e.span, f"type clash: assigning {what} to {into}")
            if tt in ("int", "bool") and vt in ("int", "bool") and tt != vt:
                raise SemanticError.at(
                    e.span, f"type clash: assigning a{'n' if vt == 'int' else ''} {vt} "
                    f"to {'an' if tt == 'int' else 'a'} {tt} variable"
                )
            out.append(Assign(target, value, e.span))
            return out
        if isinstance(e, s.SIncDec):
            target, tt = self._lvalue(e.target, ctx)
            if tt == "bool":
                raise SemanticError.at(e.span, "type clash: '++'/'--' applied to a boolean")
            op = "+" if e.delta > 0 else "-"
            return [Assign(target, Binary(op, target, Const(1)), e.span)]
        if isinstance(e, s.SName) and e.name in self.macros and env_get(ctx.env, e.name) is None:
            if depth > 50:
                raise SemanticError.at(e.span, f"macro '{e.name}' expands into itself")
            return self.block(self.macros[e.name], ctx, depth + 1)
        if isinstance(e, s.SCall) and e.function in self.param_macros:
            if depth > 50:
                raise SemanticError.at(e.span, f"macro '{e.function}' expands into itself")
            body = self.expand_macro(self.param_macros[e.function], e)
            if isinstance(body, s.SBlock):
                return self.block(body, ctx, depth + 1)
            return self._expr_stmt(body, ctx, depth + 1)
        if isinstance(e, s.SMethodCall):
            target, cls = self._lvalue(e.target, ctx)
            op = self._method(e, cls)
            args = self._call_args(e.args, op.params, e, ctx)
            if not op.mutates:
                return []  # a query whose value is discarded
            return [Assign(target, Call(f"{cls}.{e.method}=", (target, *args), e.span), e.span)]
        # An expression statement without effect: evaluated and discarded (PAT).
        self.typed(e, ctx)
        return []

    def _array_exprs(self, lit: s.ArrayLit, ctx: Ctx) -> list[Expr]:
        """Return the elements of an array literal in an event block; single elements
        may read the state (``var m = [m1, m2];``), counts and ranges are constants."""
        out: list[Expr] = []
        for el in lit.elems:
            if el.kind == "nested":
                assert isinstance(el.first, s.ArrayLit)
                out.extend(self._array_exprs(el.first, ctx))
            elif el.kind == "single":
                out.append(self.expr(el.first, ctx))  # type: ignore[arg-type]
            elif el.kind == "repeat":
                assert el.second is not None
                count = self.const_int(el.second, "repeat count", ctx.env)
                out.extend([self.expr(el.first, ctx)] * max(0, count))  # type: ignore[arg-type]
            else:
                out.extend(Const(x) for x in self._array_values(
                    s.ArrayLit((el,), el.span)))
        return out

    def _changing_call(self, e: s.SMethodCall, ctx: Ctx) -> tuple[Expr, str, Stmt] | None:
        """Return (result, its type, the assignment that changes the object) for a
        method that changes its object, or None for one that only reads it."""
        target, cls = self._lvalue(e.target, ctx)
        op = self._method(e, cls)
        if not op.mutates:
            return None
        if op.result == "void":
            raise SemanticError.at(e.span, f"'{cls}.{e.method}' has no value to assign")
        args = self._call_args(e.args, op.params, e, ctx)
        result = Call(f"{cls}.{e.method}", (target, *args), e.span)
        update = Assign(target, Call(f"{cls}.{e.method}=", (target, *args), e.span), e.span)
        return result, op.result, update

    def _lvalue(self, e: s.SExpr, ctx: Ctx) -> tuple[Expr, str | None]:
        if isinstance(e, s.SName):
            if e.name in ctx.block_locals:
                return Var(e.name, "block", e.span), ctx.block_locals[e.name]
            if env_get(ctx.env, e.name) is not None:
                raise SemanticError.at(
                    e.span, f"cannot assign to '{e.name}': it is a process parameter or input"
                )
            if e.name in self.globals:
                return Var(e.name, "global", e.span), type_word(self.globals[e.name].type)
            if e.name in self.constants:
                raise SemanticError.at(e.span, f"cannot assign to constant '{e.name}'")
            raise self._undeclared(e.name, e.span, "variable")
        if isinstance(e, s.SIndex):
            return _element(e, *self._lvalue(e.base, ctx), *self.typed(e.index, ctx))
        raise SemanticError.at(e.span, "the left side of '=' must be a variable or array element")


def _is_array(t: str | None) -> bool:
    """Return True when ``t`` (a type word) is that of a whole array."""
    return t is not None and t.startswith("array")


def _element(e: s.SIndex, base: Expr, bt: str | None, idx: Expr, it: str | None
             ) -> tuple[Expr, str | None]:
    """Return ``base[idx]`` and its element type, refusing a boolean index and the
    indexing of a scalar or a library object."""
    if it == "bool":
        raise SemanticError.at(e.index.span, "array index must be an integer")
    if bt in ("int", "bool") or bt in METHODS:
        raise SemanticError.at(e.base.span, "indexing a value that is not an array")
    elem = bt[len("array:"):] if bt and bt.startswith("array:") else None
    return Index(base, idx, e.span), elem
