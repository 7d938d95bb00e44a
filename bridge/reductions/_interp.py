"""A small evaluator for the data part of the IR, with an optional omega value.

Used by the counter abstraction (``counter.py``), whose abstract states hold counts and
process-counter variables that may be ``OMEGA`` ("more than the cutoff"; paper 002
section 5). Evaluation is three-valued there: a comparison involving ``OMEGA`` whose
answer depends on the concrete count yields ``UNKNOWN``, and callers explore both
outcomes (may) or neither (must), as the abstraction requires.

Covers constants, variables (global, local, block), constant-folded array indices,
unary/binary operators of both languages, conditionals; statements ``Assign``, ``If``,
``While`` (bounded), ``LocalVar``. Anything else raises ``UnsupportedError`` naming the
construct, so the abstraction never silently approximates what it does not model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from bridge.diagnostics import ModelRuntimeError, UnsupportedError
from bridge.ir import (
    ArrayType,
    Assign,
    Binary,
    Conditional,
    Const,
    Expr,
    If,
    Index,
    IntType,
    LocalVar,
    Overflow,
    Stmt,
    Type,
    Unary,
    Var,
    While,
)


class _Omega:
    """More than the cutoff (paper 002 Def. 8)."""

    _instance: _Omega | None = None

    def __new__(cls) -> _Omega:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ω"

    def __reduce__(self) -> str:
        return "OMEGA"


class _Unknown:
    """A boolean whose value depends on the concretisation of an ``OMEGA``."""

    def __repr__(self) -> str:
        return "unknown"


OMEGA = _Omega()
UNKNOWN = _Unknown()
Value = int | _Omega | _Unknown


@dataclass
class Env:
    """Mutable valuation: ``globals`` and ``locals`` map names to ints or lists of ints
    (arrays, flattened row-major); ``block`` holds effect-local variables."""

    globals: dict[str, object]
    locals: dict[str, object]
    block: dict[str, object]
    cutoff: int | None = None  # process-counter variables saturate above it
    counters: frozenset[str] = frozenset()

    def copy(self) -> Env:
        def dup(d: dict[str, object]) -> dict[str, object]:
            return {k: (list(v) if isinstance(v, list) else v) for k, v in d.items()}

        return Env(dup(self.globals), dup(self.locals), dup(self.block), self.cutoff, self.counters)


def _scope(env: Env, var: Var) -> dict[str, object]:
    if var.scope == "local":
        return env.locals
    if var.scope == "block":
        return env.block
    return env.globals


def _truth(v: Value) -> bool | _Unknown:
    if v is UNKNOWN:
        return UNKNOWN
    if v is OMEGA:
        return True  # more than the cutoff >= 1: nonzero
    return bool(v)


def _compare(op: str, a: Value, b: Value, cutoff: int | None) -> Value:
    if a is OMEGA or b is OMEGA:
        if a is OMEGA and b is OMEGA:
            return UNKNOWN
        k = cutoff if cutoff is not None else 0
        if b is OMEGA:  # flip so that a is OMEGA
            a, b = b, a
            op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
        c = int(b)  # OMEGA stands for some n > k
        lo = k + 1
        if op == "==":
            return 0 if c < lo else UNKNOWN
        if op == "!=":
            return 1 if c < lo else UNKNOWN
        if op == ">":
            return 1 if c < lo else UNKNOWN
        if op == ">=":
            return 1 if c <= lo else UNKNOWN
        if op == "<":
            return 0 if c <= lo else UNKNOWN
        if op == "<=":
            return 0 if c < lo else UNKNOWN
    a, b = int(a), int(b)
    return int({"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op])


def _arith(op: str, a: Value, b: Value, span) -> Value:
    if a is OMEGA or b is OMEGA:
        if op in ("+",):
            return OMEGA
        raise UnsupportedError.at(
            span, f"operator '{op}' on a process counter above the cutoff (ω)",
            "only x + 1, x - 1 and comparisons with constants are abstracted",
        )
    a, b = int(a), int(b)
    if op in ("/", "%", "mod") and b == 0:
        raise ModelRuntimeError("division by zero", span)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    if op == "%":
        r = abs(a) % abs(b)
        return r if a >= 0 else -r
    if op == "mod":
        return a % abs(b)
    if op == "<<":
        return a << b
    if op == ">>":
        return a >> b
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    raise UnsupportedError.at(span, f"operator '{op}' is not supported by the counter abstraction")


def evaluate(e: Expr, env: Env) -> Value:
    """Return the value of ``e`` (``UNKNOWN`` for a comparison an ``OMEGA`` decides)."""
    if isinstance(e, Const):
        return int(e.value)
    if isinstance(e, Var):
        scope = _scope(env, e)
        if e.name not in scope:
            raise UnsupportedError.at(e.span, f"variable '{e.name}' is not known to the abstraction")
        v = scope[e.name]
        if isinstance(v, list):
            raise UnsupportedError.at(e.span, f"array '{e.name}' used as a value")
        return v  # type: ignore[return-value]
    if isinstance(e, Index):
        if not isinstance(e.base, Var):
            raise UnsupportedError.at(e.span, "nested array access in the counter abstraction")
        arr = _scope(env, e.base).get(e.base.name)
        if not isinstance(arr, list):
            raise UnsupportedError.at(e.span, f"'{e.base.name}' is not an array")
        i = evaluate(e.index, env)
        if not isinstance(i, int):
            raise UnsupportedError.at(e.span, "array index depends on a counter above the cutoff")
        if not 0 <= i < len(arr):
            raise ModelRuntimeError(f"index {i} out of range for '{e.base.name}'", e.span)
        return arr[i]
    if isinstance(e, Unary):
        v = evaluate(e.operand, env)
        if e.op == "!":
            t = _truth(v)
            return UNKNOWN if t is UNKNOWN else int(not t)
        if v is UNKNOWN or v is OMEGA:
            raise UnsupportedError.at(e.span, f"operator '{e.op}' on ω")
        return -int(v) if e.op == "-" else ~int(v)
    if isinstance(e, Binary):
        if e.op in ("&&", "||"):
            left = _truth(evaluate(e.left, env))
            if e.op == "&&" and left is False:
                return 0
            if e.op == "||" and left is True:
                return 1
            right = _truth(evaluate(e.right, env))
            if left is UNKNOWN:
                if e.op == "&&":
                    return 0 if right is False else UNKNOWN
                return 1 if right is True else UNKNOWN
            return UNKNOWN if right is UNKNOWN else int(right)
        a = evaluate(e.left, env)
        b = evaluate(e.right, env)
        if e.op == "xor":
            ta, tb = _truth(a), _truth(b)
            return UNKNOWN if UNKNOWN in (ta, tb) else int(ta != tb)
        if a is UNKNOWN or b is UNKNOWN:
            if e.op in ("==", "!="):
                return UNKNOWN
            raise UnsupportedError.at(e.span, f"operator '{e.op}' on an undetermined value")
        if e.op in ("==", "!=", "<", "<=", ">", ">="):
            return _compare(e.op, a, b, env.cutoff)
        return _arith(e.op, a, b, e.span)
    if isinstance(e, Conditional):
        c = _truth(evaluate(e.cond, env))
        if c is UNKNOWN:
            raise UnsupportedError.at(e.span, "conditional expression decided by ω")
        return evaluate(e.then if c else e.otherwise, env)
    raise UnsupportedError.at(
        getattr(e, "span", None), f"{type(e).__name__} is not supported by the counter abstraction"
    )


def _store(env: Env, target: Expr, value: Value, types: Callable[[Var], Type | None]) -> None:
    if value is UNKNOWN:
        raise UnsupportedError.at(getattr(target, "span", None), "storing an undetermined value")
    if isinstance(target, Var):
        scope = _scope(env, target)
        t = types(target)
        if target.scope == "global" and target.name in env.counters:
            value = saturate(value, env.cutoff)
        elif value is OMEGA:
            raise UnsupportedError.at(
                target.span, f"ω stored into '{target.name}', which is not a process counter"
            )
        scope[target.name] = _range(int(value), t, target) if isinstance(value, int) else value
        return
    if isinstance(target, Index) and isinstance(target.base, Var):
        arr = _scope(env, target.base).get(target.base.name)
        i = evaluate(target.index, env)
        if not isinstance(arr, list) or not isinstance(i, int):
            raise UnsupportedError.at(target.span, "unsupported array store")
        if not 0 <= i < len(arr):
            raise ModelRuntimeError(f"index {i} out of range for '{target.base.name}'", target.span)
        if not isinstance(value, int):
            raise UnsupportedError.at(target.span, "ω stored into an array cell")
        t = types(target.base)
        elem = t.element if isinstance(t, ArrayType) else None
        arr[i] = _range(value, elem, target)
        return
    raise UnsupportedError.at(getattr(target, "span", None), "unsupported assignment target")


def saturate(value: Value, cutoff: int | None) -> Value:
    """Return ``value`` with counts above the cutoff replaced by ``OMEGA``."""
    if cutoff is not None and isinstance(value, int) and value > cutoff:
        return OMEGA
    return value


def _range(value: int, t: Type | None, where: Expr) -> int:
    if isinstance(t, IntType) and (t.lo is not None or t.hi is not None):
        lo = t.lo if t.lo is not None else value
        hi = t.hi if t.hi is not None else value
        if not lo <= value <= hi:
            if t.overflow is Overflow.WRAP and t.lo is not None and t.hi is not None:
                width = t.hi - t.lo + 1
                return (value - t.lo) % width + t.lo
            if t.overflow is Overflow.ERROR:
                raise ModelRuntimeError(f"value {value} out of range {lo}..{hi}", getattr(where, "span", None))
    return value


def _omega_decrement(s: Assign, env: Env) -> bool:
    t, v = s.target, s.value
    return (
        isinstance(t, Var) and t.scope == "global" and t.name in env.counters
        and env.globals.get(t.name) is OMEGA
        and isinstance(v, Binary) and v.op == "-" and isinstance(v.left, Var)
        and v.left.name == t.name and isinstance(v.right, Const) and int(v.right.value) == 1
    )


def execute(
    stmts: tuple[Stmt, ...], env: Env, types: Callable[[Var], Type | None]
) -> Iterator[Env]:
    """Yield every environment reached by running ``stmts`` from ``env`` (several when
    an ``If`` condition is ``UNKNOWN``: both branches are explored)."""
    work: list[tuple[tuple[Stmt, ...], Env]] = [(stmts, env)]
    while work:
        body, cur = work.pop()
        done = True
        for k, s in enumerate(body):
            rest = body[k + 1:]
            if isinstance(s, Assign):
                if _omega_decrement(s, cur):
                    # omega - 1 is omega or the cutoff (paper 002 section 5): both
                    other = cur.copy()
                    other.globals[s.target.name] = cur.cutoff  # type: ignore[union-attr]
                    work.append((rest, other))
                    continue  # cur keeps omega
                _store(cur, s.target, evaluate(s.value, cur), types)
            elif isinstance(s, LocalVar):
                init = s.init
                if isinstance(init, tuple):
                    cur.block[s.name] = [int(evaluate(x, cur)) for x in init]  # type: ignore[arg-type]
                else:
                    cur.block[s.name] = 0 if init is None else evaluate(init, cur)
            elif isinstance(s, If):
                chosen: list[tuple[Stmt, ...]] = []
                for cond, branch in s.branches:
                    c = _truth(evaluate(cond, cur))
                    if c is True:
                        chosen.append(branch)
                        break
                    if c is UNKNOWN:
                        chosen.append(branch)
                else:
                    chosen.append(s.otherwise)
                for i, branch in enumerate(chosen):
                    work.append((branch + rest, cur if i == len(chosen) - 1 else cur.copy()))
                done = False
                break
            elif isinstance(s, While):
                c = _truth(evaluate(s.cond, cur))
                if c is UNKNOWN:
                    raise UnsupportedError.at(s.span, "loop condition decided by ω")
                if c:
                    work.append((s.body + (s,) + rest, cur))
                    done = False
                    break
            else:
                raise UnsupportedError.at(
                    getattr(s, "span", None),
                    f"{type(s).__name__} in an effect is not supported by the counter abstraction",
                )
        if done:
            yield cur
