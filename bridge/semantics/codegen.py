"""Generate Python source for a system's successor function (DESIGN.md section 7).

The IR is turned into straight-line Python once per model and compiled with
``compile``/``exec``; the inner loop never walks the IR. For every process instance
(and, for templates that ``Run`` can start, for a generic template with the base offset
and pid as arguments) one function per control location is generated::

    def _f3_1(s, b, pid, out, aux):
        # edge 2: [x[0] == 1] rule.0.1 { x[0] = 0; x[1] = 1 }
        if s[4] == 1:
            t = list(s); t[3] = 1; t[4] = 0; t[5] = 1
            out.append((_S7, tuple(t)))

Steps that are complete on their own go to ``out``; what needs the rest of the system
goes to ``aux`` as a tagged tuple, combined afterwards by ``CompiledStateSpace``:

* ``(1, cid, message, pid, edge, apply, b)``: a send on rendezvous channel ``cid``;
* ``(2, cid, pattern, pid, edge, apply, b)``: a receive on a rendezvous channel;
* ``(3, event, pid, edge, loc_slot, target)``: a candidate CSP barrier event;
* ``(4, pid, else_function, b)``: an ``else`` edge to take iff the instance has no
  other step (deferred because a sibling may synchronise);
* ``(5, pid, timeout_function, b)``: edges whose guard reads ``timeout``.

Constant sub-expressions are folded (CSP# specialised processes have constant indices,
so ``x[(i+1)%N]`` becomes one slot). Arithmetic follows expr.py: ``/`` truncates toward
zero, ``%`` is C's remainder, ``mod`` is PAT's non-negative modulo; model errors raise
``ModelRuntimeError`` through small helpers in ``statespace.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bridge.diagnostics import Span, UnsupportedError
from bridge.ir import (
    UNBOUNDED,
    ArrayType,
    AssertStmt,
    Assign,
    Binary,
    BoolType,
    Builtin,
    Call,
    ChanPoll,
    ChanQuery,
    ChanType,
    Conditional,
    Const,
    Edge,
    ElseGuard,
    Enabled,
    Event,
    Expr,
    GetPriority,
    If,
    Index,
    IntType,
    LocalVar,
    Overflow,
    Print,
    Receive,
    RecvBind,
    RecvMatch,
    RemoteLabel,
    RemoteVar,
    Run,
    Send,
    SetPriority,
    SourceLanguage,
    Stmt,
    Type,
    Unary,
    Var,
    While,
    iter_statements,
    iter_subexpressions,
    scalar_count,
)
from bridge.semantics.state import ChannelSlot, ProcessLayout, StateLayout

_NO = object()  # "not a constant"
_REMOTE_READ = "_rbase_read"  # the helper giving the base of a remote read

_PY_BINARY = {
    "+": "+", "-": "-", "*": "*", "<<": "<<", ">>": ">>", "&": "&", "|": "|", "^": "^",
    "==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
}


def c_div(a: int, b: int) -> int:
    """Return ``a / b`` truncated toward zero (C, C#); b must not be 0."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def c_rem(a: int, b: int) -> int:
    """Return C's remainder ``a % b`` (the sign of the dividend)."""
    return a - b * c_div(a, b)


def store_code(value: str, t: Type, language: SourceLanguage, sid: int) -> str:
    """Return code converting ``value`` for storage into a variable of type ``t``
    (a literal is converted here, at generation time, unless it violates a range)."""
    literal = value.strip("()")
    if literal.lstrip("-").isdigit() or literal in ("True", "False"):
        v = int(literal == "True") if literal in ("True", "False") else int(literal)
        if isinstance(t, IntType):
            if t.overflow is Overflow.WRAP and t.lo is not None and t.hi is not None:
                return str((v - t.lo) % (t.hi - t.lo + 1) + t.lo)
            if t.overflow is not Overflow.ERROR or (
                (t.lo is None or v >= t.lo) and (t.hi is None or v <= t.hi)
            ):
                return str(v)
        elif isinstance(t, BoolType):
            return str(v & 1 if language is SourceLanguage.PROMELA else int(bool(v)))
        else:
            return str(v)
    if isinstance(t, IntType):
        if t.overflow is Overflow.WRAP and t.lo is not None and t.hi is not None:
            width = t.hi - t.lo + 1
            if width & (width - 1) == 0:
                if t.lo == 0:
                    return f"(({value}) & {width - 1})"
                return f"((({value}) - {t.lo}) & {width - 1}) + {t.lo}"
            return f"((({value}) - {t.lo}) % {width}) + {t.lo}"
        if t.overflow is Overflow.ERROR:
            lo = "None" if t.lo is None else t.lo
            hi = "None" if t.hi is None else t.hi
            return f"_rng({value}, {lo}, {hi}, {sid})"
        return f"({value})"
    if isinstance(t, BoolType):
        if language is SourceLanguage.PROMELA:
            return f"(({value}) & 1)"
        return f"(1 if ({value}) else 0)"
    return f"({value})"


def stored_value(v: Any) -> Any:
    """Return ``v`` as a variable, a channel buffer, a local or a parameter holds it:
    a bool as the int 1 or 0, anything else (an int, a library value's tuple) as it is.
    One rendering of a stored value for every search (README, "a stored bool is an
    int"): the explorer keeps states as the step built them, the LTL product packs
    them, and both read the same ints back."""
    return int(v) if type(v) is bool else v


def converting(t: Type) -> bool:
    """Return whether ``store_code`` turns every value stored into type ``t`` (into each
    element of an array type) into an int by itself (a bool type, a wrapping bounded
    int)."""
    if isinstance(t, ArrayType):
        return converting(t.element)
    return isinstance(t, BoolType) or (
        isinstance(t, IntType) and t.overflow is Overflow.WRAP
        and t.lo is not None and t.hi is not None)


def field_types(comm: Send, slot: Any) -> tuple:
    """Return the field types of the channel of ``comm`` (its static ``slot``), or
    unbounded ints, one per value, when the channel is known only at run time."""
    if slot is not None:
        return slot.channel.fields
    return tuple(UNBOUNDED for _ in comm.args)


def as_stored(code: str, kind: str | None) -> str:
    """Return ``code`` converted as ``stored_value`` converts its value, by the value's
    ``Generator.bool_kind``: surely a bool (``"b"``), maybe one (``"m"``), or never."""
    if kind == "b":
        return f"(1 if {code} else 0)"
    if kind == "m":
        return f"_stored({code})"
    return code


@dataclass
class Context:
    """Where generated code runs: ``src`` names the state being read (``s`` the tuple
    in guards, ``t`` the list being built in effects); ``base``/``pid`` are ints for a
    specialised instance, the names ``b``/``pid`` for generic template code, None in a
    state predicate. ``block``: block-local variables (name -> python name, type)."""

    src: str
    base: int | str | None
    pid: int | str | None
    proc: ProcessLayout | None
    block: dict[str, tuple[str, Type]] = field(default_factory=dict)
    timeout: bool = False
    # an option at a location with ``else``: the timeout pass never comes there (the
    # ``else`` always lets the process move), so ``timeout`` reads false (SPIN's pan)
    timeout_false: bool = False

    def rel(self, offset: int) -> str:
        if isinstance(self.base, int):
            return str(self.base + offset)
        return f"b+{offset}"

    def with_src(self, src: str) -> Context:
        return Context(src, self.base, self.pid, self.proc, self.block, self.timeout,
                       self.timeout_false)


class Generator:
    """Accumulates generated source and the constants it refers to (``namespace``)."""

    def __init__(self, layout: StateLayout) -> None:
        self.layout = layout
        self.system = layout.system
        self.language = layout.system.language
        self.lines: list[str] = []
        self.namespace: dict[str, Any] = {}
        self.spans: list[Span | None] = []
        self._counter = 0
        self._span_ids: dict[Span | None, int] = {}
        # Locals of the instance being generated that are never assigned (parameters,
        # mostly) with their values: folded like constants (specialised instance code).
        self.consts: dict[str, int] = {}
        # While a family's shared code is generated: the integer literals (by ``id`` of
        # the representative's ``Const``) that differ between its members, with the code
        # reading the member's value (``families.family_literal_columns``); they are
        # never folded, not even inside a larger expression.
        self.family_literals: dict[int, str] | None = None
        # Whether a value may be a tuple (a library value, or a whole array sent in a
        # message) where an int is expected: the operands of arithmetic and order
        # operators are then checked (``_num``), so using one as a number is a model
        # runtime error, as in PAT, not a crash of the checker.
        self.tuples = _may_hold_tuples(layout.system)
        self._sends_bools: bool | None = None

    # -------------------------------------------------------------- bookkeeping

    def fresh(self, prefix: str = "_v") -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def span_id(self, span: Span | None) -> int:
        if span not in self._span_ids:
            self._span_ids[span] = len(self.spans)
            self.spans.append(span)
        return self._span_ids[span]

    def constant(self, value: Any, prefix: str = "_K") -> str:
        name = self.fresh(prefix)
        self.namespace[name] = value
        return name

    def unsupported(self, span: Span | None, what: str) -> UnsupportedError:
        return UnsupportedError.at(span, f"unsupported in the native engine: {what}")

    # -------------------------------------------------------------- constant folding

    def fold(self, e: Expr) -> Any:
        """Return the value of a constant expression, or ``_NO``."""
        if self.family_literals is not None and id(e) in self.family_literals:
            return _NO
        if isinstance(e, Const):
            return int(e.value) if isinstance(e.value, bool) else e.value
        if isinstance(e, Var) and e.scope == "local" and e.name in self.consts:
            return self.consts[e.name]
        if isinstance(e, Var) and e.scope == "global" and e.name in self.layout.channel_ids:
            if e.name not in self.layout.globals:
                return self.layout.channel_ids[e.name]
            return _NO
        if isinstance(e, Unary):
            v = self.fold(e.operand)
            if v is _NO:
                return _NO
            return {"-": lambda x: -x, "!": lambda x: int(not x), "~": lambda x: ~x}[e.op](v)
        if isinstance(e, Binary):
            # Along the left spine, iteratively: ``x == 0 || x == 1 || ...`` may be
            # thousands of operands long.
            spine = _left_spine(e)
            a = self.fold(spine[-1].left)
            for node in reversed(spine):
                if node.op == "&&" and a is not _NO and not a:
                    a = 0
                    continue
                if node.op == "||" and a is not _NO and a:
                    a = 1
                    continue
                b = self.fold(node.right)
                if a is _NO or b is _NO:
                    a = _NO
                    continue
                try:
                    a = _fold_binary(node.op, a, b)
                except (ZeroDivisionError, ValueError):
                    a = _NO
            return a
        if isinstance(e, Conditional):
            c = self.fold(e.cond)
            if c is _NO:
                return _NO
            return self.fold(e.then if c else e.otherwise)
        return _NO

    # -------------------------------------------------------------- expressions

    def expr(self, e: Expr, ctx: Context) -> str:
        """Return Python code computing the value of ``e``."""
        if self.family_literals is not None:
            read = self.family_literals.get(id(e))
            if read is not None:  # a literal that differs between a family's members
                return read
        v = self.fold(e)
        if v is not _NO:
            return repr(v)
        if isinstance(e, (Var, Index, RemoteVar)):
            return self.read(e, ctx)
        if isinstance(e, Unary):
            x = self.num(e, self.expr(e.operand, ctx))
            if e.op == "-":
                return f"(-{x})"
            if e.op == "!":
                return f"(not {x})"
            if e.op == "~":
                return f"(~{x})"
            raise self.unsupported(e.span, f"operator '{e.op}'")
        if isinstance(e, Binary):
            return self.binary(e, ctx)
        if isinstance(e, Conditional):
            return (
                f"({self.expr(e.then, ctx)} if {self.expr(e.cond, ctx)} "
                f"else {self.expr(e.otherwise, ctx)})"
            )
        if isinstance(e, Builtin):
            return self.builtin(e, ctx)
        if isinstance(e, ChanQuery):
            return self.channel_access(e.channel, self.chan_query(e, ctx), ctx, e.span)
        if isinstance(e, ChanPoll):
            ch = self.chan(e.channel, ctx)
            pattern = self.pattern(e.args, ctx)
            return self.channel_access(
                e.channel, f"_poll({ctx.src}, {ch}, {pattern}, {e.random})", ctx, e.span)
        if isinstance(e, RemoteLabel):
            base = self.remote_base(e.proctype, e.pid, e.span, ctx)
            tpl = self.layout.processes[self.layout.process_index[e.proctype]]
            locs = frozenset(
                loc.id for loc in tpl.process.locations if e.label in loc.labels
            )
            if not locs:
                raise UnsupportedError.at(
                    e.span, f"process '{e.proctype}' has no label '{e.label}'"
                )
            # A process that is not running is at no label (pan reads a zeroed one).
            return f"(_rloc({ctx.src}, {base}) in {self.constant(locs, '_LS')})"
        if isinstance(e, Enabled):
            me = -1 if ctx.pid is None else ctx.pid
            return (f"_enabled({ctx.src}, {self.expr(e.pid, ctx)}, {me}, "
                    f"{self.span_id(e.span)})")
        if isinstance(e, GetPriority):
            return f"_getprio({ctx.src}, {self.expr(e.pid, ctx)})"
        if isinstance(e, Call):
            return self.call(e, ctx)
        if isinstance(e, ElseGuard):
            raise self.unsupported(e.span, "'else' inside an expression")
        raise self.unsupported(getattr(e, "span", None), type(e).__name__)

    def bool_kind(self, e: Expr) -> str | None:
        """Return ``"b"`` when the value of ``e`` is surely a Python bool, ``"m"`` when it
        may be one, None when it never is: comparisons, logic and ``!`` give bools,
        arithmetic ints (``True + 1`` is 2); a value read from the state is never a
        bool, since every store converts one (``stored_value``)."""
        if self.fold(e) is not _NO:
            return None  # folded to an int (or a tuple)
        if isinstance(e, Binary):
            if e.op in _BOOL_OPS:
                return "b"
            return "m" if e.op in ("&", "|", "^") else None  # bool & bool is a bool
        if isinstance(e, Unary):
            return "b" if e.op == "!" else None
        if isinstance(e, Conditional):
            return "m" if self.bool_kind(e.then) or self.bool_kind(e.otherwise) else None
        if isinstance(e, (Var, Index, RemoteVar, Const)):
            return None
        if isinstance(e, Builtin):
            return "m" if e.name == "timeout" else None
        if isinstance(e, Call):
            return _call_bool_kind(e.function)
        return "m"  # a channel query or poll, a remote label...

    def stored_expr(self, e: Expr, ctx: Context) -> str:
        """Return code for the value of ``e`` as it is stored (``stored_value``)."""
        return as_stored(self.expr(e, ctx), self.bool_kind(e))

    def call(self, e: Call, ctx: Context) -> str:
        """Return code calling a library function (semantics/library.py); a failure is
        a model runtime error at the call's span."""
        from bridge.semantics.library import FUNCTIONS

        fn = FUNCTIONS.get(e.function)
        if fn is None:
            raise self.unsupported(e.span, f"library function '{e.function}'")
        args = "".join(f", {self.expr(a, ctx)}" for a in e.args)
        return f"_libcall({self.constant(fn, '_F')}, {self.span_id(e.span)}{args})"

    def binary(self, e: Binary, ctx: Context) -> str:
        """Return code for a binary expression; its left spine is walked iteratively
        and runs of ``&&``/``||`` are written flat (``(a or b or c)``): Python's parser
        refuses more than 200 nested parentheses, and real guards can be that long."""
        spine = _left_spine(e)
        code = self.num(spine[-1], self.expr(spine[-1].left, ctx))
        run_op: str | None = None
        run: list[str] = []
        for node in reversed(spine):
            right = self.num(node, self.expr(node.right, ctx))
            if node.op in _FLAT and node.op == run_op:
                run.append(right)
                continue
            if run:
                code = _flat_code(run_op, [code, *run])
            run_op, run = (node.op, [right]) if node.op in _FLAT else (None, [])
            if run_op is None:
                code = self._binary_code(node, code, right)
        if run:
            code = _flat_code(run_op, [code, *run])
        return code

    def num(self, e: Binary | Unary, code: str) -> str:
        """Return ``code``, checked to be a number (``_num``) when ``e``'s operator
        needs one and the model may hold a tuple there (``self.tuples``)."""
        if not self.tuples or (isinstance(e, Binary) and e.op in _ANY_VALUE_OPS):
            return code
        return f"_num({code}, {self.span_id(e.span)})"

    def _binary_code(self, e: Binary, a: str, b: str) -> str:
        sid = self.span_id(e.span)
        op = e.op
        # A boolean, as in SPIN (``x = y && 5`` stores 1) and C#; Python's own
        # ``and``/``or`` would give an operand (5), so the truth is taken after it.
        if op == "&&":
            return f"(True if ({a} and {b}) else False)"
        if op == "||":
            return f"(True if ({a} or {b}) else False)"
        if op == "xor":
            return f"(bool({a}) != bool({b}))"
        if op == "/":
            return f"_div({a}, {b}, {sid})"
        if op == "%":
            return f"_rem({a}, {b}, {sid})"
        if op == "mod":
            divisor = self.fold(e.right)
            if divisor is not _NO and divisor != 0:
                return f"({a} % {divisor})"  # Python's % is PAT's mod for a constant divisor
            return f"_mod({a}, {b}, {sid})"
        if op in ("<<", ">>"):
            return f"_shift({a}, {b}, {op == '<<'}, {sid})"
        if op in _PY_BINARY:
            return f"({a} {_PY_BINARY[op]} {b})"
        raise self.unsupported(e.span, f"operator '{op}'")

    def builtin(self, e: Builtin, ctx: Context) -> str:
        lay = self.layout
        if e.name == "_pid":
            if ctx.pid is None:
                raise self.unsupported(e.span, "'_pid' outside a process")
            return str(ctx.pid)
        if e.name == "_nr_pr":
            if lay.dynamic:
                return f"_LAYOUTS[{ctx.src}[{lay.layout_slot}]].n"
            return str(len(lay.initial_templates))
        if e.name == "_last":
            assert lay.last_slot is not None
            return f"{ctx.src}[{lay.last_slot}]"
        if e.name == "timeout":
            if ctx.timeout_false:
                return "False"
            if not ctx.timeout:
                raise self.unsupported(e.span, "'timeout' outside a guard")
            return "_timeout"
        if e.name == "np_":
            return f"_np({ctx.src})"
        raise self.unsupported(e.span, f"builtin '{e.name}'")

    # -------------------------------------------------------------- variables

    def location(self, e: Expr, ctx: Context, write: bool = False
                 ) -> tuple[str, Type, str | None]:
        """Return ``(offset code, type, block name)`` of an lvalue or array reference.

        For a state variable the offset is into ``ctx.src``; for a block-local variable
        the third item names the python variable (offset into its list, or "" for a
        scalar). A remote variable read (``write`` False) of an instance that is not
        running gets an offset past the end of the state (``read`` turns it into 0);
        written, it is a model error.
        """
        if isinstance(e, Var):
            if e.scope == "block" or (e.scope != "global" and e.name in ctx.block):
                if e.name not in ctx.block:
                    raise UnsupportedError.at(e.span, f"unknown block variable '{e.name}'")
                py, t = ctx.block[e.name]
                # a block array is a list even of one cell (offset 0), a scalar a name
                return ("0" if isinstance(t, ArrayType) else "", t, py)
            if e.scope == "global":
                slot = self.layout.globals.get(e.name)
                if slot is None:
                    raise UnsupportedError.at(e.span, f"unknown global variable '{e.name}'")
                return (str(slot.offset), slot.type, None)
            if ctx.proc is None or ctx.base is None:
                raise UnsupportedError.at(
                    e.span, f"local variable '{e.name}' used outside its process"
                )
            lslot = ctx.proc.locals.get(e.name)
            if lslot is None:
                for c in ctx.proc.channels:
                    if c.name == e.name:  # Promela ``c = d`` on a local channel: its id slot
                        return (ctx.rel(c.offset - 1), ChanType(), None)
                raise UnsupportedError.at(
                    e.span, f"unknown local variable '{e.name}' of '{ctx.proc.process.name}'"
                )
            return (ctx.rel(lslot.offset), lslot.type, None)
        if isinstance(e, RemoteVar):
            tpl = self.layout.processes[self._template(e.proctype, e.span)]
            lslot = tpl.locals.get(e.name)
            if lslot is None:
                raise UnsupportedError.at(
                    e.span, f"process '{e.proctype}' has no local variable '{e.name}'"
                )
            base = self.remote_base(e.proctype, e.pid, e.span, ctx, write)
            return (f"{base}+{lslot.offset}", lslot.type, None)
        if isinstance(e, Index):
            off, t, py = self.location(e.base, ctx, write)
            if not isinstance(t, ArrayType):
                raise UnsupportedError.at(e.span, "indexing a value that is not an array")
            k = scalar_count(t.element)
            n = t.length
            sid = self.span_id(e.span or getattr(e.index, "span", None))
            iv = self.fold(e.index)
            if iv is not _NO:
                if not 0 <= iv < n:
                    idx = f"_ix({iv}, {n}, {sid})"
                    part = f"{idx}*{k}" if k != 1 else idx
                    return (f"{off}+{part}" if off else part, t.element, py)
                delta = iv * k
                if off and off.lstrip("-").isdigit():
                    return (str(int(off) + delta), t.element, py)
                if not off:
                    return (str(delta), t.element, py)
                return (f"{off}+{delta}" if delta else off, t.element, py)
            code = self.expr(e.index, ctx)
            idx = f"_ix({code}, {n}, {sid})"
            part = f"{idx}*{k}" if k != 1 else idx
            return (f"{off}+{part}" if off else part, t.element, py)
        raise UnsupportedError.at(
            getattr(e, "span", None), f"not a variable: {type(e).__name__}"
        )

    def read(self, e: Expr, ctx: Context) -> str:
        """Return code reading a variable (a slice for a whole array)."""
        if (
            isinstance(e, Var)
            and e.scope != "block"
            and e.name not in ctx.block
            and (
                (e.scope == "global" and e.name not in self.layout.globals)
                or (e.scope == "local" and ctx.proc is not None
                    and e.name not in ctx.proc.locals)
            )
        ):
            # A channel name used as a value: its id.
            return self.channel_id(e, ctx)
        off, t, py = self.location(e, ctx)
        size = scalar_count(t)
        if py is not None:
            # A block array is a Python list (its cells are written one by one); read
            # whole, its value is the tuple of its cells, as an array of the state is:
            # CSP#'s == compares arrays by their cells (a list never equals a tuple),
            # and a tuple can be stored, sent, named and hashed as the state's arrays.
            if size == 1:
                return f"{py}[{off}]" if off else py
            if isinstance(e, Var):
                return f"tuple({py})"
            return f"tuple({py}[{off}:{off}+{size}])"
        if _REMOTE_READ in off:
            # A remote read: 0 (every element 0) when the instance is not running.
            return f"_rd({ctx.src}, {off}, {size})"
        if size == 1:
            return f"{ctx.src}[{off}]"
        return f"tuple({ctx.src}[{off}:{off}+{size}])"

    def _template(self, name: str, span: Span | None) -> int:
        if name not in self.layout.process_index:
            raise UnsupportedError.at(span, f"unknown process '{name}'")
        return self.layout.process_index[name]

    def remote_base(self, proctype: str, pid: Expr | None, span: Span | None, ctx: Context,
                    write: bool = False) -> str:
        """Return code for the base of the instance a remote reference names: pid
        ``pid``, or (None) the running instance of ``proctype`` with the lowest pid
        (pan's ``f_pid``). Not running: past the end of the state when reading."""
        tpl = self._template(proctype, span)
        sid = self.span_id(span)
        pid_code = "-1" if pid is None else self.expr(pid, ctx)
        helper = "_rbase" if write else _REMOTE_READ
        return f"{helper}({ctx.src}, {pid_code}, {tpl}, {sid})"

    def channel_access(self, channel: Expr, value: str, ctx: Context, span: Span | None) -> str:
        """Return ``value`` (code of a channel query or poll), preceded by the check of
        ``xr``/``xs`` claims on the channel in a model that has some (pan's default
        build tests both claims on ``len``, ``empty``, polls...)."""
        if self.layout.claim_slot is None or ctx.pid is None:
            return value
        cid = self.channel_id(channel, ctx)
        return f"_xq({ctx.src}, {cid}, {ctx.pid}, 3, {self.span_id(span)}, {value})"

    # -------------------------------------------------------------- channels

    def channel_id(self, e: Expr, ctx: Context) -> str:
        """Return code for the id of the channel named by ``e``."""
        if isinstance(e, Var) and e.scope == "global" and e.name not in self.layout.globals:
            if e.name not in self.layout.channel_ids:
                raise UnsupportedError.at(e.span, f"unknown channel or variable '{e.name}'")
            return str(self.layout.channel_ids[e.name])
        if isinstance(e, Var) and e.scope == "local" and ctx.proc is not None:
            for c in ctx.proc.channels:
                if c.name == e.name:
                    return f"{ctx.src}[{ctx.rel(c.offset - 1)}]"
            if e.name not in ctx.proc.locals:
                raise UnsupportedError.at(e.span, f"unknown channel or variable '{e.name}'")
        return self.expr(e, ctx)

    def static_channel(self, e: Expr) -> ChannelSlot | None:
        """Return the global channel ``e`` names if it is known at generation time."""
        cid = self.fold(e)
        if cid is _NO:
            return None
        return self.layout.channel_by_id(cid)

    def chan(self, e: Expr, ctx: Context) -> str:
        """Return code for the runtime channel record ``(offset, capacity, fields, id)``."""
        slot = self.static_channel(e)
        if slot is not None:
            return repr((slot.offset, slot.capacity, slot.fields, slot.id))
        return f"_chan({ctx.src}, {self.channel_id(e, ctx)}, {self.span_id(getattr(e, 'span', None))})"

    def chan_query(self, e: ChanQuery, ctx: Context) -> str:
        ch = self.chan(e.channel, ctx)
        return f"_cquery({ctx.src}, {ch}, {e.op!r})"

    def pattern(self, args, ctx: Context) -> str:
        parts = []
        for a in args:
            if isinstance(a, RecvMatch):
                parts.append(self.expr(a.value, ctx))
            else:
                parts.append("None")
        return "(" + "".join(p + ", " for p in parts) + ")"

    # -------------------------------------------------------------- statements

    def store(self, target: Expr, value: str, ctx: Context, out: list[str], ind: str,
              kind: str | None = None) -> None:
        """Emit ``target = value`` with the target type's overflow policy; ``kind``
        (``bool_kind`` of the value) converts a bool into an int (``stored_value``)."""
        off, t, py = self.location(target, ctx, write=True)
        sid = self.span_id(getattr(target, "span", None))
        size = scalar_count(t)
        if size != 1:
            if py is not None:
                dest = f"{py}[{off}:{off}+{size}]" if off else f"{py}[:]"
            else:
                dest = f"{ctx.src}[{off}:{off}+{size}]"
            tmp = self.fresh()
            out.append(f"{ind}{tmp} = list({value})")
            out.append(f"{ind}if len({tmp}) != {size}: _fail('array size mismatch', {sid})")
            out.append(f"{ind}{dest} = {tmp}")
            return
        if not converting(t):
            value = as_stored(value, kind)
        conv = store_code(value, t, self.language, sid)
        if py is not None:
            out.append(f"{ind}{py}[{off}] = {conv}" if off else f"{ind}{py} = {conv}")
        else:
            out.append(f"{ind}{ctx.src}[{off}] = {conv}")

    def stmts(self, body: tuple[Stmt, ...], ctx: Context, out: list[str], ind: str) -> None:
        """Emit the statements of an effect, reading and writing the list ``t``."""
        for st in body:
            self.stmt(st, ctx, out, ind)

    def stmt(self, st: Stmt, ctx: Context, out: list[str], ind: str) -> None:
        if isinstance(st, Assign):
            if isinstance(st.value, Var) and self._is_array(st.value, ctx):
                self.store(st.target, self.read(st.value, ctx), ctx, out, ind)
                return
            self.store(st.target, self.expr(st.value, ctx), ctx, out, ind,
                       self.bool_kind(st.value))
        elif isinstance(st, If):
            kw = "if"
            for cond, body in st.branches:
                out.append(f"{ind}{kw} {self.expr(cond, ctx)}:")
                out.append(f"{ind}    pass")
                self.stmts(body, ctx, out, ind + "    ")
                kw = "elif"
            if st.otherwise:
                out.append(f"{ind}else:")
                out.append(f"{ind}    pass")
                self.stmts(st.otherwise, ctx, out, ind + "    ")
        elif isinstance(st, While):
            guard = self.fresh("_w")
            sid = self.span_id(st.span)
            out.append(f"{ind}{guard} = 0")
            out.append(f"{ind}while {self.expr(st.cond, ctx)}:")
            out.append(f"{ind}    {guard} += 1")
            out.append(
                f"{ind}    if {guard} > 10000000: _fail('loop does not terminate', {sid})"
            )
            self.stmts(st.body, ctx, out, ind + "    ")
        elif isinstance(st, LocalVar):
            py = self.fresh("_bl")
            size = scalar_count(st.type)
            if size == 1 and not isinstance(st.type, ArrayType):
                init = "0" if st.init is None or isinstance(st.init, tuple) else self.expr(st.init, ctx)
                if not converting(st.type) and isinstance(st.init, Expr):
                    init = as_stored(init, self.bool_kind(st.init))
                ctx.block[st.name] = (py, st.type)
                out.append(f"{ind}{py} = {store_code(init, st.type, self.language, 0)}")
            else:
                if isinstance(st.init, tuple):
                    init = "[" + ", ".join(self.stored_expr(x, ctx) for x in st.init) + "]"
                elif st.init is not None:  # a copy of an array (of one cell: its cell)
                    value = self.expr(st.init, ctx)
                    init = f"[{value}]" if size == 1 else f"list({value})"
                else:
                    init = f"[0] * {size}"
                ctx.block[st.name] = (py, st.type)
                out.append(f"{ind}{py} = {init}")
        elif isinstance(st, AssertStmt):
            sid = self.span_id(st.span)
            out.append(f"{ind}if not {self.expr(st.cond, ctx)}: _assert_fail({st.text!r}, {sid})")
        elif isinstance(st, Send):
            ch = self.chan(st.channel, ctx)
            msg = "(" + "".join(self.stored_expr(a, ctx) + ", " for a in st.args) + ")"
            self.claim_check(st.channel, 2, ctx, out, ind, st.span)
            out.append(
                f"{ind}_send_now({ctx.src}, {ch}, {msg}, {st.sorted}, {self.span_id(st.span)})"
            )
        elif isinstance(st, Receive):
            ch = self.chan(st.channel, ctx)
            self.claim_check(st.channel, 1, ctx, out, ind, st.span)
            m = self.fresh("_m")
            out.append(
                f"{ind}{m} = _recv_now({ctx.src}, {ch}, {self.pattern(st.args, ctx)}, "
                f"{st.random}, {st.peek}, {self.span_id(st.span)})"
            )
            self.binds(st.args, m, ctx, out, ind)
        elif isinstance(st, Run):
            tpl = self._template(st.proctype, st.span)
            args = "(" + "".join(self.stored_expr(a, ctx) + ", " for a in st.args) + ")"
            priority = "1" if st.priority is None else self.expr(st.priority, ctx)
            creator = -1 if ctx.pid is None else ctx.pid
            code = (f"_run({ctx.src}, {tpl}, {args}, {self.span_id(st.span)}, {priority}, "
                    f"{creator})")
            if st.target is not None:
                self.store(st.target, code, ctx, out, ind)
            else:
                out.append(f"{ind}{code}")
        elif isinstance(st, SetPriority):
            out.append(f"{ind}_setprio({ctx.src}, {self.expr(st.pid, ctx)}, "
                       f"{self.expr(st.value, ctx)}, {st.checked}, {self.span_id(st.span)})")
        elif isinstance(st, Print):
            pass
        else:
            raise self.unsupported(getattr(st, "span", None), type(st).__name__)

    def claim_check(self, channel: Expr, mask: int, ctx: Context, out: list[str], ind: str,
                    span: Span | None) -> None:
        """Emit the ``xr`` (mask 1) or ``xs`` (mask 2) claim check of a receive or send
        on ``channel`` by the running instance (models with channel assertions)."""
        if self.layout.claim_slot is None or ctx.pid is None:
            return
        cid = self.channel_id(channel, ctx)
        out.append(f"{ind}_xacc({ctx.src}, {cid}, {ctx.pid}, {mask}, {self.span_id(span)})")

    def _is_array(self, e: Expr, ctx: Context) -> bool:
        try:
            _, t, _ = self.location(e, ctx)
        except UnsupportedError:
            return False
        return isinstance(t, ArrayType)

    def binds(self, args, msg: str, ctx: Context, out: list[str], ind: str,
              kind: str | None = None) -> None:
        """Emit the stores of a receive's bound fields of message ``msg``; ``kind``
        ``"m"`` where the message may hold a bool (a rendezvous: the sender's values
        as computed; a buffer holds them converted already)."""
        for k, a in enumerate(args):
            if isinstance(a, RecvBind) and a.target is not None:
                self.store(a.target, f"{msg}[{k}]", ctx, out, ind, kind)

    def sends_bools(self) -> bool:
        """Return whether some send of the system may send a bool into a field that
        does not convert it (then a rendezvous' receiver converts what it binds)."""
        if self._sends_bools is None:
            found = False
            for p in self.system.processes:
                for e in p.edges:
                    for st in iter_statements(([e.comm] if e.comm is not None else []) + list(e.effect)):
                        if not isinstance(st, Send):
                            continue
                        types = field_types(st, self.static_channel(st.channel))
                        found = found or any(
                            self.bool_kind(a) and (j >= len(types) or not converting(types[j]))
                            for j, a in enumerate(st.args))
            self._sends_bools = found
        return self._sends_bools


def _call_bool_kind(function: str) -> str | None:
    """Return ``Generator.bool_kind`` of a library call's result (semantics/library.py):
    a method whose result is ``bool`` gives a Python bool, a library value, a count, an
    index or an element never one (an element is stored as an int: ``library.element``);
    ``Math.Max``/``Min`` of bools may be one."""
    from bridge.ir.library import METHODS

    cls, _, method = function.partition(".")
    if method.endswith("=") or method == "new":
        return None  # the library value after the operation
    if cls == "Math":
        return None if method in ("Pow", "Abs") else "m"
    op = METHODS.get(cls, {}).get(method)
    if op is None:
        return "m"
    if op.result == "bool":
        return "b"
    if op.result in METHODS or op.result == "int":
        return None
    return "m"


_FLAT = {"&&": " and ", "||": " or ", "+": ", "}
# Operators whose Python value is a bool (``_binary_code``).
_BOOL_OPS = frozenset({"==", "!=", "<", "<=", ">", ">=", "&&", "||", "xor"})
# Operators defined on values of every kind (a tuple equals only an equal tuple).
_ANY_VALUE_OPS = frozenset({"==", "!=", "&&", "||", "xor"})


def _may_hold_tuples(system: Any) -> bool:
    """Return whether a CSP# ``system`` may hold a tuple where an int is expected: it
    has a variable of a library class (its values travel as process arguments and in
    messages; a block variable of an effect too), or channels and arrays (a whole
    array sent in a message)."""
    if system.language is not SourceLanguage.CSP:
        return False
    variables = list(system.globals) + [v for p in system.processes for v in p.locals]
    blocks = [st for p in system.processes for e in p.edges
              for st in iter_statements(e.effect) if isinstance(st, LocalVar)]
    if any(not isinstance(v.type, (IntType, BoolType, ArrayType, ChanType))
           for v in [*variables, *blocks]):
        return True
    return bool(system.channels) and any(isinstance(v.type, ArrayType) for v in variables)


def _flat_code(op: str | None, parts: list[str]) -> str:
    """Return the code of a run of one associative operator, flat: ``and``/``or`` are
    flat in Python's syntax tree; a long ``+`` run is a ``sum`` of a tuple (a chain of
    ``+`` is as deep as it is long for Python's compiler)."""
    if op == "+":
        return f"sum(({', '.join(parts)},))" if len(parts) > 2 else f"({parts[0]} + {parts[1]})"
    # A boolean, as in SPIN and C# (see _binary_code): Python's own and/or give an operand.
    return "(True if (" + _FLAT[op or ""].join(parts) + ") else False)"


def _left_spine(e: Binary) -> list[Binary]:
    """Return ``e`` and the binary nodes down its left operands, outermost first."""
    spine = [e]
    while isinstance(spine[-1].left, Binary):
        spine.append(spine[-1].left)
    return spine


def _fold_binary(op: str, a: int, b: int) -> int:
    if op == "/":
        if b == 0:
            raise ZeroDivisionError
        return c_div(a, b)
    if op == "%":
        if b == 0:
            raise ZeroDivisionError
        return c_rem(a, b)
    if op == "mod":
        if b == 0:
            raise ZeroDivisionError
        return a % b
    if op == "&&":
        return int(bool(a) and bool(b))
    if op == "||":
        return int(bool(a) or bool(b))
    if op == "xor":
        return int(bool(a) != bool(b))
    if op in ("<<", ">>") and b < 0:
        raise ValueError
    result = eval(f"a {_PY_BINARY[op]} b", {}, {"a": a, "b": b})  # noqa: S307 - op is whitelisted
    return int(result) if isinstance(result, bool) else result


def assigned_locals(edges, proctype: str | None = None, all_edges=()) -> set[str]:
    """Return the names of process-local variables that some statement may change
    (assignment, receive, ``x = run P()``), through any index; with ``proctype``, also
    the locals of that process written remotely (``P[i]:v = ...``) by ``all_edges``."""
    found = {name for scope, name in _assigned_roots(edges) if scope == ""}
    if proctype is not None:
        found |= remotely_assigned(all_edges).get(proctype, set())
    return found


def remotely_assigned(edges) -> dict[str, set[str]]:
    """Return, per proctype, the locals that ``edges`` write remotely (``P[i]:v = ...``):
    one walk for all templates (a walk per template was quadratic in the processes:
    a minute for LE with 1000 nodes)."""
    out: dict[str, set[str]] = {}
    for scope, name in _assigned_roots(edges):
        if scope:
            out.setdefault(scope, set()).add(name)
    return out


def _assigned_roots(edges) -> set[tuple[str, str]]:
    """Return ``("", name)`` for each local variable and ``(proctype, name)`` for each
    remote variable that a statement of ``edges`` may change."""
    found: set[tuple[str, str]] = set()

    def root(e) -> None:
        while isinstance(e, Index):
            e = e.base
        if isinstance(e, Var) and e.scope == "local":
            found.add(("", e.name))
        if isinstance(e, RemoteVar):
            found.add((e.proctype, e.name))

    def walk(stmts) -> None:
        for st in stmts:
            if isinstance(st, Assign):
                root(st.target)
            elif isinstance(st, Run) and st.target is not None:
                root(st.target)
            elif isinstance(st, Receive):
                for a in st.args:
                    if isinstance(a, RecvBind) and a.target is not None:
                        root(a.target)
            elif isinstance(st, If):
                for _, body in st.branches:
                    walk(body)
                walk(st.otherwise)
            elif isinstance(st, While):
                walk(st.body)

    for e in edges:
        if e.comm is not None:
            walk((e.comm,))
        walk(e.effect)
    return found


def guard_mentions(e: Expr | None, name: str) -> bool:
    """Return True if the expression mentions ``Builtin(name)``."""
    if e is None:
        return False
    return any(  # iterative: guards may be thousands deep
        isinstance(x, Builtin) and x.name == name for x in iter_subexpressions(e)
    )


Options = list[tuple[int, Edge]]


def location_options(edges: Options) -> tuple[Options, Options, Options, frozenset[int]]:
    """Split the edges leaving one location (index, edge) as both engines run them:
    the ordinary options in edge order, the ``else`` options, the ``timeout`` options
    (a guard that mentions ``timeout``, tried last), and the indices of ordinary
    options whose ``timeout`` reads false. At a location with an ``else`` the process
    can always move, so the system is never blocked while it is there and the timeout
    pass never comes: its timeout options are ordinary ones that the ``else`` waits
    for, with ``timeout`` false (pan; m99)."""
    elses = [(k, e) for k, e in edges if isinstance(e.guard, ElseGuard)]
    rest = [(k, e) for k, e in edges if not isinstance(e.guard, ElseGuard)]
    timeouts = [(k, e) for k, e in rest if guard_mentions(e.guard, "timeout")]
    if elses and timeouts:
        return rest, elses, [], frozenset(k for k, _ in timeouts)
    return [(k, e) for k, e in rest if not guard_mentions(e.guard, "timeout")], elses, \
        timeouts, frozenset()


def event_is_constant(gen: Generator, event: Event | None) -> bool:
    return event is None or all(gen.fold(c) is not _NO for c in event.components)


def event_code(gen: Generator, event: Event, ctx: Context) -> str:
    """Return code (or a quoted constant) for the rendered event name ``base.c1.c2``."""
    parts = [repr(event.base)]
    for c in event.components:
        v = gen.fold(c)
        if v is not _NO:
            parts.append(repr("." + str(v)))
        else:
            parts.append(f"'.' + str({gen.expr(c, ctx)})")
    return " + ".join(parts)


def event_constant(gen: Generator, event: Event) -> str:
    """Return the rendered name of an event whose components are constant."""
    return event.base + "".join("." + str(gen.fold(c)) for c in event.components)


__all__ = [
    "Context",
    "Generator",
    "c_div",
    "c_rem",
    "event_code",
    "event_constant",
    "event_is_constant",
    "guard_mentions",
    "converting",
    "field_types",
    "store_code",
    "stored_value",
    "Edge",
]
