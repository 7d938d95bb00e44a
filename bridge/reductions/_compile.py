"""Compiled edges for the counter abstraction: one Python function per edge over a
unit's local values and the globals, generated once per model (as the concrete engine
does, DESIGN.md section 7 and ``bridge/semantics/codegen.py``), so that the abstract
successor function of paper 002 (Defs. 7-8) does not walk the IR per state.

A compiled edge is the interpreter (``_interp.py``) specialised to states without
``OMEGA``: there every value is an int, every comparison is decided and an effect has
one outcome, so the three-valued evaluation collapses to plain Python. The function::

    fire(g, l) -> None | (g2, l2)

takes the frozen globals ``g`` and the frozen locals ``l`` (tuples, arrays as inner
tuples, in declaration order: ``CounterSpace._freeze``), returns None when the guard is
false and the frozen globals and locals after the effect otherwise. It raises
``Fallback`` when a process-counter variable would become ``OMEGA`` (a store above the
cutoff): the caller then runs the interpreter on the same edge, which knows ``OMEGA``.
Model errors (division by zero, an index or a ranged value out of bounds) raise the
interpreter's ``ModelRuntimeError`` with its message. What the generator does not cover
(``else`` guards, arrays used as values, block variables read where they may be unset,
unknown operators or statements) is not compiled: ``compile_edge`` returns None and the
interpreter runs that edge, raising its own error if it must. ``tests/differential/
test_counter_compiled.py`` checks that both give the same abstract states and steps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bridge.diagnostics import ModelRuntimeError
from bridge.ir import (
    ArrayType,
    Assign,
    Binary,
    Conditional,
    Const,
    Edge,
    Expr,
    If,
    Index,
    IntType,
    LocalVar,
    Stmt,
    Type,
    Unary,
    Var,
    Variable,
    While,
)
from bridge.reductions._interp import _range

Fire = Callable[[tuple, tuple], "tuple[tuple, tuple] | None"]


class Fallback(Exception):
    """The compiled edge met ``OMEGA``: run the interpreter instead."""


class _NotCompiled(Exception):
    pass


def _ix(arr: Sequence[int], i: int, name: str, span: Any) -> int:
    if 0 <= i < len(arr):
        return arr[i]
    raise ModelRuntimeError(f"index {i} out of range for '{name}'", span)


def _cell(i: int, n: int, name: str, span: Any) -> int:
    if 0 <= i < n:
        return i
    raise ModelRuntimeError(f"index {i} out of range for '{name}'", span)


def _div(a: int, b: int, span: Any) -> int:
    if b == 0:
        raise ModelRuntimeError("division by zero", span)
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _rem(a: int, b: int, span: Any) -> int:
    if b == 0:
        raise ModelRuntimeError("division by zero", span)
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def _mod(a: int, b: int, span: Any) -> int:
    if b == 0:
        raise ModelRuntimeError("division by zero", span)
    return a % abs(b)


def _fallback() -> int:
    raise Fallback


_ARITH = {"+": "+", "-": "-", "*": "*", "<<": "<<", ">>": ">>", "&": "&", "|": "|", "^": "^"}
_COMPARE = {"==", "!=", "<", "<=", ">", ">="}
_HELPERS = {"_ix": _ix, "_cell": _cell, "_div": _div, "_rem": _rem, "_mod": _mod,
            "_range": _range, "_fallback": _fallback}


class _Gen:
    """Generates the body of one edge's function (see the module docstring)."""

    def __init__(self, globals_: Sequence[Variable], locals_: Sequence[Variable],
                 counters: frozenset[str], cutoff: int | None) -> None:
        self.gslot = {v.name: k for k, v in enumerate(globals_)}
        self.gtype: dict[str, Type] = {v.name: v.type for v in globals_}
        self.lslot = {v.name: k for k, v in enumerate(locals_)}
        self.ltype: dict[str, Type] = {v.name: v.type for v in locals_}
        self.counters = counters
        self.cutoff = cutoff
        self.ns: dict[str, Any] = dict(_HELPERS)
        self.block: dict[str, tuple[str, bool]] = {}  # name -> (python name, is an array)
        self.n = 0
        self.g = "g"  # where globals / locals are read: the inputs in the guard,
        self.l = "l"  # the lists being built in the effect

    def const(self, value: Any) -> str:
        self.n += 1
        name = f"_c{self.n}"
        self.ns[name] = value
        return name

    def fresh(self) -> str:
        self.n += 1
        return f"_v{self.n}"

    # -- expressions (value: an int; cond: a Python truth) -----------------------------

    def array(self, base: Expr) -> tuple[str, str, Type | None]:
        """Return (code of the sequence, its name, element type) of an array variable."""
        if not isinstance(base, Var):
            raise _NotCompiled
        if base.scope == "block":
            py, is_array = self.block.get(base.name, ("", False))
            if not is_array:
                raise _NotCompiled
            t = self.gtype.get(base.name)
            return py, base.name, t.element if isinstance(t, ArrayType) else None
        table, slots, src = (
            (self.gtype, self.gslot, self.g) if base.scope == "global" else (self.ltype, self.lslot, self.l)
        )
        t = table.get(base.name)
        if not isinstance(t, ArrayType) or base.scope not in ("global", "local"):
            raise _NotCompiled
        return f"{src}[{slots[base.name]}]", base.name, t.element

    def value(self, e: Expr) -> str:
        if isinstance(e, Const):
            return repr(int(e.value))
        if isinstance(e, Var):
            if e.scope == "block":
                py, is_array = self.block.get(e.name, ("", True))
                if is_array:
                    raise _NotCompiled
                return py
            if e.scope == "global":
                t, slot, src = self.gtype.get(e.name), self.gslot.get(e.name), self.g
            elif e.scope == "local":
                t, slot, src = self.ltype.get(e.name), self.lslot.get(e.name), self.l
            else:
                raise _NotCompiled
            if slot is None or isinstance(t, ArrayType):
                raise _NotCompiled
            return f"{src}[{slot}]"
        if isinstance(e, Index):
            arr, name, _t = self.array(e.base)
            return f"_ix({arr}, {self.value(e.index)}, {name!r}, {self.const(e.span)})"
        if isinstance(e, Unary):
            x = self.value(e.operand)
            if e.op == "!":
                return f"(0 if {x} else 1)"
            if e.op == "-":
                return f"(-{x})"
            if e.op == "~":
                return f"(~{x})"
            raise _NotCompiled
        if isinstance(e, Binary):
            if e.op in ("&&", "||") or e.op in _COMPARE or e.op == "xor":
                return f"(1 if {self.cond(e)} else 0)"
            a, b = self.value(e.left), self.value(e.right)
            if e.op in _ARITH:
                return f"({a} {_ARITH[e.op]} {b})"
            helper = {"/": "_div", "%": "_rem", "mod": "_mod"}.get(e.op)
            if helper is None:
                raise _NotCompiled
            return f"{helper}({a}, {b}, {self.const(e.span)})"
        if isinstance(e, Conditional):
            return f"({self.value(e.then)} if {self.cond(e.cond)} else {self.value(e.otherwise)})"
        raise _NotCompiled

    def cond(self, e: Expr) -> str:
        if isinstance(e, Binary):
            if e.op == "&&":
                return f"({self.cond(e.left)} and {self.cond(e.right)})"
            if e.op == "||":
                return f"({self.cond(e.left)} or {self.cond(e.right)})"
            if e.op == "xor":
                return f"(bool({self.value(e.left)}) != bool({self.value(e.right)}))"
            if e.op in _COMPARE:
                return f"({self.value(e.left)} {e.op} {self.value(e.right)})"
        if isinstance(e, Unary) and e.op == "!":
            return f"(not {self.cond(e.operand)})"
        return self.value(e)

    # -- statements ----------------------------------------------------------------------

    def ranged(self, v: str, t: Type | None, target: Expr) -> str:
        if isinstance(t, IntType) and (t.lo is not None or t.hi is not None):
            return f"_range({v}, {self.const(t)}, {self.const(target)})"
        return v

    def stmts(self, body: Sequence[Stmt], out: list[str], ind: str) -> None:
        if not body:
            out.append(f"{ind}pass")
        for s in body:
            self.stmt(s, out, ind)

    def stmt(self, s: Stmt, out: list[str], ind: str) -> None:
        if isinstance(s, Assign):
            v = self.fresh()
            out.append(f"{ind}{v} = {self.value(s.value)}")
            t = s.target
            if isinstance(t, Var):
                if t.scope == "block":
                    py, is_array = self.block.get(t.name, ("", True))
                    if is_array:
                        raise _NotCompiled
                    out.append(f"{ind}{py} = {self.ranged(v, self.gtype.get(t.name), t)}")
                    return
                if t.scope == "global":
                    slot, ty = self.gslot.get(t.name), self.gtype.get(t.name)
                    if slot is not None and t.name in self.counters and self.cutoff is not None:
                        out.append(f"{ind}if {v} > {self.cutoff}: _fallback()")
                    src = self.g
                else:
                    slot, ty = self.lslot.get(t.name), self.ltype.get(t.name)
                    src = self.l
                if slot is None or isinstance(ty, ArrayType) or t.scope not in ("global", "local"):
                    raise _NotCompiled
                out.append(f"{ind}{src}[{slot}] = {self.ranged(v, ty, t)}")
                return
            if isinstance(t, Index):
                arr, name, elem = self.array(t.base)
                i = self.fresh()
                n = f"len({arr})"
                out.append(f"{ind}{i} = _cell({self.value(t.index)}, {n}, {name!r}, {self.const(t.span)})")
                out.append(f"{ind}{arr}[{i}] = {self.ranged(v, elem, t)}")
                return
            raise _NotCompiled
        if isinstance(s, LocalVar):
            py = self.fresh()
            if isinstance(s.init, tuple):
                out.append(f"{ind}{py} = [{', '.join(self.value(x) for x in s.init)}]")
                self.block[s.name] = (py, True)
            else:
                out.append(f"{ind}{py} = {'0' if s.init is None else self.value(s.init)}")
                self.block[s.name] = (py, False)
            return
        if isinstance(s, If):
            kw = "if"
            for c, branch in s.branches:
                out.append(f"{ind}{kw} {self.cond(c)}:")
                self.scoped(branch, out, ind + "    ")
                kw = "elif"
            out.append(f"{ind}else:")
            self.scoped(s.otherwise, out, ind + "    ")
            return
        if isinstance(s, While):
            out.append(f"{ind}while {self.cond(s.cond)}:")
            self.scoped(s.body, out, ind + "    ")
            return
        raise _NotCompiled

    def scoped(self, body: Sequence[Stmt], out: list[str], ind: str) -> None:
        """Emit ``body``; its block variables are not visible after it (they may be
        unset there: the interpreter would refuse the read, so it is not compiled)."""
        saved = dict(self.block)
        self.stmts(body, out, ind)
        self.block = saved


def _written_arrays(stmts: Sequence[Stmt]) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    stack = list(stmts)
    while stack:
        s = stack.pop()
        if isinstance(s, Assign) and isinstance(s.target, Index) and isinstance(s.target.base, Var):
            found.add((s.target.base.scope, s.target.base.name))
        elif isinstance(s, If):
            for _c, body in s.branches:
                stack.extend(body)
            stack.extend(s.otherwise)
        elif isinstance(s, While):
            stack.extend(s.body)
    return found


def compile_edge(
    edge: Edge,
    globals_: Sequence[Variable],
    locals_: Sequence[Variable],
    counters: frozenset[str],
    cutoff: int | None,
) -> Fire | None:
    """Return the compiled ``fire(g, l)`` of ``edge`` (module docstring), or None when
    the edge uses something the generator does not cover (the interpreter runs it)."""
    gen = _Gen(globals_, locals_, counters, cutoff)
    try:
        lines = ["def fire(g, l):"]
        if edge.guard is not None:
            if type(edge.guard).__name__ == "ElseGuard":
                return None
            lines.append(f"    if not {gen.cond(edge.guard)}:")
            lines.append("        return None")
        if edge.effect:
            gen.g, gen.l = "G", "L"
            lines.append("    G = list(g)")
            lines.append("    L = list(l)")
            arrays = _written_arrays(edge.effect)
            for scope, name in sorted(arrays):
                if scope in ("global", "local"):
                    src, slot = ("G", gen.gslot.get(name)) if scope == "global" else ("L", gen.lslot.get(name))
                    if slot is None:
                        raise _NotCompiled
                    lines.append(f"    {src}[{slot}] = list({src}[{slot}])")
            gen.stmts(edge.effect, lines, "    ")
            for scope, name in sorted(arrays):
                if scope in ("global", "local"):
                    src, slot = ("G", gen.gslot[name]) if scope == "global" else ("L", gen.lslot[name])
                    lines.append(f"    {src}[{slot}] = tuple({src}[{slot}])")
            lines.append("    return (tuple(G), tuple(L))")
        else:
            lines.append("    return (g, l)")
    except _NotCompiled:
        return None
    ns: dict[str, Any] = gen.ns
    exec(compile("\n".join(lines) + "\n", f"<counter edge {edge.source}->{edge.target}>", "exec"), ns)
    return ns["fire"]  # type: ignore[no-any-return]

