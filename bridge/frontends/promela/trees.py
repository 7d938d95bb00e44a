"""Shared pieces of the Promela lowering (``lower.py``): the types of symbols,
records and channel initialisers, constants of the grammar, and helpers over
syntax trees and IR expressions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lark import Token, Tree

from bridge.diagnostics import Span
from bridge.ir import (
    ArrayType,
    Assign,
    Binary,
    Builtin,
    Const,
    Expr,
    Index,
    IntType,
    Overflow,
    Stmt,
    Type,
    Unary,
    Var,
    Variable,
)

BOOL_T = IntType(0, 1, Overflow.WRAP, "bool")
BUILTINS = {"_pid", "_nr_pr", "_last"}
BINOPS = {
    "PIPE": "|", "CARET": "^", "AMP": "&", "ANDAND": "&&", "OROR": "||", "EQ": "==",
    "NE": "!=", "LT": "<", "GT": ">", "LE": "<=", "GE": ">=", "LSHIFT": "<<",
    "RSHIFT": ">>", "PLUS": "+", "MINUS": "-", "STAR": "*", "SLASH": "/", "PERCENT": "%",
}
LTL_NODES = {"ltl_binary", "ltl_unary", "ltl_not_unary"}


def mtype_type(name: str | None) -> IntType:
    """Return the IR type of ``mtype`` / ``mtype:name`` variables (a byte)."""
    return IntType(0, 255, Overflow.WRAP, "mtype" if name is None else f"mtype:{name}")



# ---------------------------------------------------------------------------------
# Symbols


@dataclass
class RecordField:
    name: str
    type: Type | None  # None for a record field
    record: str | None
    length: int | None
    init: Expr | tuple[Expr, ...] | ChanInit | None = None


@dataclass(frozen=True)
class ChanInit:
    """A typedef field ``chan c = [capacity] of { fields }``: every variable of the
    record type gets a channel of its own for the field (SPIN creates it with the
    variable)."""

    capacity: int
    fields: tuple[Type, ...]


@dataclass
class Symbol:
    """A declared name: a variable (scalar/array), a record, a channel or a constant."""

    kind: str  # "var" | "record" | "chan" | "const"
    name: str
    scope: str  # "global" | "local"
    type: Type | None = None
    record: str | None = None
    length: int | None = None
    value: int = 0
    fields: tuple[Type, ...] | None = None  # message fields of a declared channel
    capacity: int | None = None
    span: Span | None = None
    # a channel the model assigns to (``c = d``, or receives into): which
    # channel the name stands for is known only at run time
    reassigned: bool = False


def wrap_type(t: Type, dims: Sequence[int]) -> Type:
    for n in reversed(dims):
        t = ArrayType(t, n)
    return t


def tree_children(tree: Tree) -> list:
    return [c for c in tree.children if c is not None]


def tree_subtrees(tree: Tree) -> list[Tree]:
    return [c for c in tree.children if isinstance(c, Tree)]



# ---------------------------------------------------------------------------------
# Helpers


def fold_int(e: Expr) -> int | None:
    if isinstance(e, Const):
        return int(e.value)
    if isinstance(e, Unary):
        v = fold_int(e.operand)
        if v is None:
            return None
        return {"-": -v, "!": int(not v), "~": ~v}[e.op]
    if isinstance(e, Binary):
        a, b = fold_int(e.left), fold_int(e.right)
        if a is None or b is None:
            return None
        try:
            return {
                "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                "/": lambda: int(a / b), "%": lambda: a - b * int(a / b),
                "<<": lambda: a << b, ">>": lambda: a >> b, "&": lambda: a & b,
                "|": lambda: a | b, "^": lambda: a ^ b, "&&": lambda: int(bool(a and b)),
                "||": lambda: int(bool(a or b)), "==": lambda: int(a == b),
                "!=": lambda: int(a != b), "<": lambda: int(a < b), "<=": lambda: int(a <= b),
                ">": lambda: int(a > b), ">=": lambda: int(a >= b),
            }[e.op]()
        except (ZeroDivisionError, KeyError, ValueError):
            return None
    return None


def index_tuples(dims: Sequence[int]) -> list[tuple[int, ...]]:
    """Return every index tuple of an array with these dimensions, row-major."""
    out: list[tuple[int, ...]] = [()]
    for n in dims:
        out = [t + (i,) for t in out for i in range(n)]
    return out


def cell_assigns(var: Variable, span: Span | None) -> tuple[Stmt, ...]:
    """Return assignments setting every cell of a local to its initial value."""
    dims: list[int] = []
    t = var.type
    while isinstance(t, ArrayType):
        dims.append(t.length)
        t = t.element
    if not dims:
        value = var.init if var.init is not None and not isinstance(var.init, tuple) else Const(0)
        return (Assign(Var(var.name, "local", span), value, span),)
    cells = var.init if isinstance(var.init, tuple) else None
    out: list[Stmt] = []
    count = 1
    for n in dims:
        count *= n
    for k in range(count):
        idx: list[int] = []
        rest = k
        for n in reversed(dims):
            idx.append(rest % n)
            rest //= n
        idx.reverse()
        target: Expr = Var(var.name, "local", span)
        for i in idx:
            target = Index(target, Const(i), span)
        value = cells[k] if cells is not None and k < len(cells) else Const(0)
        out.append(Assign(target, value, span))
    return tuple(out)


def expr_text(e: Expr) -> str:
    v = fold_int(e)
    if v is not None:
        return str(v)
    if isinstance(e, Var):
        return e.name
    return "..."


def mentions_timeout(e: Expr | None) -> bool:
    if e is None:
        return False
    if isinstance(e, Builtin):
        return e.name == "timeout"
    if isinstance(e, Binary):
        return mentions_timeout(e.left) or mentions_timeout(e.right)
    if isinstance(e, Unary):
        return mentions_timeout(e.operand)
    return False


def label_target(found: list[tuple[tuple[int, ...], int]], path: tuple[int, ...]) -> int:
    """Return the location a ``goto`` in block scope ``path`` jumps to (SPIN's
    ``get_labspec``): the label of the same block, else of the innermost enclosing
    block, else the one declared last."""
    enclosing = [(p, loc) for p, loc in found if path[: len(p)] == p]
    if enclosing:
        return max(enclosing, key=lambda item: len(item[0]))[1]
    return found[-1][1]


def may_match_alike(a: tuple[Expr | None, ...], b: tuple[Expr | None, ...]) -> bool:
    """Return True if two trace steps' field patterns can match the same message
    (a pattern that is not a constant, like ``eval(x)``, is taken to differ)."""
    for x, y in zip(a, b, strict=False):
        if x is not None and y is not None:
            fx, fy = fold_int(x), fold_int(y)
            if fx is None or fy is None or fx != fy:
                return False
    return True


def assigned_names(body: Tree) -> set[str]:
    """Return the names ``body`` assigns to or receives into (first field only)."""
    names: set[str] = set()
    for t in body.iter_subtrees():
        targets: list[Tree] = []
        if t.data in ("assign", "incr", "decr") and isinstance(t.children[0], Tree):
            targets.append(t.children[0])
        elif t.data == "recv_args":
            targets.extend(a for a in tree_subtrees(t) if a.data == "varref")
        for ref in targets:
            if ref.data == "varref":
                names.add(str(tree_subtrees(ref)[0].children[0]))
    return names


def receives_into_pid(body: Tree) -> bool:
    """Return True if a receive in ``body`` binds ``_pid`` (``c?x(_pid)``)."""
    for t in body.iter_subtrees():
        if t.data == "recv_args":
            for a in tree_subtrees(t):
                if a.data == "varref" and len(tree_subtrees(a)) == 1 \
                        and str(a.children[0].children[0]) == "_pid":
                    return True
    return False


def starts_with_jump(tree: Tree) -> bool:
    """Return True if the first statement of ``tree`` is a ``break`` or ``goto``."""
    while tree.data in ("block", "labeled"):
        if tree.data == "labeled":
            tree = tree.children[1]
            continue
        first = first_step(tree.children[0])
        if first is None:
            return False
        tree = first
    return tree.data in ("break_stmt", "goto_stmt")


def as_block(tree: Tree) -> Tree:
    """Return ``tree`` as a block (so a leading jump is lowered as an edge)."""
    if tree.data == "block":
        return tree
    return Tree("block", [Tree("sequence", [tree], tree.meta)], tree.meta)


def labeled_skip_tree(st: Tree) -> Tree:
    """Return ``L: skip`` for the ``L:`` that closes a block (spin.y: ``NAME ':'``)."""
    label = st.children[0]
    skip = Tree("skip", [Token.new_borrow_pos("SKIP", "skip", label)], st.meta)
    return Tree("labeled", [label, Tree("expr_stmt", [skip], st.meta)], st.meta)


def first_step(seq: Tree) -> Tree | None:
    for s in tree_subtrees(seq):
        if s.data in ("one_decl", "unsigned_decl", "xu_decl"):
            continue
        return s
    return None


def first_step_kind(seq: Tree) -> str | None:
    s = first_step(seq)
    return None if s is None else s.data


def may_break(tree: Tree) -> bool:
    """Return True if a ``break`` in ``tree`` leaves a loop enclosing ``tree``."""
    loops = ("do_stmt", "for_range", "for_in")
    if tree.data in loops:
        return False
    stack = [tree]
    while stack:
        t = stack.pop()
        if t.data == "break_stmt":
            return True
        stack.extend(c for c in tree_subtrees(t) if c.data not in loops)
    return False


PRIORITY_NODES = frozenset({"priority", "get_priority", "set_priority"})


def uses_priorities(tree: Tree) -> bool:
    """Return True if the model uses process priorities anywhere (SPIN then defines
    HAS_PRIORITY and schedules by priority): ``priority`` on a proctype, ``init`` or
    ``run``, ``get_priority``, ``set_priority`` or ``_priority``."""
    for t in tree.iter_subtrees():
        if t.data in PRIORITY_NODES:
            return True
        if t.data == "run_expr" and any(isinstance(c, Token) and c.type == "PRIORITY"
                                        for c in t.children):
            return True
        if t.data == "field" and str(t.children[0]) == "_priority":
            return True
    return False


