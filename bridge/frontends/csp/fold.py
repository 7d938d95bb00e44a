"""Fold and rewrite IR expressions the way the CSP# lowering needs them.

Constant folding follows PAT's arithmetic (``/`` truncates, ``mod`` is non-negative;
cspsharp.md section 4); the rewriting helpers walk expressions and effects without
recursion limits on their breadth. Also the small value/type helpers shared by the
lowering's modules.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from bridge.ir import (
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
    IntType,
    LocalVar,
    ObjectType,
    Stmt,
    Type,
    Unary,
    Var,
    While,
    iter_subexpressions,
)

BINOP = {"%": "mod"}


# ---------------------------------------------------------------------------------
# Expression helpers


def fold(e: Expr) -> Expr:
    """Return ``e`` with constant sub-expressions evaluated (PAT semantics)."""
    if isinstance(e, Unary):
        a = fold(e.operand)
        if isinstance(a, Const):
            if e.op == "-" and not isinstance(a.value, bool):
                return Const(-a.value)
            if e.op == "!" and isinstance(a.value, bool):
                return Const(not a.value)
        return Unary(e.op, a, e.span) if a is not e.operand else e
    if isinstance(e, Binary):
        a = fold(e.left)
        if e.op in ("&&", "||") and isinstance(a, Const) and isinstance(a.value, bool):
            if e.op == "&&" and not a.value:
                return Const(False)
            if e.op == "||" and a.value:
                return Const(True)
            b = fold(e.right)
            return b
        b = fold(e.right)
        if isinstance(a, Const) and isinstance(b, Const):
            value = apply_op(e.op, a.value, b.value)
            if value is not None:
                return Const(value)
        if a is e.left and b is e.right:
            return e
        return Binary(e.op, a, b, e.span)
    if isinstance(e, Index):
        i = fold(e.index)
        return Index(e.base, i, e.span) if i is not e.index else e
    if isinstance(e, Conditional):
        c = fold(e.cond)
        if isinstance(c, Const) and isinstance(c.value, bool):
            return fold(e.then if c.value else e.otherwise)
        return Conditional(c, fold(e.then), fold(e.otherwise), e.span)
    if isinstance(e, Call):
        return Call(e.function, tuple(fold(a) for a in e.args), e.span)
    return e


def apply_op(op: str, a: int | bool, b: int | bool) -> int | bool | None:
    ints = not isinstance(a, bool) and not isinstance(b, bool)
    bools = isinstance(a, bool) and isinstance(b, bool)
    if op in ("==", "!="):
        if ints or bools:
            return (a == b) if op == "==" else (a != b)
        return None
    if op in ("&&", "||", "xor") and bools:
        return {"&&": a and b, "||": a or b, "xor": a != b}[op]
    if not ints:
        return None
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            return None
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    if op == "mod":
        if b == 0:
            return None
        return a % b
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    if op == ">=":
        return a >= b
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    return None


def map_expr(e: Expr, fn: Callable[[Expr], Expr | None]) -> Expr:
    """Return ``e`` rewritten bottom-up by ``fn`` (None: keep the node)."""
    r = fn(e)
    if r is not None:
        return r
    if isinstance(e, Unary):
        return Unary(e.op, map_expr(e.operand, fn), e.span)
    if isinstance(e, Binary):
        return Binary(e.op, map_expr(e.left, fn), map_expr(e.right, fn), e.span)
    if isinstance(e, Index):
        return Index(map_expr(e.base, fn), map_expr(e.index, fn), e.span)
    if isinstance(e, Conditional):
        return Conditional(map_expr(e.cond, fn), map_expr(e.then, fn),
                           map_expr(e.otherwise, fn), e.span)
    if isinstance(e, Call):
        return Call(e.function, tuple(map_expr(a, fn) for a in e.args), e.span)
    if isinstance(e, ChanQuery):
        return ChanQuery(e.op, map_expr(e.channel, fn), e.span)
    return e


def map_stmt(st: Stmt, fn: Callable[[Expr], Expr | None]) -> Stmt:
    if isinstance(st, Assign):
        return Assign(map_expr(st.target, fn), map_expr(st.value, fn), st.span)
    if isinstance(st, If):
        return If(
            tuple((map_expr(c, fn), tuple(map_stmt(x, fn) for x in b)) for c, b in st.branches),
            tuple(map_stmt(x, fn) for x in st.otherwise),
            st.span,
        )
    if isinstance(st, While):
        return While(map_expr(st.cond, fn), tuple(map_stmt(x, fn) for x in st.body), st.span)
    if isinstance(st, LocalVar):
        init = st.init
        if isinstance(init, tuple):
            init = tuple(map_expr(x, fn) for x in init)
        elif init is not None:
            init = map_expr(init, fn)
        return LocalVar(st.name, st.type, init, st.span)
    return st


def walk_expr(e: Expr) -> Iterable[Expr]:
    """Yield ``e`` and its subexpressions (iteratively)."""
    return iter_subexpressions(e)


def without_spans(e: Expr) -> Expr:
    """Return ``e`` with every span removed (location keys compare expressions)."""
    if isinstance(e, Unary):
        return Unary(e.op, without_spans(e.operand))
    if isinstance(e, Binary):
        return Binary(e.op, without_spans(e.left), without_spans(e.right))
    if isinstance(e, Index):
        return Index(without_spans(e.base), without_spans(e.index))
    if isinstance(e, Conditional):
        return Conditional(without_spans(e.cond), without_spans(e.then),
                           without_spans(e.otherwise))
    if isinstance(e, Call):
        return Call(e.function, tuple(without_spans(a) for a in e.args))
    if isinstance(e, ChanQuery):
        return ChanQuery(e.op, without_spans(e.channel))
    if dataclasses.is_dataclass(e) and hasattr(e, "span"):
        return dataclasses.replace(e, span=None)
    return e


def locals_in(e: Expr) -> set[str]:
    return {x.name for x in walk_expr(e) if isinstance(x, Var) and x.scope == "local"}


def reads_globals(e: Expr) -> bool:
    return any(isinstance(x, Var) and x.scope == "global" for x in walk_expr(e))


def stmt_locals(st: Stmt) -> set[str]:
    found: set[str] = set()

    def fn(x: Expr) -> Expr | None:
        if isinstance(x, Var) and x.scope == "local":
            found.add(x.name)
        return None

    map_stmt(st, fn)
    return found


def and_(a: Expr | None, b: Expr | None) -> Expr | None:
    if a is None:
        return b
    if b is None:
        return a
    return fold(Binary("&&", a, b))


def not_(a: Expr) -> Expr:
    return fold(Unary("!", a))




def product(xs: Iterable[int]) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


def type_word(t: Type) -> str | None:
    if isinstance(t, BoolType):
        return "bool"
    if isinstance(t, IntType):
        return "int"
    if isinstance(t, ArrayType):
        inner = type_word(t.element)
        return f"array:{inner}" if inner else "array:"
    if isinstance(t, ObjectType):
        return t.library
    return None


def const_type(e: Expr) -> str | None:
    if isinstance(e, Const):
        return "bool" if isinstance(e.value, bool) else "int"
    return None




def zero_of(t: Type | None) -> Const:
    return Const(False) if isinstance(t, BoolType) else Const(0)


def event_name(base: str, values: Iterable[int | bool]) -> str:
    return base + "".join(f".{int(v)}" for v in values)
