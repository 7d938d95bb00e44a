"""Return Promela text for IR expressions, statements and declarations.

Used by ``emit.py`` in both emission styles (DESIGN.md section 5):

* *structured*: every instance is a proctype; locals stay locals (``l_x``), remote
  references stay ``P[pid]@label`` / ``P[pid]:l_x``;
* *explicit-pc*: every local of instance ``i`` is the global ``i<i>_x``, the control
  location is the global ``pc_<i>``, parameters are constants and remote references
  become comparisons of ``pc_<i>``, so every predicate is a plain global expression
  (what LTL premises and per-action proctypes need).

Identifiers are prefixed (``g_`` globals, ``l_`` locals, ``b_`` block locals) so that no
model name can collide with a Promela keyword, a pan.c name or the LTL operators
``U V W X`` (promela-spin.md section 15). Every operator is fully parenthesised.
Semantics kept: ``%`` is C's remainder in both; PAT's ``mod`` becomes
``((a % b) + b) % b``; logical ``xor`` compares truth values; ranged CSP# variables
(``Overflow.ERROR``) are stored in an ``int`` and followed by an ``assert`` of the range
(a range violation is an assertion violation in SPIN, a model error natively).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from bridge.diagnostics import Span, UnsupportedError
from bridge.ir.expr import (
    AssertStmt,
    Assign,
    Binary,
    Builtin,
    ChanPoll,
    ChanQuery,
    Conditional,
    Const,
    ElseGuard,
    Enabled,
    Expr,
    GetPriority,
    If,
    Index,
    LocalVar,
    Print,
    Receive,
    RecvArg,
    RecvBind,
    RecvMatch,
    RemoteLabel,
    RemoteVar,
    Run,
    Send,
    SetPriority,
    Stmt,
    Unary,
    Var,
    While,
)
from bridge.ir.types import ArrayType, BoolType, ChanType, EnumType, IntType, Overflow, Type

_IDENT = re.compile(r"[^A-Za-z0-9_]")


def sanitize(name: str) -> str:
    """Return ``name`` with every character outside ``[A-Za-z0-9_]`` replaced by ``_``."""
    out = _IDENT.sub("_", name)
    return out if out and not out[0].isdigit() else "_" + out


# ---------------------------------------------------------------------------------
# Types


@dataclass(frozen=True, slots=True)
class Declared:
    """A variable as Promela declares it: base type, flattened length (None for a
    scalar), the dimensions of the IR array (outermost first) and the range check."""

    base: str
    length: int | None
    dims: tuple[int, ...]
    bits: int | None = None  # unsigned name : bits
    check: tuple[int, int] | None = None  # assert lo <= v <= hi after each store


def declare_type(t: Type, span: Span | None = None) -> Declared:
    """Return how a value of IR type ``t`` is declared in Promela (arrays flattened)."""
    dims: list[int] = []
    while isinstance(t, ArrayType):
        dims.append(t.length)
        t = t.element
    length = None
    if dims:
        length = 1
        for d in dims:
            length *= d
    if isinstance(t, BoolType):
        return Declared("bool", length, tuple(dims))
    if isinstance(t, ChanType):
        return Declared("chan", length, tuple(dims))
    if isinstance(t, EnumType):
        fits = all(0 <= v <= 255 for v in t.values)
        return Declared("byte" if fits else "int", length, tuple(dims))
    if isinstance(t, IntType):
        if t.overflow is Overflow.WRAP:
            if t.name in ("bit", "byte", "short", "int", "pid"):
                return Declared("byte" if t.name == "pid" else t.name, length, tuple(dims))
            if t.name.startswith("unsigned:"):
                if dims:
                    raise UnsupportedError.at(span, "arrays of 'unsigned' cannot be emitted")
                return Declared("unsigned", None, (), bits=int(t.name.split(":")[1]))
            # Other wrapping types (bool, mtype as the front-end names them): by range.
            for base, lo, hi in (("bit", 0, 1), ("byte", 0, 255), ("short", -(2**15), 2**15 - 1),
                                 ("int", -(2**31), 2**31 - 1)):
                if t.lo == lo and t.hi == hi:
                    return Declared("bool" if t.name == "bool" else base, length, tuple(dims))
            raise UnsupportedError.at(span, f"wrapping integer type '{t.name}' has no Promela form")
        check = None
        if t.overflow is Overflow.ERROR and t.lo is not None and t.hi is not None:
            check = (t.lo, t.hi)
        return Declared("int", length, tuple(dims), check=check)
    raise UnsupportedError.at(span, f"type {type(t).__name__} has no Promela form")


def declaration(name: str, declared: Declared, init: str | None, hidden: bool = False) -> str:
    """Return one Promela declaration statement (without the ``;``)."""
    prefix = "hidden " if hidden else ""
    if hidden and declared.base in ("bit", "bool"):
        declared = dataclasses.replace(declared, base="byte")  # SPIN cannot hide bits
    if declared.bits is not None:
        text = f"{prefix}unsigned {name} : {declared.bits}"
    elif declared.length is not None:
        text = f"{prefix}{declared.base} {name}[{declared.length}]"
    else:
        text = f"{prefix}{declared.base} {name}"
    return text if init is None else f"{text} = {init}"


# ---------------------------------------------------------------------------------
# Expressions


@dataclass
class Scope:
    """How names resolve while rendering: ``local`` renders a local's name,
    ``local_type`` gives its type; ``param`` gives a parameter's constant text
    (explicit-pc) or None; ``block`` maps block-local names to emitted names.
    ``builtin`` renders ``_pid`` & co. ``remote_label``/``remote_var`` render remote
    references. ``where`` names the context for error messages."""

    globals_: Mapping[str, Type]
    channels: Mapping[str, int]
    local: Callable[[str], str] | None = None
    local_type: Callable[[str], Type | None] | None = None
    block: dict[str, str] = field(default_factory=dict)
    block_types: dict[str, Type] = field(default_factory=dict)
    builtin: Callable[[Builtin], str] | None = None
    remote_label: Callable[[RemoteLabel], str] | None = None
    remote_var: Callable[[RemoteVar, Callable[[Expr], str]], str] | None = None
    else_guard: str | None = None
    where: str = "model"
    # (base name, length) of a process-local channel array -> its emitted name, or None
    channel_array: Callable[[str, int], str | None] | None = None
    # the statements that start a process (explicit-pc: wake its slot), else "run P()"
    run: Callable[[Run], list[str]] | None = None


def global_name(name: str) -> str:
    """Return the emitted name of a global variable or channel."""
    return "g_" + sanitize(name)


def fold(e: Expr, env: Mapping[str, int] | None = None) -> int | None:
    """Return the value of a constant expression (``env`` binds local names, e.g.
    process parameters), or None when it depends on the state."""
    env = env or {}
    if isinstance(e, Const):
        return int(e.value)
    if isinstance(e, Var) and e.scope == "local" and e.name in env:
        return env[e.name]
    if isinstance(e, Unary):
        v = fold(e.operand, env)
        if v is None:
            return None
        return {"-": -v, "!": int(not v), "~": ~v}[e.op]
    if isinstance(e, Binary):
        a, b = fold(e.left, env), fold(e.right, env)
        if a is None or b is None:
            return None
        return _apply(e.op, a, b)
    if isinstance(e, Conditional):
        c = fold(e.cond, env)
        if c is None:
            return None
        return fold(e.then if c else e.otherwise, env)
    return None


def _apply(op: str, a: int, b: int) -> int | None:
    if op in ("/", "%", "mod") and b == 0:
        return None
    if op == "/":
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    if op == "%":
        return a - b * _apply("/", a, b)  # type: ignore[operator]
    if op == "mod":
        return a % b if b > 0 else a - b * (a // b)
    table: dict[str, Callable[[int, int], int]] = {
        "+": lambda x, y: x + y,
        "-": lambda x, y: x - y,
        "*": lambda x, y: x * y,
        "<<": lambda x, y: x << y,
        ">>": lambda x, y: x >> y,
        "&": lambda x, y: x & y,
        "|": lambda x, y: x | y,
        "^": lambda x, y: x ^ y,
        "&&": lambda x, y: int(bool(x) and bool(y)),
        "||": lambda x, y: int(bool(x) or bool(y)),
        "xor": lambda x, y: int(bool(x) != bool(y)),
        "==": lambda x, y: int(x == y),
        "!=": lambda x, y: int(x != y),
        "<": lambda x, y: int(x < y),
        "<=": lambda x, y: int(x <= y),
        ">": lambda x, y: int(x > y),
        ">=": lambda x, y: int(x >= y),
    }
    return table[op](a, b) if op in table else None


class ExprWriter:
    """Render expressions and statements under one ``Scope``."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    # -- names and types ------------------------------------------------------
    def _type_of(self, e: Expr) -> Type | None:
        s = self.scope
        if isinstance(e, Var):
            if e.scope == "global":
                return s.globals_.get(e.name)
            if e.scope == "block":
                return s.block_types.get(e.name)
            return s.local_type(e.name) if s.local_type else None
        if isinstance(e, Index):
            base = self._type_of(e.base)
            return base.element if isinstance(base, ArrayType) else None
        return None

    def var(self, e: Var) -> str:
        s = self.scope
        if e.scope == "global":
            if e.name not in s.globals_ and e.name not in s.channels:
                raise UnsupportedError.at(e.span, f"{s.where}: unknown global '{e.name}'")
            return global_name(e.name)
        if e.scope == "block":
            if e.name not in s.block:
                raise UnsupportedError.at(e.span, f"{s.where}: unknown block variable '{e.name}'")
            return s.block[e.name]
        if s.local is None:
            raise UnsupportedError.at(
                e.span, f"{s.where}: local variable '{e.name}' used outside its process"
            )
        return s.local(e.name)

    def _flat_index(self, e: Index) -> tuple[str, str]:
        """Return (array name, flattened index text) for a chain of ``Index``."""
        indices: list[Expr] = []
        node: Expr = e
        while isinstance(node, Index):
            indices.append(node.index)
            node = node.base
        indices.reverse()
        if isinstance(node, Var):
            base_text = self.var(node)
        elif isinstance(node, RemoteVar) and self.scope.remote_var is not None:
            base_text = self.scope.remote_var(node, self.expr)
        else:
            raise UnsupportedError.at(e.span, f"{self.scope.where}: cannot index this expression")
        t = self._type_of(node)
        dims: list[int] = []
        while isinstance(t, ArrayType):
            dims.append(t.length)
            t = t.element
        if len(indices) == 1 or not dims:
            return base_text, self.expr(indices[0])
        if len(indices) != len(dims):
            raise UnsupportedError.at(
                e.span, f"{self.scope.where}: partial indexing of a multi-dimensional array"
            )
        text = self.expr(indices[0])
        for idx, dim in zip(indices[1:], dims[1:], strict=True):
            text = f"(({text}) * {dim} + ({self.expr(idx)}))"
        return base_text, text

    # -- expressions ----------------------------------------------------------
    def channel(self, e: Expr) -> str:
        """Return a channel operand; Promela has no channel-valued expressions beyond
        names and array elements. An element of a process-local channel array chosen by
        a computed index is, in the IR, ``i == 0 ? c[0] : (i == 1 ? c[1] : ... : 0)``
        (promela/lower.py); it is written back as ``c[i]``."""
        if isinstance(e, Conditional):
            element = _array_choice(e)
            if element is not None and self.scope.channel_array is not None:
                name = self.scope.channel_array(element[0], element[2])
                if name is not None:
                    return f"{name}[{self.expr(element[1])}]"
            raise UnsupportedError.at(
                e.span, f"{self.scope.where}: a channel chosen by an expression "
                "(an array of process-local channels) has no Promela form here"
            )
        return self.expr(e)

    def expr(self, e: Expr) -> str:
        """Return ``e`` as a fully parenthesised Promela expression."""
        if isinstance(e, Const):
            v = int(e.value)
            return str(v) if v >= 0 else f"({v})"
        if isinstance(e, Var):
            return self.var(e)
        if isinstance(e, Index):
            base, index = self._flat_index(e)
            return f"{base}[{index}]"
        if isinstance(e, Unary):
            return f"({e.op}({self.expr(e.operand)}))"
        if isinstance(e, Binary):
            a, b = self.expr(e.left), self.expr(e.right)
            if e.op == "mod":
                return f"(((({a}) % ({b})) + ({b})) % ({b}))"
            if e.op == "xor":
                return f"((!({a})) != (!({b})))"
            return f"(({a}) {e.op} ({b}))"
        if isinstance(e, Conditional):
            return f"(({self.expr(e.cond)}) -> ({self.expr(e.then)}) : ({self.expr(e.otherwise)}))"
        if isinstance(e, ChanQuery):
            return f"{e.op}({self.channel(e.channel)})"
        if isinstance(e, ChanPoll):
            mark = "??" if e.random else "?"
            return f"{self.channel(e.channel)}{mark}[{self.recv_args(e.args, poll=True)}]"
        if isinstance(e, RemoteLabel):
            if self.scope.remote_label is None:
                raise UnsupportedError.at(e.span, f"{self.scope.where}: remote label reference")
            return self.scope.remote_label(e)
        if isinstance(e, RemoteVar):
            if self.scope.remote_var is None:
                raise UnsupportedError.at(e.span, f"{self.scope.where}: remote variable reference")
            return self.scope.remote_var(e, self.expr)
        if isinstance(e, Builtin):
            if self.scope.builtin is None:
                return e.name
            return self.scope.builtin(e)
        if isinstance(e, ElseGuard):
            if self.scope.else_guard is None:
                raise UnsupportedError.at(e.span, f"{self.scope.where}: 'else' outside a guard")
            return self.scope.else_guard
        if isinstance(e, Enabled):
            return f"enabled({self.expr(e.pid)})"
        if isinstance(e, GetPriority):
            return f"get_priority({self.expr(e.pid)})"
        raise UnsupportedError.at(None, f"{self.scope.where}: expression {type(e).__name__}")

    def recv_args(self, args: tuple[RecvArg, ...], poll: bool = False) -> str:
        parts: list[str] = []
        for a in args:
            if isinstance(a, RecvBind):
                parts.append("_" if a.target is None or poll else self.expr(a.target))
            elif isinstance(a, RecvMatch):
                if isinstance(a.value, Const):
                    parts.append(self.expr(a.value))
                else:
                    parts.append(f"eval({self.expr(a.value)})")
        return ",".join(parts)

    # -- statements -----------------------------------------------------------
    def check_after(self, target: Expr) -> list[str]:
        """Return the range assertion after a store into ``target`` (ranged CSP# vars)."""
        t = self._type_of(target)
        if isinstance(t, IntType) and t.overflow is Overflow.ERROR:
            if t.lo is not None and t.hi is not None:
                text = self.expr(target)
                return [f"assert(({text} >= {t.lo}) && ({text} <= {t.hi}))"]
        return []

    def stmt(self, s: Stmt) -> list[str]:
        """Return ``s`` as Promela statements (one per list item, no ``;``)."""
        if isinstance(s, Assign):
            return [f"{self.expr(s.target)} = {self.expr(s.value)}", *self.check_after(s.target)]
        if isinstance(s, If):
            options: list[str] = []
            taken: list[str] = []
            for cond, body in s.branches:
                c = self.expr(cond)
                guard = " && ".join([*(f"!({t})" for t in taken), f"({c})"])
                options.append(f":: ({guard}) -> {self.block(body)}")
                taken.append(c)
            options.append(f":: else -> {self.block(s.otherwise)}")
            return ["if " + " ".join(options) + " fi"]
        if isinstance(s, While):
            return [f"do :: ({self.expr(s.cond)}) -> {self.block(s.body)} :: else -> break od"]
        if isinstance(s, LocalVar):
            name = self.scope.block.get(s.name)
            if name is None:
                raise UnsupportedError.at(s.span, f"{self.scope.where}: undeclared block variable")
            if isinstance(s.init, tuple):
                return [f"{name}[{i}] = {self.expr(v)}" for i, v in enumerate(s.init)]
            return [f"{name} = {self.expr(s.init) if s.init is not None else '0'}"]
        if isinstance(s, AssertStmt):
            return [f"assert({self.expr(s.cond)})"]
        if isinstance(s, Send):
            mark = "!!" if s.sorted else "!"
            return [f"{self.channel(s.channel)}{mark}{','.join(self.expr(a) for a in s.args)}"]
        if isinstance(s, Receive):
            mark = "??" if s.random else "?"
            args = self.recv_args(s.args)
            return [f"{self.channel(s.channel)}{mark}{'<' + args + '>' if s.peek else args}"]
        if isinstance(s, Run):
            if self.scope.run is not None:
                return self.scope.run(s)
            args = ", ".join(self.expr(a) for a in s.args)
            call = f"run {sanitize(s.proctype)}({args})"
            if s.priority is not None:
                value = fold(s.priority)
                if value is None:
                    raise UnsupportedError.at(s.span, f"{self.scope.where}: a run priority that "
                                              "is not a constant (SPIN takes a number)")
                call += f" priority {value}"
            return [call if s.target is None else f"{self.expr(s.target)} = {call}"]
        if isinstance(s, SetPriority):
            if s.checked:
                return [f"set_priority({self.expr(s.pid)}, {self.expr(s.value)})"]
            if not (isinstance(s.pid, Builtin) and s.pid.name == "_pid"):
                raise UnsupportedError.at(s.span, f"{self.scope.where}: an unchecked priority "
                                          "change of another process (only _priority = e)")
            return [f"_priority = {self.expr(s.value)}"]
        if isinstance(s, Print):
            fmt = s.format.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
            args = "".join(f", {self.expr(a)}" for a in s.args)
            return [f'printf("{fmt}"{args})']
        raise UnsupportedError.at(None, f"{self.scope.where}: statement {type(s).__name__}")

    def block(self, body: tuple[Stmt, ...]) -> str:
        lines = [line for st in body for line in self.stmt(st)]
        return "; ".join(lines) if lines else "skip"


def array_element(name: str) -> tuple[str, int] | None:
    """Return ``(base, k)`` for the name ``base[k]`` of a channel of a channel array."""
    m = _ELEMENT.match(name)
    return (m.group(1), int(m.group(2))) if m else None


_ELEMENT = re.compile(r"^(.+)\[(\d+)\]$")


def _array_choice(e: Expr) -> tuple[str, Expr, int] | None:
    """Return ``(base, index, n)`` if ``e`` is the IR form of ``base[index]`` over all the
    channels ``base[0..n-1]`` (a chain of conditionals ending in the invalid channel 0),
    else None."""
    base: str | None = None
    index: Expr | None = None
    k = 0
    node = e
    while isinstance(node, Conditional):
        cond, then = node.cond, node.then
        if not (isinstance(cond, Binary) and cond.op == "==" and isinstance(cond.right, Const)
                and cond.right.value == k and isinstance(then, Var)):
            return None
        element = array_element(then.name)
        if element is None or element[1] != k or (base is not None and element[0] != base):
            return None
        if index is not None and cond.left != index:
            return None
        base, index = element[0], cond.left
        k += 1
        node = node.otherwise
    if base is None or index is None or not (isinstance(node, Const) and node.value == 0):
        return None
    return base, index, k


def block_locals(stmts: tuple[Stmt, ...]) -> list[LocalVar]:
    """Return every ``LocalVar`` declared in ``stmts`` (nested blocks too), in order."""
    found: list[LocalVar] = []
    work: list[tuple[Stmt, ...]] = [stmts]
    while work:
        for s in work.pop():
            if isinstance(s, LocalVar):
                found.append(s)
            elif isinstance(s, If):
                work.extend(body for _, body in s.branches)
                work.append(s.otherwise)
            elif isinstance(s, While):
                work.append(s.body)
    return found


def has_statement(stmts: tuple[Stmt, ...], kinds: tuple[type, ...]) -> Stmt | None:
    """Return the first statement of one of ``kinds`` in ``stmts`` (nested too)."""
    work: list[tuple[Stmt, ...]] = [stmts]
    while work:
        for s in work.pop():
            if isinstance(s, kinds):
                return s
            if isinstance(s, If):
                work.extend(body for _, body in s.branches)
                work.append(s.otherwise)
            elif isinstance(s, While):
                work.append(s.body)
    return None
