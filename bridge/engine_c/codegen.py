"""Generate one C translation unit per model from the IR (issue 12, DESIGN.md section 7).

The C twin of ``semantics/codegen.py`` and of the successor code that
``semantics/statespace.py`` generates in Python, with the architecture of SPIN's pan
and LTSmin's SpinS: the packed state vector of ``layout.py``, one C function per
control location of every process template (per instance in a static system, where
barriers make the code of an instance depend on its alphabet), the successor function
of the whole system (local steps, Promela process death, CSP# barriers as precomputed
synchronisation vectors, rendezvous, deferred ``else`` and ``timeout`` options, atomic
filters), the property expressions and propositions, and the search core
(``templates/c/*.c``) in the same unit so the compiler can inline the next-state code
into the search.

Every choice mirrors the Python engine, in the same order, so both engines expand the
same successors in the same order: state and transition counts, verdicts and traces
agree. A construct this generator does not translate raises ``CUnsupported`` with the
reason; ``supports`` turns that into a refusal, and the Python engine checks the model.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import jinja2

from bridge._resources import template_dir
from bridge.diagnostics import Span
from bridge.engine_c.layout import (
    I32,
    KINDS,
    Kind,
    PackedLayout,
    Segment,
    kind_for_range,
    kind_of_type,
    pack_layout,
)
from bridge.ir import (
    ArrayType,
    AssertStmt,
    Assign,
    Binary,
    BoolType,
    Builtin,
    Call,
    Channel,
    ChanPoll,
    ChanQuery,
    Conditional,
    Edge,
    ElseGuard,
    Enabled,
    Event,
    Expr,
    GetPriority,
    If,
    Index,
    Instance,
    IntType,
    LocalVar,
    Location,
    Overflow,
    Print,
    Process,
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
    TransitionSystem,
    Type,
    Unary,
    Var,
    Variable,
    While,
    scalar_count,
)
from bridge.ir.model import InstanceRef, Interleave, Parallel
from bridge.semantics.codegen import (
    Generator,
    event_constant,
    event_is_constant,
    guard_mentions,
)
from bridge.semantics.state import ChannelSlot, ProcessLayout
from bridge.semantics.statespace import MAX_SYNC_VECTORS, CompiledStateSpace, make_combiner

_NO = object()
MAX_VECTOR_BYTES = 65535  # the store keeps a 2-byte length per dynamic vector
# Processes started at run time (Promela run): the instance count is one byte, as in
# SPIN. A static system (every CSP# model) has as many instances as it declares: its
# process sets are ceil(instances / 64) words (BR_PWORDS).
MAX_PROCESSES = 255


class CUnsupported(Exception):
    """The model uses something the C engine does not translate (the message says what)."""


# The fields of IR nodes this generator knows. A field added to the IR later (by a new
# construct) with a non-default value makes the model unsupported instead of being
# silently ignored, so the C engine never answers differently from the Python one.
_KNOWN_FIELDS: dict[type, frozenset[str]] = {
    TransitionSystem: frozenset({
        "name", "language", "globals", "channels", "processes", "instances",
        "composition", "propositions", "properties", "enums", "source_files",
        "max_instances", "notes", "never", "priority_scheduling", "end_condition"}),
    # ``pending``: in a system whose lazy unfolding is complete (``unfolding`` None, a
    # field this generator does not know) they are unreachable locations without edges.
    Process: frozenset({"name", "parameters", "locals", "locations", "edges", "initial",
                        "channels", "span", "provided", "channel_assertions", "pending"}),
    Location: frozenset({"id", "labels", "atomic", "end", "terminal", "accept", "progress",
                         "span"}),
    Edge: frozenset({"source", "target", "guard", "comm", "effect", "event", "label",
                     "fairness", "text", "span", "data_operation", "atomic"}),
    Variable: frozenset({"name", "type", "init", "hidden", "span"}),
    # ``arity_tag`` (CSP#: messages of several arities, stored as (arity, values,
    # padding)): the tag is an ordinary first field of every send and receive pattern;
    # only the Python engine's event names and valuations read it
    Channel: frozenset({"name", "capacity", "fields", "span", "arity_tag"}),
    Instance: frozenset({"process", "arguments", "name", "span", "priority"}),
    Event: frozenset({"base", "components", "span"}),
    Parallel: frozenset({"children", "alphabets", "hidden"}),
    Interleave: frozenset({"children"}),
    InstanceRef: frozenset({"instance"}),
}


def _check_fields(node: Any) -> None:
    known = _KNOWN_FIELDS.get(type(node))
    if known is None:
        return
    for f in dataclasses.fields(node):
        if f.name in known:
            continue
        value = getattr(node, f.name)
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else _NO)
        if value != default:
            raise CUnsupported(f"{type(node).__name__}.{f.name} (a construct the C engine "
                               "does not translate yet)")


def check_known_fields(system: TransitionSystem) -> None:
    """Raise ``CUnsupported`` when the IR carries a field this generator ignores."""
    nodes: list[Any] = [system, *system.globals, *system.channels, *system.instances]
    for p in system.processes:
        nodes += [p, *p.locals, *p.channels, *p.locations, *p.edges]
        nodes += [e.event for e in p.edges if e.event is not None]
    stack = [system.composition] if system.composition is not None else []
    while stack:  # the composition tree (hiding above '||' is not translated yet)
        node = stack.pop()
        nodes.append(node)
        if isinstance(node, Parallel | Interleave):
            stack.extend(node.children)
    for node in nodes:
        _check_fields(node)


@dataclass
class _Ctx:
    """Where generated code runs: ``src`` is the C vector read (``s`` in guards, ``t``
    in effects); ``base`` the C expression of the segment's first byte; ``pid`` the C
    expression of the instance id; ``proc``/``seg`` the template's layouts (None in a
    state predicate); ``block``: block-local variables (name -> C name, type)."""

    src: str
    base: str | None
    pid: str | None
    proc: ProcessLayout | None
    seg: Segment | None
    block: dict[str, tuple[str, Type]] = field(default_factory=dict)
    decls: list[str] | None = None
    timeout: bool = False

    def with_src(self, src: str) -> _Ctx:
        return _Ctx(src, self.base, self.pid, self.proc, self.seg, self.block, self.decls,
                    self.timeout)


@dataclass
class _Place:
    """An lvalue or array: in the state (``offset`` C expression, element ``kind``) or a
    block variable (``block`` C name, ``offset`` index expression or "")."""

    offset: str
    type: Type
    kind: Kind | None
    block: str | None = None
    exact: bool = True
    remote: bool = False  # read through a remote reference: 0 when the instance is gone


def _kind_const(k: Kind) -> str:
    return f"K_{k.name.upper()}"


class CGenerator:
    """Builds the C source of one system (see the module docstring)."""

    def __init__(self, space: CompiledStateSpace, expressions: list[Expr]) -> None:
        self.space = space
        self.system = space.system
        self.layout = space.layout
        self.language = self.system.language
        self.csp = self.language is SourceLanguage.CSP
        self.promela = self.language is SourceLanguage.PROMELA
        check_known_fields(self.system)  # before the layout: a new construct may add slots
        self.packed: PackedLayout = pack_layout(self.layout)
        self.pygen = Generator(self.layout)  # constant folding, exactly as in Python
        self._counter = 0
        self.functions: list[str] = []  # C function definitions
        self.helpers: set[str] = set()  # runtime helpers added on first use (lib_pow)
        self.prototypes: list[str] = []
        self.channel_tables: list[str] = []
        self.expressions = expressions
        self.expression_ok: list[bool] = []
        if self.layout.dynamic and self.system.max_instances > MAX_PROCESSES:
            raise CUnsupported(f"more than {MAX_PROCESSES} processes")
        max_seg = max((s.size for s in self.packed.segments), default=0)
        if self.layout.dynamic:
            self.max_vector = self.packed.static_bytes + min(
                self.system.max_instances, MAX_PROCESSES) * max_seg
        else:
            self.max_vector = self.packed.static_bytes + sum(
                self.packed.segments[t].size for t in self.layout.initial_templates)
        if self.max_vector > MAX_VECTOR_BYTES:
            raise CUnsupported(f"a state vector of up to {self.max_vector} bytes "
                               f"(the C store takes at most {MAX_VECTOR_BYTES})")
        self.max_fields = max([len(c.fields) for c in self.system.channels]
                              + [len(c.fields) for p in self.system.processes
                                 for c in p.channels] + [1] + _message_lengths(self.system))
        self.static_bases: list[int] = []
        if not self.layout.dynamic:
            b = self.packed.static_bytes
            for t in self.layout.initial_templates:
                self.static_bases.append(b)
                b += self.packed.segments[t].size
        self.event_names: dict[str, int] = {}
        self.vector_tables: tuple[list[int], list[int]] = ([0], [])
        self.edge_ids: list[int] = []
        n = 0
        for p in self.system.processes:
            self.edge_ids.append(n)
            n += len(p.edges)

    # ------------------------------------------------------------------ helpers

    def fresh(self, prefix: str = "_v") -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def fold(self, e: Expr) -> Any:
        v = self.pygen.fold(e)
        return _NO if v is self._pyno() else v

    @staticmethod
    def _pyno() -> Any:
        from bridge.semantics import codegen as _pycodegen

        return _pycodegen._NO

    def unsupported(self, span: Span | None, what: str) -> CUnsupported:
        where = f" at {span}" if span is not None else ""
        return CUnsupported(f"{what}{where}")

    def static_kind(self, slot: int) -> Kind:
        return self.packed.static_kinds[slot]

    def static_off(self, slot: int) -> int:
        return self.packed.static_offsets[slot]

    def read_static(self, src: str, slot: int) -> str:
        return f"rd_{self.static_kind(slot).name}({src}, {self.static_off(slot)})"

    def loc_read(self, src: str, base: str, tpl: int) -> str:
        seg = self.packed.segments[tpl]
        return f"rd_{seg.kinds[0].name}({src}, {base} + {seg.offsets[0]})"

    # ------------------------------------------------------------------ expressions

    def expr(self, e: Expr, ctx: _Ctx) -> str:
        """Return a C expression (type V) computing ``e`` as the Python engine does."""
        v = self.fold(e)
        if v is not _NO:
            return _lit(v)
        if isinstance(e, Var | Index | RemoteVar):
            return self.read(e, ctx)
        if isinstance(e, Unary):
            if e.op == "!":
                return f"((V)!{self.cond(e.operand, ctx)})"
            x = self.expr(e.operand, ctx)
            if e.op == "-":
                return f"ck_neg(c, {x})"
            if e.op == "~":
                return f"(~({x}))"
            raise self.unsupported(e.span, f"operator '{e.op}'")
        if isinstance(e, Binary):
            return self.binary(e, ctx)
        if isinstance(e, Conditional):
            return (f"(({self.cond(e.cond, ctx)}) ? ({self.expr(e.then, ctx)}) : "
                    f"({self.expr(e.otherwise, ctx)}))")
        if isinstance(e, Builtin):
            return self.builtin(e, ctx)
        if isinstance(e, ChanQuery):
            op = {"len": 0, "empty": 1, "nempty": 2, "full": 3, "nfull": 4}.get(e.op)
            if op is None:
                raise self.unsupported(e.span, f"channel query '{e.op}'")
            ch = self.fresh("_q")
            return self.channel_access(
                e.channel, f"chan_t {ch} = {self.chan(e.channel, ctx)};",
                f"ch_query({ctx.src}, &{ch}, {op})", ctx)
        if isinstance(e, ChanPoll):
            ch = self.fresh("_q")
            pat, has, decl = self.pattern(e.args, ctx)
            n = len(e.args)
            return self.channel_access(
                e.channel, f"chan_t {ch} = {self.chan(e.channel, ctx)}; {decl} "
                f"if ({ch}.cap > 0 && {ch}.nf < {n}) br_fallback(c);",
                f"(V)ch_poll({ctx.src}, &{ch}, {pat}, {has}, {n}, {int(e.random)})", ctx)
        if isinstance(e, RemoteLabel):
            tpl = self._template(e.proctype, e.span)
            proc = self.layout.processes[tpl]
            locs = sorted(loc.id for loc in proc.process.locations if e.label in loc.labels)
            if not locs:
                raise self.unsupported(e.span, f"process '{e.proctype}' has no label '{e.label}'")
            base = self.remote_base(e.proctype, e.pid, ctx)
            rb, lv = self.fresh("_rb"), self.fresh("_lv")
            test = " || ".join(f"{lv} == {x}" for x in locs)
            # an instance that does not run is at no label (pan reads a zeroed process)
            return (f"({{ uint32_t {rb} = {base}; V {lv} = {rb} == BR_NOBASE ? -1 : "
                    f"{self.loc_read(ctx.src, rb, tpl)}; (V)({test}); }})")
        if isinstance(e, Enabled):
            if not self.layout.dynamic:
                raise self.unsupported(e.span, "enabled() in a system without run-time processes")
            me = -1 if ctx.pid is None else ctx.pid
            return f"model_enabled(c, {ctx.src}, {_slen(ctx)}, {self.expr(e.pid, ctx)}, {me})"
        if isinstance(e, GetPriority):
            if not self.system.priority_scheduling or not self.layout.dynamic:
                raise self.unsupported(e.span, "get_priority() without priority scheduling")
            return f"model_getprio({ctx.src}, {self.expr(e.pid, ctx)})"
        if isinstance(e, Call):
            return self.call(e, ctx)
        if isinstance(e, ElseGuard):
            raise self.unsupported(e.span, "'else' inside an expression")
        raise self.unsupported(getattr(e, "span", None), type(e).__name__)

    def call(self, e: Call, ctx: _Ctx) -> str:
        """Return a call of a function of PAT's math library (``semantics/library.py``:
        ``Pow`` is C#'s ``(int)Math.Pow``, a result outside 32 bits or ``Pow(0, b < 0)``
        a model runtime error). The library classes (``Set``, ``Queue``, ...) keep tuples
        in a slot, which the packed state cannot hold: refused by name."""
        args = [self.expr(a, ctx) for a in e.args]
        if e.function == "Math.Abs" and len(args) == 1:
            a = self.fresh("_a")
            return f"({{ V {a} = {args[0]}; {a} < 0 ? ck_neg(c, {a}) : {a}; }})"
        if e.function in ("Math.Max", "Math.Min") and len(args) == 2:
            a, b = self.fresh("_a"), self.fresh("_b")
            pick = ">=" if e.function == "Math.Max" else "<="
            return f"({{ V {a} = {args[0]}; V {b} = {args[1]}; {a} {pick} {b} ? {a} : {b}; }})"
        if e.function == "Math.Pow" and len(args) == 2:
            if "lib_pow" not in self.helpers:
                self.helpers.add("lib_pow")
                self.prototypes.append("static V lib_pow(ctx_t *c, V a, V b);")
                self.functions.append(_LIB_POW)
            return f"lib_pow(c, {args[0]}, {args[1]})"
        raise self.unsupported(e.span, f"Call of the library function '{e.function}' (PAT's "
                                       "library classes keep values the packed state cannot hold)")

    def cond(self, e: Expr, ctx: _Ctx) -> str:
        """Return a C expression whose truth is the truth of ``e`` in Python: where only
        truth matters (guards, conditions, asserts) ``&&``/``||``/``!`` are C's own,
        with the same short-circuit, and no operand value has to be kept."""
        if self.fold(e) is _NO:
            if isinstance(e, Binary) and e.op in ("&&", "||"):
                return f"({self.cond(e.left, ctx)} {e.op} {self.cond(e.right, ctx)})"
            if isinstance(e, Unary) and e.op == "!":
                return f"(!{self.cond(e.operand, ctx)})"
        return f"({self.expr(e, ctx)})"

    def binary(self, e: Binary, ctx: _Ctx) -> str:
        op = e.op
        if op in ("&&", "||"):
            # a boolean, 0 or 1, with C's short-circuit (as the Python engine)
            return f"((V)({self.cond(e.left, ctx)} {op} {self.cond(e.right, ctx)}))"
        a = self.expr(e.left, ctx)
        b = self.expr(e.right, ctx)
        if op == "xor":
            return f"((V)((({a}) != 0) != (({b}) != 0)))"
        if op == "+" and self.fold(e.left) == 0:
            return b  # 0 + x is x exactly: keep the code small (CSP# u*C + i indices)
        if op in ("+", "-") and self.fold(e.right) == 0:
            return a
        helpers = {"+": "ck_add", "-": "ck_sub", "*": "ck_mul", "/": "op_div", "%": "op_rem",
                   "mod": "op_mod", "<<": "op_shl", ">>": "op_shr"}
        if op in helpers:
            return f"{helpers[op]}(c, {a}, {b})"
        if op in ("&", "|", "^"):
            return f"(({a}) {op} ({b}))"
        if op in ("==", "!=", "<", "<=", ">", ">="):
            return f"((V)(({a}) {op} ({b})))"
        raise self.unsupported(e.span, f"operator '{op}'")

    def builtin(self, e: Builtin, ctx: _Ctx) -> str:
        lay = self.layout
        if e.name == "_pid":
            if ctx.pid is None:
                raise self.unsupported(e.span, "'_pid' outside a process")
            return f"((V)({ctx.pid}))"
        if e.name == "_nr_pr":
            if lay.dynamic:
                return self.read_static(ctx.src, lay.layout_slot)
            return str(len(lay.initial_templates))
        if e.name == "_last":
            assert lay.last_slot is not None
            return self.read_static(ctx.src, lay.last_slot)
        if e.name == "timeout":
            if not ctx.timeout:
                raise self.unsupported(e.span, "'timeout' outside a guard")
            return "((V)tmo)"
        if e.name == "np_":
            return f"model_np({ctx.src})"
        raise self.unsupported(e.span, f"builtin '{e.name}'")

    def _template(self, name: str, span: Span | None) -> int:
        if name not in self.layout.process_index:
            raise self.unsupported(span, f"unknown process '{name}'")
        return self.layout.process_index[name]

    def remote_base(self, proctype: str, pid: Expr | None, ctx: _Ctx, write: bool = False) -> str:
        """Return C code for the base of the instance a remote reference names: pid
        ``pid``, or (None) the running instance of ``proctype`` with the lowest pid
        (pan's ``f_pid``). Read, an instance that does not run gives ``BR_NOBASE``;
        written, it is a model error (``semantics.codegen.remote_base``)."""
        tpl = self._template(proctype, None)
        code = "-1" if pid is None else self.expr(pid, ctx)
        helper = "remote_base" if write else "remote_read_base"
        return f"{helper}(c, {ctx.src}, {code}, {tpl})"

    def channel_access(self, channel: Expr, decl: str, value: str, ctx: _Ctx) -> str:
        """Return a statement expression: ``decl``, then ``value`` (a channel query or
        poll), followed by the ``xr``/``xs`` check of the running instance in a model
        with channel assertions (``semantics.codegen.channel_access``)."""
        if self.layout.claim_slot is None or ctx.pid is None:
            return f"({{ {decl} {value}; }})"
        cid, val = self.fresh("_xc"), self.fresh("_xv")
        return (f"({{ V {cid} = {self.channel_id(channel, ctx)}; {decl} V {val} = {value}; "
                f"xacc(c, {ctx.src}, {cid}, {ctx.pid}, 3); {val}; }})")

    # ------------------------------------------------------------------ variables

    def place(self, e: Expr, ctx: _Ctx, write: bool = False) -> _Place:
        """Return where an lvalue or array lives (see ``semantics.codegen.location``);
        ``write``: the place is stored into (a remote instance must run)."""
        if isinstance(e, Var):
            if e.scope == "block" or (e.scope != "global" and e.name in ctx.block):
                if e.name not in ctx.block:
                    raise self.unsupported(e.span, f"unknown block variable '{e.name}'")
                cname, t = ctx.block[e.name]
                return _Place("", t, None, cname)
            if e.scope == "global":
                slot = self.layout.globals.get(e.name)
                if slot is None:
                    raise self.unsupported(e.span, f"unknown global variable '{e.name}'")
                k, exact = kind_of_type(slot.type)
                return _Place(str(self.static_off(slot.offset)), slot.type,
                              self.static_kind(slot.offset), exact=exact)
            if ctx.proc is None or ctx.base is None or ctx.seg is None:
                raise self.unsupported(e.span, f"local variable '{e.name}' used outside its process")
            lslot = ctx.proc.locals.get(e.name)
            if lslot is None:
                raise self.unsupported(e.span, f"unknown local variable '{e.name}'")
            _, exact = kind_of_type(lslot.type)
            return _Place(f"{ctx.base} + {ctx.seg.offsets[lslot.offset]}", lslot.type,
                          ctx.seg.kinds[lslot.offset], exact=exact)
        if isinstance(e, RemoteVar):
            tpl = self._template(e.proctype, e.span)
            proc = self.layout.processes[tpl]
            lslot = proc.locals.get(e.name)
            if lslot is None:
                raise self.unsupported(e.span, f"process '{e.proctype}' has no local variable '{e.name}'")
            seg = self.packed.segments[tpl]
            base = self.remote_base(e.proctype, e.pid, ctx, write)
            _, exact = kind_of_type(lslot.type)
            return _Place(f"{base} + {seg.offsets[lslot.offset]}", lslot.type,
                          seg.kinds[lslot.offset], exact=exact, remote=not write)
        if isinstance(e, Index):
            p = self.place(e.base, ctx, write)
            if not isinstance(p.type, ArrayType):
                raise self.unsupported(e.span, "indexing a value that is not an array")
            count = scalar_count(p.type.element)
            n = p.type.length
            width = count * (p.kind.width if p.kind is not None else 1)
            iv = self.fold(e.index)
            if iv is not _NO and 0 <= iv < n:
                idx = str(iv)
            else:
                code = _lit(iv) if iv is not _NO else self.expr(e.index, ctx)
                idx = f"ix(c, {code}, {n})"
            part = f"({idx}) * {width}" if width != 1 else f"({idx})"
            offset = f"{p.offset} + {part}" if p.offset else part
            return _Place(offset, p.type.element, p.kind, p.block, p.exact, p.remote)
        raise self.unsupported(getattr(e, "span", None), f"not a variable: {type(e).__name__}")

    def is_channel_name(self, e: Expr, ctx: _Ctx) -> bool:
        if not isinstance(e, Var) or e.scope == "block" or e.name in ctx.block:
            return False
        if e.scope == "global":
            return e.name not in self.layout.globals
        return ctx.proc is not None and e.name not in ctx.proc.locals

    def read(self, e: Expr, ctx: _Ctx) -> str:
        """Return C code reading a scalar variable."""
        if self.is_channel_name(e, ctx):
            return self.channel_id(e, ctx)
        p = self.place(e, ctx)
        if scalar_count(p.type) != 1:
            raise self.unsupported(getattr(e, "span", None), "a whole array used as a value")
        if p.block is not None:
            return f"{p.block}[{p.offset}]" if p.offset else p.block
        assert p.kind is not None
        if p.remote:
            return f"rrd_k({_kind_const(p.kind)}, {ctx.src}, {p.offset})"
        return f"rd_{p.kind.name}({ctx.src}, {p.offset})"

    # ------------------------------------------------------------------ channels

    def channel_id(self, e: Expr, ctx: _Ctx) -> str:
        if isinstance(e, Var) and e.scope == "global" and e.name not in self.layout.globals:
            if e.name not in self.layout.channel_ids:
                raise self.unsupported(e.span, f"unknown channel or variable '{e.name}'")
            return str(self.layout.channel_ids[e.name])
        if isinstance(e, Var) and e.scope == "local" and ctx.proc is not None:
            for _j, ch in enumerate(ctx.proc.channels):
                if ch.name == e.name:
                    assert ctx.seg is not None
                    idx = ch.offset - 1
                    return f"rd_{ctx.seg.kinds[idx].name}({ctx.src}, {ctx.base} + {ctx.seg.offsets[idx]})"
            if e.name not in ctx.proc.locals:
                raise self.unsupported(e.span, f"unknown channel or variable '{e.name}'")
        return self.expr(e, ctx)

    def static_channel(self, e: Expr) -> ChannelSlot | None:
        """Return the global channel ``e`` names if known at generation time (the Python
        generator's own answer, so both engines resolve channels alike)."""
        return self.pygen.static_channel(e)

    def chan(self, e: Expr, ctx: _Ctx) -> str:
        """Return a C expression of type chan_t for the channel ``e`` names."""
        slot = self.static_channel(e)
        if slot is not None:
            return f"CH_G{slot.id}"
        return f"chan_lookup(c, {ctx.src}, {self.channel_id(e, ctx)})"

    def pattern(self, args, ctx: _Ctx) -> tuple[str, str, str]:
        """Return (values array, has array, declarations) of a receive pattern."""
        vals, has = self.fresh("_pv"), self.fresh("_ph")
        n = max(1, len(args))
        items, flags = [], []
        for a in args:
            if isinstance(a, RecvMatch):
                items.append(self.expr(a.value, ctx))
                flags.append("1")
            else:
                items.append("0")
                flags.append("0")
        decl = (f"V {vals}[{n}] = {{{', '.join(items) or '0'}}}; "
                f"uint8_t {has}[{n}] = {{{', '.join(flags) or '0'}}};")
        return vals, has, decl

    # ------------------------------------------------------------------ stores

    def convert(self, value: str, t: Type, literal: Any = _NO) -> tuple[str, bool]:
        """Return (C code of ``value`` converted for a variable of type ``t`` as
        ``semantics.codegen.store_code`` does, whether the result is within the type's
        range by construction)."""
        if literal is not _NO:
            v = int(literal)
            if isinstance(t, IntType):
                if t.overflow is Overflow.WRAP and t.lo is not None and t.hi is not None:
                    return _lit((v - t.lo) % (t.hi - t.lo + 1) + t.lo), True
                if t.overflow is not Overflow.ERROR or (
                        (t.lo is None or v >= t.lo) and (t.hi is None or v <= t.hi)):
                    return _lit(v), False
            elif isinstance(t, BoolType):
                return _lit(v & 1 if self.language is SourceLanguage.PROMELA else int(bool(v))), True
            else:
                return _lit(v), False
        if isinstance(t, IntType):
            if t.overflow is Overflow.WRAP and t.lo is not None and t.hi is not None:
                width = t.hi - t.lo + 1
                if width & (width - 1) == 0:
                    if t.lo == 0:
                        return f"(({value}) & {_lit(width - 1)})", True
                    return f"((ck_sub(c, {value}, {_lit(t.lo)}) & {_lit(width - 1)}) + {_lit(t.lo)})", True
                return f"wrap(c, {value}, {_lit(t.lo)}, {_lit(width)})", True
            if t.overflow is Overflow.ERROR:
                lo = (0, "0") if t.lo is None else (1, _lit(t.lo))
                hi = (0, "0") if t.hi is None else (1, _lit(t.hi))
                exact = t.lo is not None and t.hi is not None
                return f"rng(c, {value}, {lo[0]}, {lo[1]}, {hi[0]}, {hi[1]})", exact
            return f"({value})", False
        if isinstance(t, BoolType):
            if self.language is SourceLanguage.PROMELA:
                return f"(({value}) & 1)", True
            return f"((V)(({value}) != 0))", True
        return f"({value})", False

    def write(self, p: _Place, value: str, exact: bool, ctx: _Ctx) -> str:
        """Return a C statement storing an already converted scalar."""
        if p.block is not None:
            return f"{p.block}[{p.offset}] = {value};" if p.offset else f"{p.block} = {value};"
        assert p.kind is not None
        if exact and p.exact:
            return f"wr_{p.kind.name}({ctx.src}, {p.offset}, {value});"
        return f"wr_ck(c, {_kind_const(p.kind)}, {ctx.src}, {p.offset}, {value});"

    def store(self, target: Expr, value: str, ctx: _Ctx, out: list[str], ind: str,
              literal: Any = _NO) -> None:
        """Emit ``target = value`` with the target type's overflow policy."""
        p = self.place(target, ctx, write=True)
        if scalar_count(p.type) != 1:
            raise self.unsupported(getattr(target, "span", None), "storing into a whole array")
        conv, exact = self.convert(value, p.type, literal)
        out.append(ind + self.write(p, conv, exact, ctx))

    def copy_array(self, target: Expr, source: Expr, ctx: _Ctx, out: list[str], ind: str) -> None:
        """Emit an array assignment: a raw copy, slot by slot (Python: ``dest = list(src)``,
        an error when the sizes differ)."""
        dst = self.place(target, ctx, write=True)
        src = self.place(source, ctx)
        n_dst, n_src = scalar_count(dst.type), scalar_count(src.type)
        if n_dst != n_src:
            out.append(f"{ind}br_fail(c);")
            return
        if n_src > MAX_LOCAL_ARRAY:
            raise self.unsupported(getattr(target, "span", None), f"copying an array of {n_src} cells")
        tmp = self.fresh("_ac")
        out.append(f"{ind}{{ V {tmp}[{n_src}];")
        for j in range(n_src):
            out.append(f"{ind}  {tmp}[{j}] = {self._element(src, j, ctx)};")
        for j in range(n_dst):
            out.append(f"{ind}  {self._element_store(dst, j, f'{tmp}[{j}]', ctx)}")
        out.append(f"{ind}}}")

    def _element(self, p: _Place, j: int, ctx: _Ctx) -> str:
        if p.block is not None:
            return f"{p.block}[{p.offset} + {j}]" if p.offset else f"{p.block}[{j}]"
        assert p.kind is not None
        if p.remote:
            return f"rrd_k({_kind_const(p.kind)}, {ctx.src}, {p.offset} + {j * p.kind.width})"
        return f"rd_{p.kind.name}({ctx.src}, {p.offset} + {j * p.kind.width})"

    def _element_store(self, p: _Place, j: int, value: str, ctx: _Ctx) -> str:
        if p.block is not None:
            return (f"{p.block}[{p.offset} + {j}] = {value};" if p.offset
                    else f"{p.block}[{j}] = {value};")
        assert p.kind is not None
        return f"wr_ck(c, {_kind_const(p.kind)}, {ctx.src}, {p.offset} + {j * p.kind.width}, {value});"

    def _is_array_value(self, e: Expr, ctx: _Ctx) -> bool:
        if not isinstance(e, Var | Index | RemoteVar) or self.is_channel_name(e, ctx):
            return False
        try:
            return isinstance(self.place(e, ctx).type, ArrayType)
        except CUnsupported:
            return False

    # ------------------------------------------------------------------ statements

    def stmts(self, body: tuple[Stmt, ...], ctx: _Ctx, out: list[str], ind: str) -> None:
        for st in body:
            self.stmt(st, ctx, out, ind)

    def stmt(self, st: Stmt, ctx: _Ctx, out: list[str], ind: str) -> None:
        if isinstance(st, Assign):
            if self._is_array_value(st.value, ctx):
                self.copy_array(st.target, st.value, ctx, out, ind)
                return
            lit = self.fold(st.value)
            self.store(st.target, self.expr(st.value, ctx), ctx, out, ind, lit)
        elif isinstance(st, If):
            kw = "if"
            for cond, body in st.branches:
                out.append(f"{ind}{kw} ({self.cond(cond, ctx)}) {{")
                self.stmts(body, ctx, out, ind + "  ")
                out.append(f"{ind}}}")
                kw = "else if"
            if st.otherwise:
                out.append(f"{ind}else {{")
                self.stmts(st.otherwise, ctx, out, ind + "  ")
                out.append(f"{ind}}}")
        elif isinstance(st, While):
            guard = self.fresh("_w")
            out.append(f"{ind}{{ long {guard} = 0;")
            out.append(f"{ind}while (!c->err && !c->fallback && ({self.cond(st.cond, ctx)})) {{")
            out.append(f"{ind}  if (++{guard} > 10000000) {{ br_fail(c); break; }}")
            self.stmts(st.body, ctx, out, ind + "  ")
            out.append(f"{ind}}} }}")
        elif isinstance(st, LocalVar):
            cname = self.fresh("_bl")
            size = scalar_count(st.type)
            if size > MAX_LOCAL_ARRAY:
                raise self.unsupported(st.span, f"a block array of {size} cells")
            assert ctx.decls is not None
            if size == 1:
                if st.init is None or isinstance(st.init, tuple):
                    init, lit = "0", 0
                else:
                    init, lit = self.expr(st.init, ctx), self.fold(st.init)
                ctx.decls.append(f"V {cname} = 0;")
                ctx.block[st.name] = (cname, st.type)
                conv, _ = self.convert(init, st.type, lit)
                out.append(f"{ind}{cname} = {conv};")
            else:
                ctx.decls.append(f"V {cname}[{size}];")
                if isinstance(st.init, tuple):
                    values = [self.expr(x, ctx) for x in st.init]
                    if len(values) != size:
                        raise self.unsupported(st.span, "a block array initialised with "
                                                        f"{len(values)} of {size} values")
                    for j, x in enumerate(values):
                        out.append(f"{ind}{cname}[{j}] = {x};")
                elif st.init is not None:
                    raise self.unsupported(st.span, "a block array initialised from an expression")
                else:
                    out.append(f"{ind}memset({cname}, 0, sizeof {cname});")
                ctx.block[st.name] = (cname, st.type)
        elif isinstance(st, AssertStmt):
            out.append(f"{ind}if (!({self.cond(st.cond, ctx)})) br_fail(c);")
        elif isinstance(st, Send):
            ch = self.fresh("_sc")
            msg = self.fresh("_sm")
            n = len(st.args)
            vals = ", ".join(self.expr(a, ctx) for a in st.args) or "0"
            self.claim_check(st.channel, 2, ctx, out, ind)
            out.append(f"{ind}{{ chan_t {ch} = {self.chan(st.channel, ctx)}; V {msg}[{max(1, n)}] = {{{vals}}};")
            out.append(f"{ind}  if ({ch}.cap == 0 || rd_k({ch}.lk, {ctx.src}, {ch}.off) >= {ch}.cap) br_fail(c);")
            # another number of values than the channel has fields: an error when the
            # send executes (pan's qsend; the Python engine's _send_now)
            out.append(f"{ind}  else if ({ch}.nf != {n}) br_fail(c);")
            out.append(f"{ind}  else ch_push(c, {ctx.src}, &{ch}, {msg}, {int(st.sorted)}); }}")
        elif isinstance(st, Receive):
            ch = self.fresh("_rc")
            m = self.fresh("_rm")
            j = self.fresh("_rj")
            pat, has, decl = self.pattern(st.args, ctx)
            n = len(st.args)
            self.claim_check(st.channel, 1, ctx, out, ind)
            out.append(f"{ind}{{ chan_t {ch} = {self.chan(st.channel, ctx)}; {decl} V {m}[{self.max_fields}] = {{0}}; V {j} = -1;")
            out.append(f"{ind}  if ({ch}.cap == 0) br_fail(c);")
            out.append(f"{ind}  else if ({ch}.nf != {n}) br_fallback(c);")
            out.append(f"{ind}  else {{ {j} = ch_find({ctx.src}, &{ch}, {pat}, {has}, {n}, {int(st.random)}, 0);")
            out.append(f"{ind}    if ({j} < 0) br_fail(c); else ch_take({ctx.src}, &{ch}, {j}, {int(st.peek)}, {m}); }}")
            out.append(f"{ind}  if ({j} >= 0) {{")
            self.binds(st.args, m, ctx, out, ind + "    ")
            out.append(f"{ind}  }} }}")
        elif isinstance(st, Run):
            tpl = self._template(st.proctype, st.span)
            n = len(st.args)
            args = self.fresh("_ra")
            vals = ", ".join(self.expr(a, ctx) for a in st.args) or "0"
            out.append(f"{ind}{{ V {args}[{max(1, n)}] = {{{vals}}};")
            priority = "1" if st.priority is None else self.expr(st.priority, ctx)
            creator = -1 if ctx.pid is None else ctx.pid
            code = f"run_{tpl}(c, {ctx.src}, {args}, {n}, {priority}, {creator})"
            if st.target is not None:
                self.store(st.target, code, ctx, out, ind + "  ")
            else:
                out.append(f"{ind}  (void){code};")
            out.append(f"{ind}}}")
        elif isinstance(st, SetPriority):
            if not self.system.priority_scheduling or not self.layout.dynamic:
                raise self.unsupported(st.span, "set_priority() without priority scheduling")
            out.append(f"{ind}model_setprio(c, {ctx.src}, {self.expr(st.pid, ctx)}, "
                       f"{self.expr(st.value, ctx)}, {int(st.checked)});")
        elif isinstance(st, Print):
            pass
        else:
            raise self.unsupported(getattr(st, "span", None), type(st).__name__)

    def claim_check(self, channel: Expr, mask: int, ctx: _Ctx, out: list[str], ind: str) -> None:
        """Emit the ``xr`` (mask 1) or ``xs`` (mask 2) check of a receive or send on
        ``channel`` by the running instance (``semantics.codegen.claim_check``)."""
        if self.layout.claim_slot is None or ctx.pid is None:
            return
        out.append(f"{ind}xacc(c, {ctx.src}, {self.channel_id(channel, ctx)}, {ctx.pid}, {mask});")

    def binds(self, args, msg: str, ctx: _Ctx, out: list[str], ind: str) -> None:
        for k, a in enumerate(args):
            if isinstance(a, RecvBind) and a.target is not None:
                self.store(a.target, f"{msg}[{k}]", ctx, out, ind)

    def effect(self, e: Edge, ctx: _Ctx, ind: str) -> tuple[list[str], list[str]]:
        """Return (declarations, statements) of an edge's effect, run on ``t``."""
        ectx = ctx.with_src("t")
        ectx.block = {}
        ectx.decls = []
        body: list[str] = []
        self.stmts(e.effect, ectx, body, ind)
        return ectx.decls, body

    # ------------------------------------------------------------------ edges

    def _move_and_last(self, e: Edge, ctx: _Ctx, tpl: int, ind: str) -> tuple[list[str], list[str]]:
        """Return (move, last) statements of an edge taken by one instance."""
        lay = self.layout
        seg = self.packed.segments[tpl]
        move = []
        if e.target != e.source:
            move.append(f"{ind}wr_{seg.kinds[0].name}(t, {ctx.base} + {seg.offsets[0]}, {e.target});")
        last = []
        if lay.last_slot is not None:
            last.append(f"{ind}wr_u8(t, {self.static_off(lay.last_slot)}, {ctx.pid});")
        if lay.exclusive_slot is not None:
            atomic = e.target in self.space._atomic_sets[tpl]
            last.append(f"{ind}wr_i16(t, {self.static_off(lay.exclusive_slot)}, "
                        f"{ctx.pid if atomic else -1});")
        return move, last

    def _may_sync(self, e: Edge, sync: frozenset[str]) -> bool:
        if e.comm is not None:
            slot = self.static_channel(e.comm.channel)
            return slot is None or slot.capacity == 0
        if e.event is None or e.data_operation or not sync:
            return False
        if event_is_constant(self.pygen, e.event):
            return event_constant(self.pygen, e.event) in sync
        return True

    def gen_edge(self, lines: list[str], ind: str, ctx: _Ctx, tpl: int, k: int, e: Edge,
                 sync: frozenset[str], vector_edges: set[tuple[int, int]]) -> None:
        """Emit one edge (``statespace._gen_edge``): enabled test, successor, commit."""
        comment = (e.text or "").replace("\n", " ").replace("*/", "* /")[:60]
        lines.append(f"{ind}/* edge {k}: {comment} */")
        guard = "1"
        if e.guard is not None and not isinstance(e.guard, ElseGuard):
            guard = self.cond(e.guard, ctx)
        label = self.edge_ids[tpl] + k
        if e.comm is None and e.event is not None and not e.data_operation and sync:
            if not event_is_constant(self.pygen, e.event):
                raise self.unsupported(e.span, "an event name computed at run time on a process "
                                               "that synchronises (runtime barrier combiner)")
            pid = int(ctx.pid)  # static systems only: a literal
            if (pid, k) in vector_edges:
                return  # taken by a synchronisation vector in model_successors
            if event_constant(self.pygen, e.event) in sync:
                # a barrier no vector completes: never taken, but Python evaluates the
                # guard (to offer it), so its model errors count
                if guard != "1":
                    lines.append(f"{ind}(void)({guard});")
                return
        decls, body = self.effect(e, ctx, ind + "  ")
        move, last = self._move_and_last(e, ctx, tpl, ind + "  ")
        if e.comm is None:
            lines.append(f"{ind}if ({guard}) {{")
            lines.extend(f"{ind}  {d}" for d in decls)
            lines.append(f"{ind}  uint8_t *t = succ_begin(c, s, slen);")
            lines.extend(move)
            lines.extend(body)
            lines.extend(last)
            event = self.event_id(e)
            if event >= 0 and e.event is not None and self.space._hidden_sets:
                # hidden above a composition and not a barrier: tau (statespace._gen_edge)
                if not str(ctx.pid).isdigit():
                    raise self.unsupported(e.span, "hiding above '||' in a system that starts "
                                                   "processes at run time")
                name = event_constant(self.pygen, e.event)
                hidden = self.space._hidden_sets.get(int(str(ctx.pid)), frozenset())
                if name in hidden and (e.data_operation or name not in sync):
                    event = -1
            lines.append(f"{ind}  succ_proc(c, {ctx.pid}); succ_commit(c, {label}, {event});")
            lines.append(f"{ind}}}")
            return
        self.gen_comm_edge(lines, ind, ctx, tpl, k, e, guard, label)

    def gen_edge_guarded(self, lines: list[str], ind: str, ctx: _Ctx, tpl: int, k: int, e: Edge,
                         sync: frozenset[str], vector_edges: set[tuple[int, int]]) -> None:
        """Emit one edge of a location function. Promela: a model error met in the edge
        ends the instance's expansion there, as the exception does in the Python engine
        (``statespace._inline_layout``): what the edge committed is taken back and the
        function returns; the caller records the instance in ``perr``."""
        if not self.promela:
            self.gen_edge(lines, ind, ctx, tpl, k, e, sync, vector_edges)
            return
        lines.append(f"{ind}{{ size_t _e0 = c->n, _f0 = c->noffers;")
        self.gen_edge(lines, ind + "  ", ctx, tpl, k, e, sync, vector_edges)
        lines.append(f"{ind}  if (c->err) {{ c->n = _e0; c->noffers = _f0; return; }} }}")

    def gen_comm_edge(self, lines: list[str], ind: str, ctx: _Ctx, tpl: int, k: int, e: Edge,
                      guard: str, label: int) -> None:
        """Emit an edge with a channel operation (``statespace._gen_comm_edge``)."""
        comm = e.comm
        assert comm is not None
        lay = self.layout
        slot = self.static_channel(comm.channel)
        seg = self.packed.segments[tpl]
        # The rendezvous form: an apply function run on the joint successor.
        aname = self.fresh(f"A{tpl}_")
        actx = _Ctx("t", "b", "pid", ctx.proc, ctx.seg)
        alines = [f"static int {aname}(ctx_t *c, uint8_t *t, uint32_t b, int pid, const V *_msg) {{",
                  "  (void)c; (void)t; (void)b; (void)pid; (void)_msg;"]
        adecls, abody = self.effect(e, actx, "  ")
        alines.extend(f"  {d}" for d in adecls)
        if e.target != e.source:
            alines.append(f"  wr_{seg.kinds[0].name}(t, b + {seg.offsets[0]}, {e.target});")
        if lay.exclusive_slot is not None:
            ex = self.static_off(lay.exclusive_slot)
            if e.target in self.space._atomic_sets[tpl]:
                alines.append(f"  wr_i16(t, {ex}, pid);")
            elif isinstance(comm, Send):
                alines.append(f"  wr_i16(t, {ex}, -1);")
        condition = comm.condition if isinstance(comm, Receive) else None
        if isinstance(comm, Receive):
            bctx = actx.with_src("t")
            bctx.block = {}
            bctx.decls = alines  # no block variables in binds
            self.binds(comm.args, "_msg", bctx, alines, "  ")
            if condition is not None:
                cctx = actx.with_src("t")
                alines.append(f"  if (!({self.cond(condition, cctx)})) return 0;")
        alines.extend(abody)
        alines.append("  return 1;")
        alines.append("}")
        self.functions.append("\n".join(alines))
        self.prototypes.append(f"static int {aname}(ctx_t *, uint8_t *, uint32_t, int, const V *);")
        n = len(comm.args)
        i2 = ind + "  "
        lines.append(f"{ind}if ({guard}) {{")
        lines.append(f"{i2}chan_t _ch = {self.chan(comm.channel, ctx)};")
        if self.layout.claim_slot is not None:
            mask = 2 if isinstance(comm, Send) else 1
            lines.append(f"{i2}xacc(c, s, _ch.id, {ctx.pid}, {mask});")
        if isinstance(comm, Send):
            arity = ""
            if slot is not None:
                types = slot.channel.fields
                if len(types) != n and self.csp:
                    raise self.unsupported(comm.span, "send with the wrong number of fields")
                vals = []
                for a, ft in zip(comm.args, types, strict=False):
                    conv, _ = self.convert(self.expr(a, ctx), ft, self.fold(a))
                    vals.append(conv)
                vals += [self.expr(a, ctx) for a in comm.args[len(types):]]
                if len(types) != n:
                    arity = "1"
            else:
                vals = [self.expr(a, ctx) for a in comm.args]
                if not self.csp:
                    arity = f"_ch.nf != {n}"
            lines.append(f"{i2}V _mv[{max(1, n)}] = {{{', '.join(vals) or '0'}}};")
            if arity:
                # Promela: a send with another number of values than the channel has
                # fields is an error when it can execute (pan's qsend; the Python
                # engine's _arity); a full buffered channel blocks it first
                lines.append(f"{i2}if (({arity}) && (_ch.cap == 0 || rd_k(_ch.lk, s, _ch.off) < _ch.cap)) {{")
                lines.append(f"{i2}  br_fail(c);")
                lines.append(f"{i2}}} else if (_ch.cap == 0) {{")
            else:
                lines.append(f"{i2}if (_ch.cap == 0) {{")
            lines.append(f"{i2}  add_offer(c, 1, _ch.id, {n}, _mv, NULL, {ctx.pid}, {k}, {ctx.base}, {aname});")
            lines.append(f"{i2}}} else if (rd_k(_ch.lk, s, _ch.off) < _ch.cap) {{")
            i3 = i2 + "  "
            decls, body = self.effect(e, ctx, i3)
            move, last = self._move_and_last(e, ctx, tpl, i3)
            lines.extend(f"{i3}{d}" for d in decls)
            lines.append(f"{i3}uint8_t *t = succ_begin(c, s, slen);")
            lines.append(f"{i3}if (_ch.nf != {n}) br_fallback(c);")
            lines.append(f"{i3}else ch_push(c, t, &_ch, _mv, {int(comm.sorted)});")
            lines.extend(move)
            lines.extend(body)
            lines.extend(last)
            lines.append(f"{i3}succ_proc(c, {ctx.pid}); succ_commit(c, {label}, {self.event_id(e, comm=True)});")
            lines.append(f"{i2}}}")
        else:
            pat, has, decl = self.pattern(comm.args, ctx)
            lines.append(f"{i2}{decl}")
            lines.append(f"{i2}if (_ch.cap == 0) {{")
            lines.append(f"{i2}  add_offer(c, 2, _ch.id, {n}, {pat}, {has}, {ctx.pid}, {k}, {ctx.base}, {aname});")
            lines.append(f"{i2}}} else if (_ch.nf < {n}) {{ br_fallback(c); }} else {{")
            i3 = i2 + "  "
            ectx = ctx.with_src("t")
            ectx.block = {}
            ectx.decls = []
            binds: list[str] = []
            self.binds(comm.args, "_msg", ectx, binds, i3 + "  ")
            cond = self.cond(condition, ectx) if condition is not None else None
            decls, body = self.effect(e, ctx, i3 + "  ")
            move, last = self._move_and_last(e, ctx, tpl, i3 + "  ")
            rnd = int(comm.random)
            if cond is None:
                lines.append(f"{i3}V _mi = ch_find(s, &_ch, {pat}, {has}, {n}, {rnd}, 0);")
                lines.append(f"{i3}if (_mi >= 0) {{")
            else:
                lines.append(f"{i3}for (V _mi = ch_find(s, &_ch, {pat}, {has}, {n}, {rnd}, 0); _mi >= 0;"
                             f" _mi = ch_find(s, &_ch, {pat}, {has}, {n}, {rnd}, _mi + 1)) {{")
            i4 = i3 + "  "
            lines.extend(f"{i4}{d}" for d in decls + ectx.decls)
            lines.append(f"{i4}uint8_t *t = succ_begin(c, s, slen);")
            lines.append(f"{i4}V _msg[{self.max_fields}];")
            lines.append(f"{i4}ch_take(t, &_ch, _mi, {int(comm.peek)}, _msg);")
            lines.extend(binds)
            if cond is not None:
                lines.append(f"{i4}if (!({cond})) continue;")
            lines.extend(move)
            lines.extend(body)
            lines.extend(last)
            lines.append(f"{i4}succ_proc(c, {ctx.pid}); succ_commit(c, {label}, {self.event_id(e, comm=True)});")
            if cond is not None:
                lines.append(f"{i4}break;")
            lines.append(f"{i3}}}")
            lines.append(f"{i2}}}")
        lines.append(f"{ind}}}")

    def gen_process(self, tpl: int, base: str, pid: str, tag: str, sync: frozenset[str],
                    vector_edges: set[tuple[int, int]]) -> dict[int, str]:
        """Emit one function per location of template ``tpl``; return location -> name."""
        proc = self.layout.processes[tpl]
        seg = self.packed.segments[tpl]
        by_source: dict[int, list[tuple[int, Edge]]] = {}
        for k, e in enumerate(proc.process.edges):
            by_source.setdefault(e.source, []).append((k, e))
        names: dict[int, str] = {}
        for loc in proc.process.locations:
            edges = by_source.get(loc.id, [])
            if not edges:
                continue
            if loc.id < 0:
                raise self.unsupported(loc.span, "negative location id")
            fname = f"L{tag}_{loc.id}"
            normal = [(k, e) for k, e in edges
                      if not isinstance(e.guard, ElseGuard) and not guard_mentions(e.guard, "timeout")]
            elses = [(k, e) for k, e in edges if isinstance(e.guard, ElseGuard)]
            timeouts = [(k, e) for k, e in edges
                        if not isinstance(e.guard, ElseGuard) and guard_mentions(e.guard, "timeout")]
            if len(elses) > 1:
                raise self.unsupported(elses[1][1].span, "more than one 'else' at a location")
            if elses and timeouts:
                raise self.unsupported(elses[0][1].span, "'else' and 'timeout' at the same location")
            may_sync = any(self._may_sync(e, sync) for _, e in normal)
            ctx = _Ctx("s", base, pid, proc, seg)
            lines = [f"static void {fname}(ctx_t *c, const uint8_t *s, uint32_t slen, uint32_t b, int pid) {{",
                     "  (void)b; (void)pid; (void)slen;"]
            if elses and not may_sync:
                lines.append("  size_t _n0 = c->n;")
            for k, e in normal:
                self.gen_edge_guarded(lines, "  ", ctx, tpl, k, e, sync, vector_edges)
            if elses:
                k, e = elses[0]
                if may_sync:
                    self._no_rendezvous(e, "a deferred 'else'")
                    ename = f"E{tag}_{loc.id}"
                    sub = [f"static void {ename}(ctx_t *c, const uint8_t *s, uint32_t slen, uint32_t b, int pid, int tmo) {{",
                           "  (void)b; (void)pid; (void)tmo; (void)slen;"]
                    self.gen_edge(sub, "  ", ctx, tpl, k, e, frozenset(), vector_edges)
                    sub.append("}")
                    self.functions.append("\n".join(sub))
                    self.prototypes.append(f"static void {ename}(ctx_t *, const uint8_t *, uint32_t, uint32_t, int, int);")
                    lines.append(f"  add_defer(c, &c->elses, &c->nelses, &c->elses_cap, {pid}, {base}, {ename});")
                else:
                    lines.append("  if (c->n == _n0) {")
                    self.gen_edge_guarded(lines, "    ", ctx, tpl, k, e, frozenset(), vector_edges)
                    lines.append("  }")
            if timeouts:
                tname = f"T{tag}_{loc.id}"
                sub = [f"static void {tname}(ctx_t *c, const uint8_t *s, uint32_t slen, uint32_t b, int pid, int tmo) {{",
                       "  (void)b; (void)pid; (void)tmo; (void)slen;"]
                tctx = _Ctx("s", base, pid, proc, seg, timeout=True)
                for k, e in timeouts:
                    self._no_rendezvous(e, "a 'timeout' option")
                    self.gen_edge(sub, "  ", tctx, tpl, k, e, frozenset(), vector_edges)
                sub.append("}")
                self.functions.append("\n".join(sub))
                self.prototypes.append(f"static void {tname}(ctx_t *, const uint8_t *, uint32_t, uint32_t, int, int);")
                lines.append(f"  add_defer(c, &c->tmos, &c->ntmos, &c->tmos_cap, {pid}, {base}, {tname});")
            lines.append("}")
            self.functions.append("\n".join(lines))
            self.prototypes.append(f"static void {fname}(ctx_t *, const uint8_t *, uint32_t, uint32_t, int);")
            names[loc.id] = fname
        return names

    def _no_rendezvous(self, e: Edge, what: str) -> None:
        if e.comm is None:
            return
        slot = self.static_channel(e.comm.channel)
        if slot is None or slot.capacity == 0:
            raise self.unsupported(e.span, f"{what} that starts with a channel operation on a "
                                            "channel that may be a rendezvous")

    def dispatch(self, names: dict[int, str], base: str, pid: str, tpl: int, ind: str) -> list[str]:
        """Return the switch calling the function of an instance's current location."""
        if not names:
            return []
        lines = [f"{ind}switch ({self.loc_read('s', base, tpl)}) {{"]
        for loc, fname in sorted(names.items()):
            lines.append(f"{ind}case {loc}: {fname}(c, s, slen, {base}, {pid}); break;")
        lines.append(f"{ind}default: break;")
        lines.append(f"{ind}}}")
        return lines

    # ------------------------------------------------------------------ events

    def intern_event(self, name: str) -> int:
        """Return the index of a constant event name in ``BR_EVENT_NAMES``."""
        if name not in self.event_names:
            self.event_names[name] = len(self.event_names)
        return self.event_names[name]

    def event_id(self, e: Edge, comm: bool = False) -> int:
        """Return the event code of a step of one edge, as the Python engine names it
        (``statespace._gen_edge``): -1 tau, -2 a name computed at run time (a CSP#
        channel step without an event, or components that are not constant)."""
        if e.event is None:
            return -2 if comm and self.csp else -1
        if not event_is_constant(self.pygen, e.event):
            return -2
        return self.intern_event(event_constant(self.pygen, e.event))

    def events_code(self) -> list[str]:
        names = list(self.event_names) or [""]
        quoted = ", ".join(_c_string(n) for n in names)
        offsets, pairs = self.vector_tables
        return [f"#define BR_EVENT_COUNT {len(self.event_names)}",
                f"static const char *const BR_EVENT_NAMES[{len(names)}] = {{{quoted}}};",
                "/* the edges of synchronisation vector v: pairs (pid, edge label) "
                "BR_VEC_OFF[v] .. BR_VEC_OFF[v + 1] - 1 of BR_VEC_EDGES */",
                f"static const int32_t BR_VEC_OFF[{len(offsets)}] = "
                f"{{{', '.join(map(str, offsets))}}};",
                f"static const int32_t BR_VEC_EDGES[{max(1, len(pairs))}] = "
                f"{{{', '.join(map(str, pairs)) or '0'}}};"]

    # ------------------------------------------------------------------ instances

    def set_instance_constants(self, pid: int) -> None:
        """Fold the never-assigned locals of static instance ``pid`` (parameters, mostly)
        as the Python engine does for its specialised instance code: CSP# event names
        such as ``rule1.i.(i+1)%N`` become constants, so barriers are precomputed."""
        key = self.space._static_layout.key
        tpl, values = key[pid]
        names = [n for n, _ in self.space._const_locals[tpl]]
        self.pygen.consts = dict(zip(names, values, strict=True))

    @contextlib.contextmanager
    def instance_constants(self, pid: int) -> Iterator[None]:
        self.set_instance_constants(pid)
        try:
            yield
        finally:
            self.pygen.consts = {}

    def _check_vectors_precomputed(self) -> None:
        """Raise ``CUnsupported`` when the Python engine combines barriers at run time
        (more than ``MAX_SYNC_VECTORS`` vectors): the C engine has only precomputed
        vectors. No vector at all (no barrier can ever be completed) is fine."""
        offers: dict[int, list] = {}
        lay = self.layout
        for pid, t in enumerate(lay.initial_templates):
            sync = self.space._sync_sets.get(pid, frozenset())
            if not sync:
                continue
            with self.instance_constants(pid):
                for k, e in enumerate(lay.processes[t].process.edges):
                    if (e.comm is not None or e.event is None or e.data_operation
                            or isinstance(e.guard, ElseGuard) or guard_mentions(e.guard, "timeout")
                            or not event_is_constant(self.pygen, e.event)):
                        continue
                    name = event_constant(self.pygen, e.event)
                    if name in sync:
                        offers.setdefault(pid, []).append((name, ((pid, k),)))
        composition = self.system.composition
        if composition is not None and len(make_combiner(composition)(offers)) > MAX_SYNC_VECTORS:
            raise CUnsupported("CSP barriers combined at run time (more synchronisation "
                               f"vectors than the {MAX_SYNC_VECTORS} precomputed)")

    # ------------------------------------------------------------------ tables

    def _channel_descriptor(self, name: str, channel: Channel, off: int, cid: int) -> str:
        cap = channel.capacity
        kinds = [kind_of_type(f)[0] for f in channel.fields] or [I32]
        lk = kind_for_range(0, max(cap, 0)) or I32
        fo, pos = [], 0
        for k in kinds[: len(channel.fields)]:
            fo.append(pos)
            pos += k.width
        fk_name, fo_name = f"CHFK_{name}", f"CHFO_{name}"
        self.channel_tables.append(
            f"static const uint8_t {fk_name}[] = {{{', '.join(_kind_const(k) for k in kinds)}}};")
        self.channel_tables.append(
            f"static const uint32_t {fo_name}[] = {{{', '.join(map(str, fo)) or '0'}}};")
        return (f"((chan_t){{{off}, {cap}, {len(channel.fields)}, {cid}, {_kind_const(lk)}, "
                f"{lk.width}, {pos}, {fk_name}, {fo_name}}})")

    def channel_tables_code(self) -> list[str]:
        """Return the channel descriptors and ``chan_lookup`` (``statespace._chan``)."""
        lay = self.layout
        lines: list[str] = []
        for c in lay.channels:
            off = self.static_off(c.offset) if c.capacity > 0 else 0
            desc = self._channel_descriptor(f"G{c.id}", c.channel, off, c.id)
            lines.append(f"#define CH_G{c.id} {desc}")
        for t, p in enumerate(lay.processes):
            seg = self.packed.segments[t]
            for j, c in enumerate(p.channels):
                off = seg.offsets[c.offset] if c.capacity > 0 else 0
                desc = self._channel_descriptor(f"P{t}_{j}", c.channel, off, 0)
                lines.append(f"#define CH_P{t}_{j} {desc}")
        lines.append("static const chan_t CH_NONE = {0, 0, 0, 0, K_U8, 1, 0, NULL, NULL};")
        lines.append("static int chan_find(const uint8_t *src, V cid, chan_t *out) {")
        lines.append("  (void)src;")
        lines.append("  switch (cid) {")
        for c in lay.channels:
            lines.append(f"  case {c.id}: *out = CH_G{c.id}; return 1;")
        lines.append("  default: break;")
        lines.append("  }")
        if any(p.channels for p in lay.processes):
            lines.append(f"  V next = {len(lay.channels) + 1};")
            lines.append("  uint32_t pos = BR_STATIC_BYTES;")
            lines.append("  int n = model_nproc(src);")
            lines.append("  for (int pid = 0; pid < n; pid++) {")
            lines.append("    int tpl = model_template(src, pos, pid);")
            lines.append("    switch (tpl) {")
            for t, p in enumerate(lay.processes):
                if not p.channels:
                    continue
                lines.append(f"    case {t}:")
                for j, _ in enumerate(p.channels):
                    lines.append(f"      if (next == cid) {{ chan_t ch = CH_P{t}_{j}; "
                                 "if (ch.cap > 0) ch.off += pos; ch.id = (int32_t)cid; *out = ch; "
                                 "return 1; }")
                    lines.append("      next++;")
                lines.append("      break;")
            lines.append("    default: break;")
            lines.append("    }")
            lines.append("    pos += SEG_SIZE[tpl];")
            lines.append("  }")
        lines.append("  return 0;")
        lines.append("}")
        lines.append("static chan_t chan_lookup(ctx_t *c, const uint8_t *src, V cid) {")
        lines.append("  chan_t ch;")
        lines.append("  if (chan_find(src, cid, &ch)) return ch;")
        lines.append("  br_fail(c);")
        lines.append("  return CH_NONE;")
        lines.append("}")
        return lines

    def structure_code(self) -> list[str]:
        """Return segment sizes, instance/template helpers, remote references, ``np_``,
        ``is_terminal`` and ``is_valid_end``."""
        lay = self.layout
        segs = self.packed.segments
        lines = [f"static const uint32_t SEG_SIZE[{max(1, len(segs))}] = "
                 f"{{{', '.join(str(s.size) for s in segs) or '0'}}};"]
        if lay.dynamic:
            lines.append("static inline int model_nproc(const uint8_t *s) { return (int)"
                         f"{self.read_static('s', lay.layout_slot)}; }}")
            lines.append("static inline int model_template(const uint8_t *s, uint32_t pos, int pid) "
                         "{ (void)pid; return s[pos]; }")
            lines.append("static inline int model_pid_tpl(const ctx_t *c, int pid) "
                         "{ return c->ptpl[pid]; }")
        else:
            tpls = list(lay.initial_templates) or [0]
            lines.append(f"static const int STATIC_TEMPLATES[{len(tpls)}] = {{{', '.join(map(str, tpls))}}};")
            lines.append("static inline int model_nproc(const uint8_t *s) { (void)s; return "
                         f"{len(lay.initial_templates)}; }}")
            lines.append("static inline int model_template(const uint8_t *s, uint32_t pos, int pid) "
                         "{ (void)s; (void)pos; return STATIC_TEMPLATES[pid]; }")
            lines.append("static inline int model_pid_tpl(const ctx_t *c, int pid) "
                         "{ (void)c; return STATIC_TEMPLATES[pid]; }")
        # a location-set test per template and purpose
        for purpose, sets in (("terminal", self.space._terminal_sets), ("end", self.space._end_sets),
                              ("atomic", self.space._atomic_sets), ("progress", [
                                  frozenset(x.id for x in p.process.locations if x.progress)
                                  for p in lay.processes])):
            lines.append(f"static int loc_{purpose}(int tpl, V loc) {{")
            lines.append("  switch (tpl) {")
            for t, locs in enumerate(sets):
                if locs:
                    test = " || ".join(f"loc == {x}" for x in sorted(locs))
                    lines.append(f"  case {t}: return {test};")
            lines.append("  default: return 0;")
            lines.append("  }")
            lines.append("}")
        lines.append("static inline V loc_at(const uint8_t *s, uint32_t pos, int tpl) {")
        lines.append("  switch (tpl) {")
        for t, seg in enumerate(segs):
            lines.append(f"  case {t}: return rd_{seg.kinds[0].name}(s, pos + {seg.offsets[0]});")
        lines.append("  default: return 0;")
        lines.append("  }")
        lines.append("}")
        # a Promela trace's end states also need the system's end_condition
        # (statespace.is_valid_end); a model error evaluating it sets c->err
        condition = self.space.system.end_condition
        end_test = "1" if condition is None else self.expr(condition, _Ctx("s", None, None, None, None))
        for name, test, final in (("model_is_terminal", "loc_terminal", "1"),
                                  ("model_is_valid_end", "loc_end", end_test)):
            lines.append(f"static int {name}(ctx_t *c, const uint8_t *s, uint32_t slen) {{")
            lines.append("  (void)c; (void)slen; uint32_t pos = BR_STATIC_BYTES; int n = model_nproc(s);")
            lines.append("  for (int pid = 0; pid < n; pid++) { int tpl = model_template(s, pos, pid);")
            lines.append(f"    if (!{test}(tpl, loc_at(s, pos, tpl))) return 0; pos += SEG_SIZE[tpl]; }}")
            lines.append(f"  return ({final}) != 0;")
            lines.append("}")
        # the pid holding atomicity (Promela's exclusive slot), -1: none (search_ltl.c)
        slot = self.layout.exclusive_slot
        holder = "-1" if slot is None else f"(int){self.read_static('s', slot)}"
        lines.append(f"static inline int model_holder(const uint8_t *s) {{ (void)s; return {holder}; }}")
        lines.append("static V model_np(const uint8_t *s) {")
        lines.append("  uint32_t pos = BR_STATIC_BYTES; int n = model_nproc(s);")
        lines.append("  for (int pid = 0; pid < n; pid++) { int tpl = model_template(s, pos, pid);")
        lines.append("    if (loc_progress(tpl, loc_at(s, pos, tpl))) return 0; pos += SEG_SIZE[tpl]; }")
        lines.append("  return 1;")
        lines.append("}")
        lines.append(_REMOTE_HELPERS)
        return lines

    def run_code(self) -> list[str]:
        """Return ``run_T`` per template (``statespace._run`` and ``_seginit``)."""
        lay = self.layout
        lines: list[str] = []
        nchans = [len(p.channels) for p in lay.processes]
        for t, proc in enumerate(lay.processes):
            seg = self.packed.segments[t]
            p = proc.process
            lines.append(f"static V run_{t}(ctx_t *c, uint8_t *t, const V *args, int nargs, V prio, "
                         "int creator) {")
            lines.append("  (void)args; (void)nargs; (void)prio; (void)creator;")
            if not lay.dynamic:
                lines.append("  br_fallback(c); (void)t; return 0;")
                lines.append("}")
                continue
            ctx = _Ctx("t", "b", "pid", proc, seg)
            ctx.decls = []
            body: list[str] = []
            params = p.parameters
            body.append(f"  if (nargs != {len(params)}) {{ br_fail(c); return pid; }}")
            for j, pname in enumerate(params):
                lslot = proc.locals[pname]
                place = _Place(f"b + {seg.offsets[lslot.offset]}", lslot.type, seg.kinds[lslot.offset],
                               exact=kind_of_type(lslot.type)[1])
                conv, exact = self.convert(f"args[{j}]", lslot.type)
                body.append("  " + self.write(place, conv, exact, ctx))
            for v in p.locals:
                if v.name in params or v.init is None:
                    continue
                lslot = proc.locals[v.name]
                self._init_value(body, ctx, f"b + {seg.offsets[lslot.offset]}", v.type, v.init,
                                 lslot.size, seg.kinds[lslot.offset])
            for j, ch in enumerate(proc.channels):
                idx = ch.offset - 1
                body.append(f"  wr_ck(c, {_kind_const(seg.kinds[idx])}, t, b + {seg.offsets[idx]}, next_id + {j});")
            ls = self.static_off(lay.layout_slot)
            lines.append(f"  int n = (int)rd_u8(t, {ls});")
            lines.append(f"  if (n >= {min(self.system.max_instances, MAX_PROCESSES)}) {{ br_fail(c); return 0; }}")
            lines.append("  uint32_t b = c->tlen;")
            lines.append(f"  if (b + {seg.size} > BR_MAXVEC) {{ br_fallback(c); return 0; }}")
            lines.append("  int pid = n;")
            lines.append(f"  V next_id = {len(lay.channels) + 1};")
            if any(nchans):
                lines.append(f"  static const int NCH[] = {{{', '.join(map(str, nchans))}}};")
                lines.append("  { uint32_t pos = BR_STATIC_BYTES; for (int q = 0; q < n; q++) { int tq = t[pos]; next_id += NCH[tq]; pos += SEG_SIZE[tq]; } }")
            lines.append(f"  memset(t + b, 0, {seg.size});")
            lines.append(f"  t[b] = {t};")
            lines.append(f"  wr_{seg.kinds[0].name}(t, b + {seg.offsets[0]}, {p.initial});")
            lines.extend(f"  {d}" for d in ctx.decls)
            lines.extend(body)
            if proc.priority_offset is not None:
                # pan: a priority outside 1..255 is an error when the process starts
                lines.append("  if (prio < 1 || prio > 255) { br_fail(c); return pid; }")
                lines.append(f"  wr_u8(t, b + {seg.offsets[proc.priority_offset]}, prio);")
            lines.append(f"  wr_u8(t, {ls}, n + 1);")
            lines.append(f"  c->tlen = b + {seg.size};")
            if p.channel_assertions:
                lines.append(f"  claim_new(c, t, {t}, b, pid, creator);")
            lines.append("  (void)next_id;")
            lines.append("  return pid;")
            lines.append("}")
        return lines

    def _init_value(self, out: list[str], ctx: _Ctx, off: str, vtype: Type, init: Any,
                    size: int, kind: Kind) -> None:
        element = vtype
        while isinstance(element, ArrayType):
            element = element.element
        _, kexact = kind_of_type(vtype)
        if isinstance(init, tuple):
            if len(init) > size:
                raise self.unsupported(None, "too many initial values for an array")
            for j, x in enumerate(init):
                conv, exact = self.convert(self.expr(x, ctx), element, self.fold(x))
                out.append("  " + self.write(_Place(f"{off} + {j * kind.width}", element, kind,
                                                    exact=kexact), conv, exact, ctx))
        else:
            conv, exact = self.convert(self.expr(init, ctx), element, self.fold(init))
            tmp = self.fresh("_iv")
            out.append(f"  {{ V {tmp} = {conv};")
            for j in range(size):
                out.append("    " + self.write(_Place(f"{off} + {j * kind.width}", element, kind,
                                                      exact=kexact), tmp, exact, ctx))
            out.append("  }")

    def provided_code(self) -> list[str]:
        """Return ``provided_T`` per template: the guard of a Promela process's death."""
        lines = []
        for t, proc in enumerate(self.layout.processes):
            lines.append(f"static V provided_{t}(ctx_t *c, const uint8_t *s, uint32_t slen, uint32_t b, "
                         "int pid) {")
            lines.append("  (void)c; (void)s; (void)slen; (void)b; (void)pid;")
            if proc.process.provided is None:
                lines.append("  return 1;")
            else:
                ctx = _Ctx("s", "b", "pid", proc, self.packed.segments[t])
                lines.append(f"  return {self.expr(proc.process.provided, ctx)};")
            lines.append("}")
        return lines

    def expression_code(self) -> list[str]:
        """Return ``model_expr``: the property conditions, values and propositions."""
        cases = []
        for k, e in enumerate(self.expressions):
            ctx = _Ctx("s", None, None, None, None)
            try:
                code = self.expr(e, ctx)
            except CUnsupported:
                self.expression_ok.append(False)
                continue
            self.expression_ok.append(True)
            cases.append(f"  case {k}: return {code};")
        return (["static V model_expr(ctx_t *c, int k, const uint8_t *s, uint32_t slen) {",
                 "  (void)c; (void)s; (void)slen;", "  switch (k) {"] + cases
                + ["  default: br_fallback(c); return 0;", "  }", "}"])

    # ------------------------------------------------------------------ successors

    def successors_code(self) -> list[str]:
        """Return ``model_successors`` (``statespace._inline_layout`` and ``post``)."""
        lay = self.layout
        space = self.space
        lines = ["static void model_successors(ctx_t *c, const uint8_t *s, uint32_t slen) {"]
        if lay.dynamic:
            if space._has_barriers:
                raise CUnsupported("CSP barriers in a system that starts processes at run time")
            names = [self.gen_process(t, "b", "pid", f"T{t}", frozenset(), set())
                     for t in range(len(lay.processes))]
            head = self.instance_code(names)
            lines[:0] = head
            lines.append("  int n = model_nproc(s);")
            lines.append("  uint32_t pos = BR_STATIC_BYTES, lastb = 0; int lastt = 0;")
            if self.promela:
                lines.append("  perr_clear(c);")
            lines.append("  for (int pid = 0; pid < n; pid++) {")
            lines.append("    int tpl = s[pos]; uint32_t b = pos;")
            lines.append("    c->pbase[pid] = b; c->ptpl[pid] = (uint8_t)tpl;")
            lines.append("    model_instance(c, s, slen, b, pid, tpl);")
            if self.promela:
                # pan tries this instance or not: the error counts in select (below)
                lines.append("    if (c->err) { c->err = 0; perr_set(c, pid); }")
            lines.append("    lastb = pos; lastt = tpl; pos += SEG_SIZE[tpl];")
            lines.append("  }")
            if self.language is SourceLanguage.PROMELA:
                lines.append("  if (n > 0 && loc_terminal(lastt, loc_at(s, lastb, lastt))) {")
                lines.append("    V ok = 1;")
                lines.append("    switch (lastt) {")
                for t, proc in enumerate(lay.processes):
                    if proc.process.provided is not None:
                        lines.append(f"    case {t}: ok = provided_{t}(c, s, slen, lastb, n - 1); break;")
                lines.append("    default: break;")
                lines.append("    }")
                lines.append("    if (ok) {")
                lines.append("      uint8_t *t = succ_begin(c, s, slen);")
                lines.append("      c->tlen = lastb;")
                lines.append(f"      wr_u8(t, {self.static_off(lay.layout_slot)}, n - 1);")
                if lay.last_slot is not None:
                    lines.append(f"      wr_u8(t, {self.static_off(lay.last_slot)}, n - 1);")
                if lay.exclusive_slot is not None:
                    lines.append(f"      wr_i16(t, {self.static_off(lay.exclusive_slot)}, -1);")
                lines.append("      succ_proc(c, n - 1); succ_commit(c, -1000000 - (n - 1), -1);")
                lines.append("    }")
                lines.append("  }")
        else:
            vectors = list(space._vectors)
            vector_edges = set(space._vector_edges)
            if space._has_barriers and not vectors:
                self._check_vectors_precomputed()
            for pid, t in enumerate(lay.initial_templates):
                base = str(self.static_bases[pid])
                sync = space._sync_sets.get(pid, frozenset())
                with self.instance_constants(pid):
                    nm = self.gen_process(t, base, str(pid), f"I{pid}", sync, vector_edges)
                lines.extend(self.dispatch(nm, base, str(pid), t, "  "))
            # the edges of each vector (pid, edge label), for the annotation units of a
            # barrier step (search_ltl.c: ls_units)
            offsets, pairs = [0], []
            for _name, parts in vectors:
                for pid, k in parts:
                    pairs += [pid, self.edge_ids[lay.initial_templates[pid]] + k]
                offsets.append(len(pairs) // 2)
            self.vector_tables = offsets, pairs
            for vi, (name, parts) in enumerate(vectors):
                conds = []
                effects: list[str] = []
                decls: list[str] = []
                for pid, k in parts:
                    t = lay.initial_templates[pid]
                    proc = lay.processes[t]
                    seg = self.packed.segments[t]
                    base = str(self.static_bases[pid])
                    ctx = _Ctx("s", base, str(pid), proc, seg)
                    e = proc.process.edges[k]
                    self.set_instance_constants(pid)
                    conds.append(f"{self.loc_read('s', base, t)} == {e.source}")
                    if e.guard is not None and not isinstance(e.guard, ElseGuard):
                        conds.append(f"({self.cond(e.guard, ctx)})")
                    if e.target != e.source:
                        effects.append(f"    wr_{seg.kinds[0].name}(t, {base} + {seg.offsets[0]}, {e.target});")
                    d, body = self.effect(e, ctx, "    ")
                    self.pygen.consts = {}
                    decls.extend(d)
                    effects.extend(body)
                # a barrier hidden above its '||' is a tau step (make_combiner: None)
                shown = "tau" if name is None else name.replace("*/", "* /")
                lines.append(f"  /* barrier {shown} */")
                lines.append(f"  if ({' && '.join(conds)}) {{")
                lines.extend(f"    {d}" for d in decls)
                lines.append("    uint8_t *t = succ_begin(c, s, slen);")
                lines.extend(effects)
                for pid in sorted({p for p, _ in parts}):
                    lines.append(f"    succ_proc(c, {pid});")
                event = -1 if name is None else self.intern_event(name)
                lines.append(f"    succ_commit(c, {-(vi + 1)}, {event});")
                lines.append("  }")
        # post: rendezvous, deferred else, timeout (statespace.post)
        last = self.static_off(lay.last_slot) if lay.last_slot is not None else None
        lines.append("  if (c->noffers) {")
        lines.append("    for (size_t i = 0; i < c->noffers; i++) {")
        lines.append("      const offer_t *o = &c->offers[i]; if (o->kind != 1) continue;")
        lines.append("      for (size_t j = 0; j < c->noffers; j++) {")
        lines.append("        const offer_t *r = &c->offers[j]; if (r->kind != 2) continue;")
        lines.append("        if (r->cid != o->cid || r->pid == o->pid || r->nf != o->nf) continue;")
        lines.append("        int ok = 1; for (int q = 0; q < o->nf; q++) if (r->has[q] && r->msg[q] != o->msg[q]) { ok = 0; break; }")
        lines.append("        if (!ok) continue;")
        lines.append("        uint8_t *t = succ_begin(c, s, slen);")
        lines.append("        o->apply(c, t, o->base, o->pid, NULL);")
        lines.append("        if (!r->apply(c, t, r->base, r->pid, o->msg)) continue;")
        if last is not None:
            lines.append(f"        wr_u8(t, {last}, r->pid);")
        lines.append("        succ_proc(c, o->pid); succ_proc(c, r->pid);")
        # CSP# names a rendezvous after the channel and message: computed (-2)
        lines.append(f"        succ_commit(c, -2000000 - (int32_t)(i * c->noffers + j), {-2 if self.csp else -1});")
        lines.append("      }")
        lines.append("    }")
        lines.append("  }")
        lines.append("  for (size_t i = 0; i < c->nelses; i++) {")
        lines.append("    int busy = 0; for (size_t j = 0; j < c->n; j++) if (succ_has_proc(c, j, c->elses[i].pid)) { busy = 1; break; }")
        lines.append("    if (!busy) c->elses[i].fn(c, s, slen, c->elses[i].base, c->elses[i].pid, 0);")
        lines.append("  }")
        lines.append("  if (c->ntmos) {")
        lines.append("    int tv = c->n == 0;")
        lines.append("    for (size_t i = 0; i < c->ntmos; i++) c->tmos[i].fn(c, s, slen, c->tmos[i].base, c->tmos[i].pid, tv);")
        lines.append("  }")
        # atomic filters
        if self.promela:
            lines.extend(self.select_code())
        elif space._any_atomic:
            # CSP# atomic: the steps of an instance at an atomic location, and (Edge.atomic,
            # an atomic part inside a process) the steps taking a flagged edge, go alone
            # while there are any (statespace: ``_AE``)
            edges = any(space._atomic_edge_sets)
            lines.append("  if (c->n) {")
            lines.append(f"    uint64_t in[BR_PWORDS] = {{0}}; int some = {int(edges)};")
            lines.append("    uint32_t pos = BR_STATIC_BYTES; int n = model_nproc(s);")
            lines.append("    for (int pid = 0; pid < n; pid++) { int tpl = model_template(s, pos, pid);")
            lines.append("      if (loc_atomic(tpl, loc_at(s, pos, tpl))) { in[pid >> 6] |= (uint64_t)1 << (pid & 63); some = 1; }")
            lines.append("      pos += SEG_SIZE[tpl]; }")
            lines.append("    if (some) {")
            lines.append("      int any = 0;")
            hit_edges = " if (!hit) hit = step_atomic_edge(c, i);" if edges else ""
            if edges:
                self.prototypes.append("static int step_atomic_edge(const ctx_t *c, size_t i);")
            lines.append("      for (size_t i = 0; i < c->n; i++) { int hit = 0; for (int w = 0; w < BR_PWORDS; w++) if (c->procs[i * BR_PWORDS + w] & in[w]) hit = 1;"
                         f"{hit_edges} c->keep[i] = (uint8_t)hit; any |= hit; }}")
            lines.append("      if (!any) for (size_t i = 0; i < c->n; i++) c->keep[i] = 1;")
            lines.append("    }")
            lines.append("  }")
        lines.append("}")
        return lines

    def select_code(self) -> list[str]:
        """Return the end of a Promela ``model_successors``: the steps pan takes and the
        model errors it meets (``statespace._select``). Priorities (pan.c
        highest_priority): only steps of an instance with the highest priority among
        those that can move (an instance whose expansion failed counts as able to);
        atomicity: the holder moves alone while it can; an instance's error counts
        only if the instance is left to try; the initial state's xr/xs error."""
        lay = self.layout
        out = ["  {", "    int best = -1, holder = -1; (void)holder;"]
        prio = "(int)rd_u8(s, c->pbase[p] + PRIO_OFF[c->ptpl[p]])"
        if self.system.priority_scheduling:
            out += [
                "    if (c->n || perr_any(c)) {",
                "      for (size_t i = 0; i < c->n; i++)",
                "        for (int w = 0; w < BR_PWORDS; w++) for (uint64_t m = c->procs[i * BR_PWORDS + w]; m; m &= m - 1) {",
                f"          int p = w * 64 + __builtin_ctzll(m), v = {prio}; if (v > best) best = v; }}",
                "      for (int w = 0; w < BR_PWORDS; w++) for (uint64_t m = c->perr[w]; m; m &= m - 1) {",
                f"        int p = w * 64 + __builtin_ctzll(m), v = {prio}; if (v > best) best = v; }}",
                "      for (size_t i = 0; i < c->n; i++) { int hit = 0;",
                "        for (int w = 0; w < BR_PWORDS; w++) for (uint64_t m = c->procs[i * BR_PWORDS + w]; m; m &= m - 1) {",
                f"          int p = w * 64 + __builtin_ctzll(m); if ({prio} == best) hit = 1; }}",
                "        c->keep[i] = (uint8_t)hit; }",
                "    }",
            ]
        if lay.exclusive_slot is not None:
            out += [
                f"    V h = {self.read_static('s', lay.exclusive_slot)};",
                "    if (h >= 0 && c->n) {",
                "      int any = 0; for (size_t i = 0; i < c->n; i++) if (c->keep[i] && succ_has_proc(c, i, (int)h)) { any = 1; break; }",
                "      if (any) { holder = (int)h; for (size_t i = 0; i < c->n; i++) c->keep[i] = (uint8_t)(c->keep[i] && succ_has_proc(c, i, (int)h)); }",
                "    }",
            ]
        out += [
            "    if (perr_any(c))",
            "      for (int w = 0; w < BR_PWORDS; w++) for (uint64_t m = c->perr[w]; m; m &= m - 1) {",
            "        int p = w * 64 + __builtin_ctzll(m);",
            f"        if ((holder < 0 || p == holder) && (best < 0 || {prio if self.system.priority_scheduling else 'best'} == best)) br_fail(c); }}",
        ]
        if self.space._initial_claim_error is not None:
            init = self.packed.pack(self.packed.canonical(self.space, self.space.initial_states()[0]))
            data = ", ".join(str(b) for b in init)
            out.insert(0, f"  static const uint8_t BR_INIT[{len(init)}] = {{{data}}};")
            out += [f"    if (slen == {len(init)} && memcmp(s, BR_INIT, slen) == 0) br_fail(c);"]
        out.append("  }")
        return out

    def instance_code(self, names: list[dict[int, str]]) -> list[str]:
        """Return the helpers of a system that starts processes at run time:
        ``model_instance`` (the location function of one instance), and for Promela
        ``enabled()``, priorities and ``xr``/``xs`` claims (``statespace._enabled``,
        ``_getprio``, ``_setprio``, ``_owner``, ``_xacc``, ``_claim``)."""
        lay = self.layout
        out = ["static int loc_code(int tpl, V loc) {", "  switch (tpl) {"]
        for t, nm in enumerate(names):
            if nm:
                out.append(f"  case {t}: return {' || '.join(f'loc == {x}' for x in sorted(nm))};")
        out += ["  default: return 0;", "  }", "}"]
        out.append("static void model_instance(ctx_t *c, const uint8_t *s, uint32_t slen, "
                   "uint32_t b, int pid, int tpl) {")
        out.append("  switch (tpl) {")
        for t, nm in enumerate(names):
            out.append(f"  case {t}:")
            out.extend(self.dispatch(nm, "b", "pid", t, "    "))
            out.append("    break;")
        out += ["  default: break;", "  }", "}"]
        out.append(_ENABLED)
        self.prototypes += [
            "static void model_instance(ctx_t *, const uint8_t *, uint32_t, uint32_t, int, int);",
            "static V model_enabled(ctx_t *, const uint8_t *, uint32_t, V, int);"]
        if self.system.priority_scheduling:
            self.prototypes += ["static V model_getprio(const uint8_t *, V);",
                                "static void model_setprio(ctx_t *, uint8_t *, V, V, int);"]
            offs = [self.packed.segments[t].offsets[p.priority_offset]
                    if p.priority_offset is not None else 0 for t, p in enumerate(lay.processes)]
            out.insert(0, f"static const uint32_t PRIO_OFF[{max(1, len(offs))}] = "
                          f"{{{', '.join(map(str, offs)) or '0'}}};")
            out.append(_PRIORITY)
        if lay.claim_slot is not None:
            out.extend(self.claims_code())
        return out

    def claims_code(self) -> list[str]:
        """Return ``model_claims`` (the xr/xs claims of an instance, evaluated in its
        segment), ``claim_owner``, ``xacc`` and ``claim_new``."""
        lay = self.layout
        most = max(len(p.channel_assertions) for p in self.system.processes)
        out = [f"#define BR_MAXCLAIMS {most}",
               f"#define BR_CLAIM_OFF {self.static_off(lay.claim_slot)}",
               f"#define BR_NGLOBAL {len(lay.channels)}"]
        out.append("static int model_claims(ctx_t *c, const uint8_t *t, int tpl, uint32_t b, "
                   "int pid, int *bits, V *cids) {")
        out.append("  (void)c; (void)t; (void)b; (void)pid; (void)bits; (void)cids;")
        out.append("  switch (tpl) {")
        for t, proc in enumerate(lay.processes):
            claims = proc.process.channel_assertions
            if not claims:
                continue
            ctx = _Ctx("t", "b", "pid", proc, self.packed.segments[t])
            out.append(f"  case {t}:")
            for j, a in enumerate(claims):
                out.append(f"    bits[{j}] = {1 if a.kind == 'xr' else 2}; "
                           f"cids[{j}] = {self.channel_id(a.channel, ctx)};")
            out.append(f"    return {len(claims)};")
        out += ["  default: return 0;", "  }", "}", _CLAIMS]
        self.prototypes += [
            "static void xacc(ctx_t *, const uint8_t *, V, int, int);",
            "static void claim_new(ctx_t *, uint8_t *, int, uint32_t, int, int);"]
        return out

    # ------------------------------------------------------------------ the unit

    def process_words(self) -> int:
        """Return the 64-bit words of a process set: enough for every instance."""
        lay = self.layout
        count = min(self.system.max_instances, MAX_PROCESSES) if lay.dynamic \
            else len(lay.initial_templates)
        return max(1, (count + 63) // 64)

    def source(self) -> str:
        """Return the whole C translation unit."""
        succ = self.successors_code()
        structure = self.structure_code()
        chans = self.channel_tables_code()
        runs = self.run_code()
        provided = self.provided_code()
        exprs = self.expression_code()
        events = self.events_code()
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(template_dir())),
                                 keep_trailing_newline=True, autoescape=False,
                                 undefined=jinja2.StrictUndefined)
        static = {name: (template_dir() / "c" / name).read_text(encoding="utf-8")
                  for name in ("runtime.h", "store.c", "search_bfs.c", "symmetry.c",
                                   "search_ltl.c")}
        return env.get_template("c/model.c.j2").render(
            model=self.system.name.replace("*/", "* /"),
            max_vector=self.max_vector,
            max_fields=self.max_fields,
            static_bytes=self.packed.static_bytes,
            hidden_bytes=self.packed.hidden_bytes,
            fixed=0 if self.layout.dynamic else self.max_vector,
            pwords=self.process_words(),
            pslots=256 if self.layout.dynamic else 1,
            runtime=static["runtime.h"], store=static["store.c"], search=static["search_bfs.c"],
            symmetry=static["symmetry.c"], search_ltl=static["search_ltl.c"],
            structure="\n".join(structure), channels="\n".join(self.channel_tables + chans),
            prototypes="\n".join(self.prototypes),
            runs="\n".join(runs), provided="\n".join(provided),
            functions="\n\n".join(self.functions), successors="\n".join(succ),
            expressions="\n".join(exprs), events="\n".join(events),
            edge_bases=", ".join(map(str, self.edge_ids)) or "0",
            atomic_edges="\n".join(self.atomic_edges_code()),
        )

    def atomic_edges_code(self) -> list[str]:
        """Return ``step_atomic_edge`` (CSP#: does successor i take an edge flagged
        ``Edge.atomic``, by itself, in a synchronisation vector or in a rendezvous; the
        Python engine's ``_AE`` test), or nothing when no edge is flagged."""
        flags = [int(e.atomic) for p in self.system.processes for e in p.edges]
        if not any(flags) or self.promela:
            return []
        return [f"static const uint8_t EDGE_ATOMIC[{len(flags)}] = {{{', '.join(map(str, flags))}}};",
                "static int step_atomic_edge(const ctx_t *c, size_t i) {",
                "  int32_t label = c->labels[i];",
                "  if (label >= 0) return EDGE_ATOMIC[label];",
                "  if (label <= -2000000) {  /* rendezvous: the sender's and the receiver's edge */",
                "    size_t idx = (size_t)(-2000000LL - label), n = c->noffers;",
                "    const offer_t *o = &c->offers[idx / n], *q = &c->offers[idx % n];",
                "    return EDGE_ATOMIC[EDGE_BASE[model_pid_tpl(c, o->pid)] + o->edge]",
                "        || EDGE_ATOMIC[EDGE_BASE[model_pid_tpl(c, q->pid)] + q->edge];",
                "  }",
                "  if (label > -1000000) {  /* synchronisation vector -(label + 1) */",
                "    int32_t v = -label - 1;",
                "    for (int32_t j = BR_VEC_OFF[v]; j < BR_VEC_OFF[v + 1]; j++)",
                "      if (EDGE_ATOMIC[BR_VEC_EDGES[2 * j + 1]]) return 1;",
                "  }",
                "  return 0;",
                "}"]


def _c_string(text: str) -> str:
    """Return ``text`` as a C string literal (every byte outside printable ASCII, the
    quote and the backslash escaped in octal)."""
    out = []
    for b in text.encode("utf-8"):
        ch = chr(b)
        out.append(ch if 32 <= b < 127 and ch not in '"\\?' else f"\\{b:03o}")
    return '"' + "".join(out) + '"'


# PAT.Math's Pow as semantics/library.py's _pow: (int)Math.Pow(a, b) in C#, exact on
# integers; a result outside 32 bits, or 0 to a negative power, is a model runtime error.
_LIB_POW = """static V lib_pow(ctx_t *c, V a, V b) {
  V r = 1;
  if (b >= 0) {
    if (a == 0) r = b == 0;
    else if (a == 1) r = 1;
    else if (a == -1) r = (b & 1) ? -1 : 1;
    else for (V i = 0; i < b; i++)
      if (__builtin_mul_overflow(r, a, &r) || r > 2147483647LL || r < -2147483648LL) { br_fail(c); return 0; }
  } else if (a == 0) { br_fail(c); return 0; }
  else if (a == -1) r = (b & 1) ? -1 : 1;
  else r = a == 1;
  return r;
}"""

MAX_LOCAL_ARRAY = 4096  # cells of a block array or array copy kept on the C stack


def _message_lengths(system: TransitionSystem) -> list[int]:
    """Return the argument counts of every send and receive (in comms and effects)."""
    found: list[int] = []

    def walk(stmts) -> None:
        for st in stmts:
            if isinstance(st, Send | Receive):
                found.append(len(st.args))
            elif isinstance(st, If):
                for _, body in st.branches:
                    walk(body)
                walk(st.otherwise)
            elif isinstance(st, While):
                walk(st.body)

    for p in system.processes:
        for e in p.edges:
            if e.comm is not None:
                walk((e.comm,))
            walk(e.effect)
    return found


# Remote references (statespace._rbase / _rbase_read): the instance with pid ``want``,
# or (want < 0) the running instance of the template with the lowest pid. Read, an
# instance that does not run is BR_NOBASE (reads 0, at no label); written, an error;
# a pid that runs another process is an error either way.
_REMOTE_HELPERS = r"""
static uint32_t model_base_of(const uint8_t *s, int want, int *tpl) {
  uint32_t pos = BR_STATIC_BYTES;
  for (int pid = 0; pid < want; pid++) pos += SEG_SIZE[model_template(s, pos, pid)];
  *tpl = model_template(s, pos, want);
  return pos;
}
static V remote_lowest(const uint8_t *s, int tpl) {
  uint32_t pos = BR_STATIC_BYTES; int n = model_nproc(s);
  for (int pid = 0; pid < n; pid++) { int t = model_template(s, pos, pid);
    if (t == tpl) return pid; pos += SEG_SIZE[t]; }
  return -1;
}
static uint32_t remote_base(ctx_t *c, const uint8_t *s, V want, int tpl) {
  if (want < 0) want = remote_lowest(s, tpl);
  int n = model_nproc(s), t;
  if (want < 0 || want >= n) { br_fail(c); return BR_STATIC_BYTES; }
  uint32_t pos = model_base_of(s, (int)want, &t);
  if (t != tpl) { br_fail(c); return BR_STATIC_BYTES; }
  return pos;
}
static uint32_t remote_read_base(ctx_t *c, const uint8_t *s, V want, int tpl) {
  if (want < 0) want = remote_lowest(s, tpl);
  int n = model_nproc(s), t;
  if (want < 0 || want >= n) return BR_NOBASE;
  uint32_t pos = model_base_of(s, (int)want, &t);
  if (t != tpl) { br_fail(c); return BR_NOBASE; }
  return pos;
}
"""


# enabled(q) (statespace._enabled): does instance q have an executable statement in s?
# Its location function runs in a context one level down; an error there (or asking
# about the process itself, or a rendezvous statement, or 64 levels of enabled()) is an
# error of the caller, and xr/xs violations met there are recorded as the Python
# engine's shared list records them.
_ENABLED = r"""
static ctx_t *ctx_child(ctx_t *c) {
  if (!c->sub) {
    ctx_t *d = calloc(1, sizeof *d);
    if (!d || !succ_reserve(d)) { free(d); c->oom = 1; c->fallback = 1; return NULL; }
    d->depth = c->depth + 1;
    c->sub = d;
  }
  ctx_t *d = c->sub;
  d->n = d->noffers = d->nelses = d->ntmos = 0;
  d->err = d->fallback = 0;
  perr_clear(d);
  return d;
}
static V model_enabled(ctx_t *c, const uint8_t *s, uint32_t slen, V q, int me) {
  if (q == me) { br_fail(c); return 0; }
  int n = model_nproc(s);
  if (q < 0 || q >= n) return 0;
  int tpl;
  uint32_t b = model_base_of(s, (int)q, &tpl);
  V loc = loc_at(s, b, tpl);
  if (q == n - 1 && loc_terminal(tpl, loc)) return 1;  /* it may die */
  if (!loc_code(tpl, loc)) return 0;
  if (c->depth + 1 > 64) { br_fail(c); return 0; }
  ctx_t *d = ctx_child(c);
  if (!d) return 0;
  model_instance(d, s, slen, b, (int)q, tpl);
  int r = 0;
  if (!d->err && !d->fallback) {
    if (d->n) r = 1;
    else if (d->noffers) br_fail(d);  /* enabled() of a process at a rendezvous */
    else if (d->nelses) r = 1;
    else for (size_t i = 0; i < d->ntmos && !r; i++) {
      size_t n0 = d->n;
      d->tmos[i].fn(d, s, slen, d->tmos[i].base, d->tmos[i].pid, 0);
      if (d->err || d->fallback) break;
      if (d->n > n0) r = 1;
    }
  }
  for (int w = 0; w < BR_PWORDS; w++) c->perr[w] |= d->perr[w];
  if (d->oom) c->oom = 1;
  if (d->fallback) { br_fallback(c); return 0; }
  if (d->err) { br_fail(c); return 0; }
  return r;
}
"""

# get_priority / set_priority (statespace._getprio / _setprio)
_PRIORITY = r"""
static V model_getprio(const uint8_t *s, V q) {
  int n = model_nproc(s);
  if (q < 0 || q >= n) return 0;
  int tpl;
  uint32_t b = model_base_of(s, (int)q, &tpl);
  return rd_u8(s, b + PRIO_OFF[tpl]);
}
static void model_setprio(ctx_t *c, uint8_t *t, V q, V v, int checked) {
  int n = model_nproc(t);
  if (q < 0 || q >= n) return;  /* pan: no such process, nothing happens */
  if (checked && (v < 1 || v > 255)) { br_fail(c); return; }
  int tpl;
  uint32_t b = model_base_of(t, (int)q, &tpl);
  wr_u8(t, b + PRIO_OFF[tpl], v & 255);
}
"""

# xr/xs (pan's default build; statespace._owner, _xacc, _claim): a global channel's
# claimant is recorded in its claim slots (pid + 1); a process-local channel's is the
# live instance that claims it. A violation is recorded for the accessing instance
# (for claims made by run: its creator), to count only if pan tries that instance.
_CLAIMS = r"""
static V claim_owner(ctx_t *c, const uint8_t *src, V cid, int bit) {
  if (cid >= 1 && cid <= BR_NGLOBAL)
    return (V)rd_u16(src, BR_CLAIM_OFF + 2 * (2 * ((uint32_t)cid - 1) + (uint32_t)bit - 1)) - 1;
  int n = model_nproc(src);
  uint32_t pos = BR_STATIC_BYTES;
  for (int i = 0; i < n; i++) {
    int t = model_template(src, pos, i);
    int bits[BR_MAXCLAIMS]; V cids[BR_MAXCLAIMS];
    int k = model_claims(c, src, t, pos, i, bits, cids);
    for (int j = 0; j < k; j++) if (bits[j] == bit && cids[j] == cid) return i;
    pos += SEG_SIZE[t];
  }
  return -1;
}
static void xacc(ctx_t *c, const uint8_t *src, V cid, int pid, int mask) {
  for (int bit = 1; bit <= 2; bit++)
    if (mask & bit) {
      V owner = claim_owner(c, src, cid, bit);
      if (owner >= 0 && owner != pid) perr_set(c, pid);
    }
}
static void claim_new(ctx_t *c, uint8_t *t, int tpl, uint32_t b, int pid, int creator) {
  int bits[BR_MAXCLAIMS]; V cids[BR_MAXCLAIMS];
  int k = model_claims(c, t, tpl, b, pid, bits, cids);
  for (int j = 0; j < k; j++) {
    V cid = cids[j]; int bit = bits[j];
    chan_t ch;
    if (cid == 0 || (chan_find(t, cid, &ch) && ch.cap == 0)) { perr_set(c, creator); continue; }
    if (cid >= 1 && cid <= BR_NGLOBAL) {
      uint32_t off = BR_CLAIM_OFF + 2 * (2 * ((uint32_t)cid - 1) + (uint32_t)bit - 1);
      V v = rd_u16(t, off);
      if (v == 0) wr_u16(t, off, pid + 1);
      else if (v != pid + 1) perr_set(c, creator);
      continue;
    }
    int n = model_nproc(t);
    uint32_t pos = BR_STATIC_BYTES;
    for (int i = 0; i < n; i++) {
      int u = model_template(t, pos, i);
      if (i != pid) {
        int ob[BR_MAXCLAIMS]; V oc[BR_MAXCLAIMS];
        int m = model_claims(c, t, u, pos, i, ob, oc);
        for (int q = 0; q < m; q++) if (ob[q] == bit && oc[q] == cid) perr_set(c, creator);
      }
      pos += SEG_SIZE[u];
    }
  }
}
"""


def _slen(ctx: _Ctx) -> str:
    """Return the C length of the vector ``ctx.src`` names."""
    return "slen" if ctx.src == "s" else "c->tlen"


def _lit(v: Any) -> str:
    v = int(v)
    if v == -(2**63):
        return "INT64_MIN"
    if not -(2**63) < v < 2**63:
        raise CUnsupported(f"the constant {v} does not fit in 64 bits")
    return f"{v}LL" if not -(2**31) <= v < 2**31 else str(v)


def generate(space: CompiledStateSpace, expressions: list[Expr]) -> tuple[str, list[bool], PackedLayout]:
    """Return (C source, which expressions were translated, packed layout) of a compiled
    Python state space; raises ``CUnsupported`` naming what cannot be translated."""
    gen = CGenerator(space, expressions)
    return gen.source(), gen.expression_ok, gen.packed


__all__ = ["CUnsupported", "generate", "KINDS"]
