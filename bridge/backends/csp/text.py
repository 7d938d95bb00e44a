"""CSP# text of values with cases, and the arithmetic of Promela values.

CSP# has no conditional expression, so an expression with cases (a conditional
expression, a remote reference through a pid, an index that may be out of range) is a
list of (conditions, value) pairs: a Boolean context joins them with ``||``, a
statement becomes an ``if`` chain. Stores follow Promela's truncation with PAT's ``%``,
which is the non-negative modulo (cspsharp.md section 4).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bridge.diagnostics import Span, UnsupportedError
from bridge.ir.expr import Receive, Send
from bridge.ir.model import Channel
from bridge.ir.types import ArrayType, BoolType, IntType, Overflow, Type

MAX_ALTERNATIVES = 64  # cases of one expression (conditional expressions, remote refs)


def refuse(span: Span | None, construct: str) -> UnsupportedError:
    """Return the error that refuses ``construct`` at ``span``."""
    return UnsupportedError.at(span, f"CSP# has no equivalent of {construct}")

# ---------------------------------------------------------------------------------
# Alternatives: an expression with cases (a conditional expression, a remote reference
# through a pid) is a list of (conditions, value) pairs; a Boolean context joins them
# with ||, a statement becomes an if-chain. CSP# has no conditional expression.


@dataclass(frozen=True, slots=True)
class Alts:
    """Cases of a value: each ``(conditions, text)``; ``exhaustive`` when one case
    always applies (otherwise no case applying is a model error in Promela)."""

    cases: tuple[tuple[tuple[str, ...], str], ...]
    exhaustive: bool = True

    @staticmethod
    def one(text: str) -> Alts:
        return Alts(((((), text)),))

    @property
    def simple(self) -> str | None:
        if len(self.cases) == 1 and not self.cases[0][0] and self.exhaustive:
            return self.cases[0][1]
        return None


def product(parts: Sequence[Alts], span: Span | None) -> list[tuple[tuple[str, ...], list[str]]]:
    out: list[tuple[tuple[str, ...], list[str]]] = [((), [])]
    for p in parts:
        out = [(c1 + c2, [*v1, v2]) for c1, v1 in out for c2, v2 in p.cases]
        if len(out) > MAX_ALTERNATIVES:
            raise refuse(span, "an expression with this many cases (conditional "
                          "expressions or remote references through a pid)")
    return out


def combine(parts: Sequence[Alts], fn: Callable[[list[str]], str], span: Span | None) -> Alts:
    cases = tuple((c, fn(v)) for c, v in product(parts, span))
    return Alts(cases, all(p.exhaustive for p in parts))


def conj(items: Sequence[str]) -> str:
    items = [x for x in items if x and x != "true"]
    if any(x == "false" for x in items):
        return "false"
    if not items:
        return "true"
    return items[0] if len(items) == 1 else "(" + " && ".join(items) + ")"


def disj(items: Sequence[str]) -> str:
    items = [x for x in items if x and x != "false"]
    if any(x == "true" for x in items):
        return "true"
    if not items:
        return "false"
    return items[0] if len(items) == 1 else "(" + " || ".join(items) + ")"


def neg(text: str) -> str:
    if text == "true":
        return "false"
    if text == "false":
        return "true"
    return f"!{text}" if enclosed(text) else f"!({text})"


def enclosed(text: str) -> bool:
    """Return True if ``text`` is one parenthesised group."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for n, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and n < len(text) - 1:
            return False
    return True


def bool_of(a: Alts) -> str:
    """Join Boolean cases into one condition."""
    return disj([conj([*c, v]) for c, v in a.cases])


def array_dims(t: Type) -> tuple[list[int], Type]:
    dims: list[int] = []
    while isinstance(t, ArrayType):
        dims.append(t.length)
        t = t.element
    return dims, t


def cell_count(dims: Sequence[int]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def wrap(value: str, t: Type | None) -> str:
    """Return ``value`` as stored into a variable of type ``t`` (Promela truncation;
    PAT's ``%`` is the non-negative modulo). 32-bit ``int`` is not wrapped (README)."""
    literal = value.strip("()")
    if literal.lstrip("-").isdigit() and literal.count("-") <= 1:
        return int_text(wrap_const(int(literal), t))
    if isinstance(t, BoolType):
        return f"({value}) % 2"
    if isinstance(t, IntType) and t.overflow is Overflow.WRAP and t.lo is not None \
            and t.hi is not None and t.name != "int":
        width = t.hi - t.lo + 1
        if t.lo == 0:
            return f"({value}) % {width}"
        return f"((({value}) - ({t.lo})) % {width}) + ({t.lo})"
    return value


def wrap_const(v: int, t: Type | None) -> int:
    if isinstance(t, BoolType):
        return v & 1
    if isinstance(t, IntType) and t.overflow is Overflow.WRAP and t.lo is not None \
            and t.hi is not None and t.name != "int":
        width = t.hi - t.lo + 1
        return (v - t.lo) % width + t.lo
    return v


def int_text(v: int) -> str:
    return str(v) if v >= 0 else f"({v})"


def c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def apply_binary(op: str, a: int, b: int) -> int | None:
    if op in ("/", "%", "mod") and b == 0:
        return None
    table: dict[str, Callable[[int, int], int]] = {
        "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
        "/": c_div, "%": lambda x, y: x - y * c_div(x, y), "mod": lambda x, y: x % y,
        "<<": lambda x, y: x << y, ">>": lambda x, y: x >> y, "&": lambda x, y: x & y,
        "|": lambda x, y: x | y, "^": lambda x, y: x ^ y,
        "&&": lambda x, y: int(bool(x) and bool(y)), "||": lambda x, y: int(bool(x) or bool(y)),
        "xor": lambda x, y: int(bool(x) != bool(y)),
        "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y),
        "<": lambda x, y: int(x < y), "<=": lambda x, y: int(x <= y),
        ">": lambda x, y: int(x > y), ">=": lambda x, y: int(x >= y),
    }
    if op in ("<<", ">>") and not 0 <= b < 64:
        return None
    return table[op](a, b) if op in table else None


def paren(text: str) -> str:
    return text if enclosed(text) else f"({text})"


def chain(branches: list[tuple[str, list[str]]], exhaustive: bool,
           mark_failable: Callable[[], None]) -> list[str]:
    """Return an if-chain over ``branches``; without an exhaustive case list, no case
    applying is a model error (bridge_failed)."""
    if len(branches) == 1 and branches[0][0] == "true" and exhaustive:
        return branches[0][1]
    text = ""
    for n, (c, body) in enumerate(branches):
        last = n == len(branches) - 1 and exhaustive
        if last and n > 0:
            text += f" else {{ {' '.join(body)} }}"
        elif last and c == "true":
            text += " ".join(body)
        else:
            text += ("if" if n == 0 else " else if") + f" ({c}) {{ {' '.join(body)} }}"
    if not exhaustive:
        mark_failable()
        text += " else { bridge_failed = 1; }"
    return [text]


def wrong_arity(comm: Send | Receive, channel: Channel) -> bool:
    """Return True for a send with another number of values than ``channel`` has
    fields (legal Promela; pan's error when it executes)."""
    return isinstance(comm, Send) and len(comm.args) != len(channel.fields)
