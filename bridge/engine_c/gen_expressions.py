"""The C generator's expressions: reads, writes and places of variables, arrays,
channels and remote references, conversions to declared types, calls and builtins
(the C twin of ``semantics/codegen.py``'s expressions; issue 12).
"""
from __future__ import annotations

from typing import Any

from bridge.diagnostics import Span
from bridge.engine_c.gen_base import (
    _NO,
    MAX_LOCAL_ARRAY,
    CUnsupported,
    _Ctx,
    _kind_const,
    _lit,
    _Place,
    _slen,
)
from bridge.engine_c.gen_library import signature
from bridge.engine_c.layout import (
    kind_of_type,
)
from bridge.ir import (
    ArrayType,
    Binary,
    BoolType,
    Builtin,
    Call,
    ChanPoll,
    ChanQuery,
    ChanType,
    Conditional,
    ElseGuard,
    Enabled,
    Expr,
    GetPriority,
    Index,
    IntType,
    ObjectType,
    Overflow,
    RecvMatch,
    RemoteLabel,
    RemoteVar,
    SourceLanguage,
    Type,
    Unary,
    Var,
    scalar_count,
)
from bridge.ir.library import METHODS
from bridge.semantics.state import ChannelSlot

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


class Expressions:
    """The expression half of ``codegen.CGenerator`` (a mixin: its state is there)."""

    def expr(self, e: Expr, ctx: _Ctx) -> str:
        """Return a C expression (type V) computing ``e`` as the Python engine does."""
        if self._family_literals is not None:
            read = self.family_literal(e, str(ctx.pid))
            if read is not None:  # a literal that differs between a family's members
                return read
        v = self.fold(e)
        if v is not _NO:
            return self.literal(v)
        if isinstance(e, Var | Index | RemoteVar):
            return self.read(e, ctx)
        if isinstance(e, Unary):
            if e.op == "!":
                if self.maybe_library(e.operand, ctx):
                    return f"((V)!{self.number(e.operand, ctx)})"
                return f"((V)!{self.cond(e.operand, ctx)})"
            x = self.number(e.operand, ctx)
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
            pat, has, decl = self.pattern(e.args, ctx, e.channel)
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
        a model runtime error), or of a library class that returns an int
        (``gen_library.py``); a call returning a library value is refused here (it
        yields an id, which only ``library_value`` may use)."""
        sig = signature(e.function)
        if sig is not None:
            if sig[1] in METHODS:
                raise self.unsupported(e.span, f"a value of library class {sig[1]} used as "
                                               f"an integer ('{e.function}')")
            return self.library_call(e, ctx)
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
        raise self.unsupported(e.span, f"Call of the library function '{e.function}'")

    def cond(self, e: Expr, ctx: _Ctx) -> str:
        """Return a C expression whose truth is the truth of ``e`` in Python: where only
        truth matters (guards, conditions, asserts) ``&&``/``||``/``!`` are C's own,
        with the same short-circuit, and no operand value has to be kept."""
        if self.fold(e) is _NO:
            if isinstance(e, Binary) and e.op in ("&&", "||"):
                return f"({self.cond(e.left, ctx)} {e.op} {self.cond(e.right, ctx)})"
            if isinstance(e, Unary) and e.op == "!":
                if self.maybe_library(e.operand, ctx):
                    return f"(!{self.number(e.operand, ctx)})"
                return f"(!{self.cond(e.operand, ctx)})"
        return f"({self.expr(e, ctx)})"

    def number(self, e: Expr, ctx: _Ctx) -> str:
        """Return C code of ``e`` where the Python engine wants a number (``_num``,
        ``_ix`` of ``semantics/codegen.py``: an operand of arithmetic, of an order or
        of a unary operator, an index): a variable of ``mixed_variables`` read through
        ``mix_num``, whose library value is that engine's model error "value of the
        wrong kind"."""
        if self.mixed_read(e, ctx):
            return f"mix_num(c, {self.read(e, ctx, mixed=True)})"
        cls = self.library_class(e, ctx) if self.packed.has_library or ctx.block else None
        if cls is not None:
            return f"lib_num(c, {self.library_value(e, ctx, cls)})"
        return self.expr(e, ctx)

    def maybe_library(self, e: Expr, ctx: _Ctx) -> bool:
        """Return True when ``e`` may yield a library value (``number`` checks it)."""
        return self.mixed_read(e, ctx) or bool(
            (self.packed.has_library or ctx.block) and self.library_class(e, ctx))

    def binary(self, e: Binary, ctx: _Ctx) -> str:
        op = e.op
        if op in ("&&", "||"):
            # a boolean, 0 or 1, with C's short-circuit (as the Python engine)
            return f"((V)({self.cond(e.left, ctx)} {op} {self.cond(e.right, ctx)}))"
        if self.mixed.keys or self.mixed_blocks:
            lib = self.mixed_compare(op, e.left, e.right, ctx)
            if lib is not None:
                return lib
        if self.packed.has_library or ctx.block:
            lib = self.library_compare(op, e.left, e.right, ctx)
            if lib is not None:
                return lib
        if op in ("==", "!=") and (self._is_array_value(e.left, ctx)
                                   or self._is_array_value(e.right, ctx)):
            return self.array_equality(e, ctx)
        read = self.expr if op in ("==", "!=", "xor") else self.number
        a = read(e.left, ctx)
        b = read(e.right, ctx)
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
            if ctx.timeout_false:
                return "((V)0)"
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
                # a block array is a C array even of one cell (offset 0), a scalar a name
                return _Place("0" if isinstance(t, ArrayType) else "", t, None, cname)
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
                for ch in ctx.proc.channels:
                    if ch.name == e.name:  # Promela ``c = d`` on a local channel: its id slot
                        idx = ch.offset - 1
                        _, exact = kind_of_type(ChanType())
                        return _Place(f"{ctx.base} + {ctx.seg.offsets[idx]}", ChanType(),
                                      ctx.seg.kinds[idx], exact=exact)
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
                code = self.literal(iv) if iv is not _NO else self.number(e.index, ctx)
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

    def read(self, e: Expr, ctx: _Ctx, library: bool = False, mixed: bool = False) -> str:
        """Return C code reading a scalar variable (``library``: one of a library class,
        whose id only ``gen_library.py`` may use; ``mixed``: one that may hold an int or
        a library value, ``gen_library.mixed_variables``, which only ``==``, a store
        into another such variable and an event name may read)."""
        if self.is_channel_name(e, ctx):
            return self.channel_id(e, ctx)
        if not mixed and self.is_mixed(e, ctx):
            raise self.unsupported(getattr(e, "span", None), "a variable that may hold a "
                                   "value of a library class used as an integer")
        p = self.place(e, ctx)
        if scalar_count(p.type) != 1:
            raise self.unsupported(getattr(e, "span", None), "a whole array used as a value")
        if isinstance(p.type, ObjectType) and not library and not mixed:
            raise self.unsupported(getattr(e, "span", None), f"a value of library class "
                                   f"{p.type.library} used as an integer (an event name, a "
                                   "message, a process argument or an int variable)")
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

    def pattern(self, args, ctx: _Ctx, channel: Expr) -> tuple[str, str, str]:
        """Return (values array, has array, declarations) of a receive pattern on
        ``channel`` (one whose messages may carry a library value: each value kept as
        the message keeps it, ``message_value``); ``has`` is 1 for a value to match, 2
        for a library value, which matches no message of an int-only channel."""
        vals, has = self.fresh("_pv"), self.fresh("_ph")
        n = max(1, len(args))
        items, flags = [], []
        mixed = self.mixed_channel(channel)
        value = self.message_value if mixed else self.expr
        for a in args:
            if isinstance(a, RecvMatch) and not mixed and self.mixed_read(a.value, ctx):
                # a library value never equals a message of an int-only channel
                # (Python's ==): flag 2 matches no message (ch_matches, the offers)
                code = self.read(a.value, ctx, mixed=True)
                items.append(code)
                flags.append(f"(uint8_t)(({code}) < BR_MIX_TOP ? 2 : 1)")
            elif isinstance(a, RecvMatch):
                items.append(value(a.value, ctx))
                flags.append("1")
            else:
                items.append("0")
                flags.append("0")
        decl = (f"V {vals}[{n}] = {{{', '.join(items) or '0'}}}; "
                f"uint8_t {has}[{n}] = {{{', '.join(flags) or '0'}}};")
        return vals, has, decl

    # ------------------------------------------------------------------ stores

    @staticmethod
    def literal(v: Any) -> str:
        """Return C code of the folded constant ``v``. One beyond 64 bits (the Python
        engine's ints are unbounded: CSP#'s ``99999999999999999999``) hands the run to
        the Python engine where it is evaluated, as an overflow does (``br_fallback``)."""
        if not _fits(int(v)):
            return "({ br_fallback(c); (V)0; })"
        return _lit(v)

    def convert(self, value: str, t: Type, literal: Any = _NO) -> tuple[str, bool]:
        """Return (C code of ``value`` converted for a variable of type ``t`` as
        ``semantics.codegen.store_code`` does, whether the result is within the type's
        range by construction)."""
        if literal is not _NO and not _fits(int(literal)):
            literal = _NO  # ``value`` hands the run to the Python engine (``literal``)
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
        if isinstance(p.type, ObjectType):
            raise self.unsupported(getattr(target, "span", None), "an integer stored in a "
                                   f"variable of library class {p.type.library}")
        conv, exact = self.convert(value, p.type, literal)
        out.append(ind + self.write(p, conv, exact, ctx))

    def copy_array(self, target: Expr, source: Expr, ctx: _Ctx, out: list[str], ind: str) -> None:
        """Emit an array assignment: a raw copy, slot by slot (Python: ``dest = list(src)``,
        an error when the sizes differ)."""
        self.copy_places(self.place(target, ctx, write=True), self.place(source, ctx), ctx,
                         out, ind)

    def copy_places(self, dst: _Place, src: _Place, ctx: _Ctx, out: list[str], ind: str
                    ) -> None:
        """Emit the copy of array ``src`` into array ``dst`` (``copy_array``)."""
        n_dst, n_src = scalar_count(dst.type), scalar_count(src.type)
        if n_dst != n_src:
            out.append(f"{ind}br_fail(c);")
            return
        tmp = self.fresh("_ac")
        if n_src > MAX_LOCAL_ARRAY:
            # a large copy: loops (one line per cell would be a huge function), the
            # cells kept off the C stack (one step at a time on one thread)
            j = self.fresh("_aj")
            out.append(f"{ind}{{ static V {tmp}[{n_src}]; int {j};")
            out.append(f"{ind}  for ({j} = 0; {j} < {n_src}; {j}++) "
                       f"{tmp}[{j}] = {self._element(src, j, ctx)};")
            out.append(f"{ind}  for ({j} = 0; {j} < {n_src}; {j}++) "
                       f"{self._element_store(dst, j, f'{tmp}[{j}]', ctx)}")
            out.append(f"{ind}}}")
            return
        out.append(f"{ind}{{ V {tmp}[{n_src}];")
        for j in range(n_src):
            out.append(f"{ind}  {tmp}[{j}] = {self._element(src, j, ctx)};")
        for j in range(n_dst):
            out.append(f"{ind}  {self._element_store(dst, j, f'{tmp}[{j}]', ctx)}")
        out.append(f"{ind}}}")

    @staticmethod
    def _cell(j: int | str, width: int) -> str:
        """Return the offset of cell ``j`` (a number, or a C index variable's name)."""
        return str(j * width) if isinstance(j, int) else f"({j}) * {width}"

    def _element(self, p: _Place, j: int | str, ctx: _Ctx) -> str:
        if p.block is not None:
            return f"{p.block}[{p.offset} + {j}]" if p.offset else f"{p.block}[{j}]"
        assert p.kind is not None
        cell = self._cell(j, p.kind.width)
        if p.remote:
            return f"rrd_k({_kind_const(p.kind)}, {ctx.src}, {p.offset} + {cell})"
        return f"rd_{p.kind.name}({ctx.src}, {p.offset} + {cell})"

    def _element_store(self, p: _Place, j: int | str, value: str, ctx: _Ctx) -> str:
        if p.block is not None:
            return (f"{p.block}[{p.offset} + {j}] = {value};" if p.offset
                    else f"{p.block}[{j}] = {value};")
        assert p.kind is not None
        cell = self._cell(j, p.kind.width)
        return f"wr_ck(c, {_kind_const(p.kind)}, {ctx.src}, {p.offset} + {cell}, {value});"

    def array_equality(self, e: Binary, ctx: _Ctx) -> str:
        """Return C code of ``a == b`` / ``a != b`` on two whole arrays (of the state or
        of a block, a row of either), as the Python engine compares them: two tuples of
        their cells (a block array read whole is one too: CSP#'s ``==`` compares arrays
        by their cells), equal when they have the same length and the same cells
        (reading them cannot fail). An array whose cells may hold library values
        (``mixed_variables``) against one of ints: a cell of the first equals one of the
        second when it holds that int (``mix_is_int``; a library value is never an
        int). Remote arrays (Promela) stay refused."""
        mixed = (self.is_mixed(e.left, ctx), self.is_mixed(e.right, ctx))
        cell = {(True, False): "mix_is_int({}, {})",
                (False, True): "mix_is_int({1}, {0})"}.get(mixed, "{} == {}")
        places = []
        for side in (e.left, e.right):
            p = self.place(side, ctx) if isinstance(side, Var | Index) else None
            if (p is None or p.remote or (p.kind is None and p.block is None)
                    or not isinstance(p.type, ArrayType)):
                raise self.unsupported(getattr(side, "span", None) or e.span,
                                       "a whole array used as a value")
            places.append(p)
        left, right = places
        n = scalar_count(left.type)
        neg = "" if e.op == "==" else "!"
        if n != scalar_count(right.type):
            # never equal; a cell of each read all the same (a row's index checked)
            return (f"((V)(({self._element(left, 0, ctx)}), ({self._element(right, 0, ctx)}), "
                    f"{neg}0))")
        if n > MAX_LOCAL_ARRAY:
            # a loop (one term per cell would be a huge expression)
            j, same = self.fresh("_ej"), self.fresh("_es")
            return (f"({{ int {j}, {same} = 1; for ({j} = 0; {same} && {j} < {n}; {j}++) "
                    f"{same} = {cell.format(self._element(left, j, ctx), self._element(right, j, ctx))}; "
                    f"(V)({neg}{same}); }})")
        same = " && ".join(cell.format(self._element(left, j, ctx), self._element(right, j, ctx))
                           for j in range(n)) or "1"
        return f"((V)({neg}({same})))"

    def _is_array_value(self, e: Expr, ctx: _Ctx) -> bool:
        if not isinstance(e, Var | Index | RemoteVar) or self.is_channel_name(e, ctx):
            return False
        try:
            return isinstance(self.place(e, ctx).type, ArrayType)
        except CUnsupported:
            return False

    def _is_tuple_value(self, e: Expr, ctx: _Ctx) -> bool:
        """Return True when ``e`` is a whole array whose value is a tuple of its cells
        in the Python engine: one of more than one cell (an array of one cell read
        whole is its cell, ``semantics.codegen.read``: ``e.o`` is ``e.3``)."""
        return self._is_array_value(e, ctx) and scalar_count(self.place(e, ctx).type) > 1

    # ------------------------------------------------------------------ statements


def _fits(v: int) -> bool:
    """Return True when ``v`` is a C ``V`` (64-bit) value."""
    return -(2**63) <= v < 2**63
