"""The lowering context: declarations of a CSP# program (cspsharp.md section 2).

``Lowerer`` holds constants, enums, ``#define`` propositions and macros, variables,
channels, process definitions and ``#alphabet``s; it evaluates constant expressions,
array literals and replicated-operator indices, and (through ``ExpressionLowering``)
lowers expressions and statements.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bridge.diagnostics import SemanticError, Span, UnsupportedError
from bridge.frontends.csp import syntax as s
from bridge.frontends.csp.configurations import (
    Env,
    env_set,
)
from bridge.frontends.csp.expressions import (
    Ctx,
    ExpressionLowering,
)
from bridge.frontends.csp.fold import (
    BINOP,
    apply_op,
    event_name,
    fold,
    product,
)
from bridge.frontends.csp.terms import (
    all_terms,
)
from bridge.ir import (
    UNBOUNDED,
    ArrayType,
    BoolType,
    Channel,
    Const,
    Expr,
    IntType,
    Overflow,
    Type,
    Variable,
)


class NotConstant(Exception):
    pass


@dataclass
class GlobalDecl:
    name: str
    type: Type
    span: Span




class Lowerer(ExpressionLowering):
    def __init__(self, program: s.Program) -> None:
        self.program = program
        self.path = program.path
        self.constants: dict[str, int | bool] = {}
        self.const_spans: dict[str, Span] = {}
        self.enums: list[tuple[str, int]] = []
        self.props: dict[str, s.Define] = {}
        self.macros: dict[str, s.SBlock] = {}
        self.globals: dict[str, GlobalDecl] = {}
        self.global_vars: list[Variable] = []
        self.channels: dict[str, Channel] = {}
        self.defs: dict[str, s.ProcDef] = {}
        self.alphabets: dict[str, s.AlphabetDecl] = {}
        self._seq_rest: dict[tuple[int, int], s.Term] = {}
        self._xch_rest: dict[tuple[int, int], s.Term] = {}
        self._prop_cache: dict[str, Expr] = {}
        self._prop_busy: set[str] = set()
        self.event_bases: set[str] = set()
        self.term_names: dict[int, frozenset[str]] = {}

    # -- errors ---------------------------------------------------------------------
    def _undeclared(self, name: str, span: Span, what: str = "name") -> SemanticError:
        known = (
            set(self.constants) | set(self.globals) | set(self.props) | set(self.macros)
        )
        notes = []
        close = difflib.get_close_matches(name, sorted(known), n=1)
        if close:
            where = self._decl_span(close[0])
            note = f"did you mean '{close[0]}'?"
            if where is not None:
                note += f" It is declared at {where}"
            notes.append(note)
        return SemanticError.at(span, f"undeclared {what} '{name}'", *notes)

    def _decl_span(self, name: str) -> Span | None:
        if name in self.globals:
            return self.globals[name].span
        if name in self.const_spans:
            return self.const_spans[name]
        if name in self.props:
            return self.props[name].name_span
        return None

    # -- declarations -----------------------------------------------------------------
    def declare(self) -> None:
        taken: dict[str, Span] = {}

        def claim(name: str, span: Span) -> None:
            if name in taken:
                raise SemanticError.at(
                    span, f"'{name}' is declared twice", f"first declared at {taken[name]}"
                )
            taken[name] = span

        for en in self.program.enums:
            for k, (name, span) in enumerate(en.names):
                claim(name, span)
                self.constants[name] = k
                self.const_spans[name] = span
                self.enums.append((name, k))
        defines = {}
        for d in self.program.defines:
            claim(d.name, d.name_span)
            defines[d.name] = d
        for d in self.program.processes:
            claim(d.name, d.name_span)
            self.defs[d.name] = d
        for c in self.program.channels:
            claim(c.name, c.name_span)
        for v in self.program.variables:
            claim(v.name, v.name_span)
        # constants: defines whose expression folds using only constants
        busy: set[str] = set()

        def const_of(name: str, span: Span) -> int | bool:
            if name in self.constants:
                return self.constants[name]
            d = defines.get(name)
            if d is None or d.expr is None or name in busy:
                raise NotConstant
            busy.add(name)
            try:
                value = self._const_expr(d.expr, const_of)
            finally:
                busy.discard(name)
            self.constants[name] = value
            self.const_spans[name] = d.name_span
            return value

        for d in self.program.defines:
            if d.block is not None:
                self.macros[d.name] = d.block
                continue
            try:
                const_of(d.name, d.span)
            except NotConstant:
                self.props[d.name] = d
        for c in self.program.channels:
            if c.size is not None:
                raise UnsupportedError.at(c.span, "unsupported construct: channel array")
            cap = self.const_int(c.capacity, "channel capacity")
            if cap < 0:
                raise SemanticError.at(c.capacity.span, f"channel capacity {cap} is negative")
            arity = self._channel_arity(c.name)
            self.channels[c.name] = Channel(c.name, cap, (UNBOUNDED,) * arity, c.name_span)
        for v in self.program.variables:
            self.global_vars.append(self._variable(v))
        for a in self.program.alphabets:
            if a.process not in self.defs:
                close = difflib.get_close_matches(a.process, sorted(self.defs), n=1)
                notes = [f"did you mean '{close[0]}'?"] if close else []
                raise SemanticError.at(
                    a.span, f"#alphabet names undeclared process '{a.process}'", *notes
                )
            self.alphabets[a.process] = a

    def _channel_arity(self, name: str) -> int:
        """Return the number of fields of channel ``name`` (from its uses; PAT channels
        are untyped, but every use must agree)."""
        arity: int | None = None
        first: Span | None = None
        for t in all_terms(self.program.processes):
            if isinstance(t, (s.SendPrefix, s.RecvPrefix)) and t.channel == name:
                n = len(t.fields)
                if arity is None:
                    arity, first = n, t.channel_span
                elif n != arity:
                    raise SemanticError.at(
                        t.channel_span,
                        f"channel '{name}' is used with {n} field{'s' if n != 1 else ''} here "
                        f"but with {arity} at {first}",
                    )
        return arity if arity is not None else 1

    def _const_expr(self, e: s.SExpr, lookup: Callable[[str, Span], int | bool]) -> int | bool:
        if isinstance(e, s.SInt):
            return e.value
        if isinstance(e, s.SBool):
            return e.value
        if isinstance(e, s.SName):
            return lookup(e.name, e.span)
        if isinstance(e, s.SUnary):
            a = self._const_expr(e.operand, lookup)
            if e.op == "-" and not isinstance(a, bool):
                return -a
            if e.op == "!" and isinstance(a, bool):
                return not a
            raise NotConstant
        if isinstance(e, s.SBinary):
            a = self._const_expr(e.left, lookup)
            b = self._const_expr(e.right, lookup)
            value = apply_op(BINOP.get(e.op, e.op), a, b)
            if value is None:
                raise NotConstant
            return value
        raise NotConstant

    def const_value(self, e: s.SExpr) -> int | bool:
        def lookup(name: str, span: Span) -> int | bool:
            if name in self.constants:
                return self.constants[name]
            raise NotConstant

        return self._const_expr(e, lookup)

    def const_int(self, e: s.SExpr, what: str, env: Env = ()) -> int:
        value = fold(self.expr(e, Ctx(env=env, pre=True)))
        if not isinstance(value, Const) or isinstance(value.value, bool):
            raise SemanticError.at(e.span, f"{what} must be a constant integer expression")
        return value.value

    def _variable(self, v: s.VarDecl) -> Variable:
        if v.wildcard:
            raise UnsupportedError.at(v.span, "unsupported construct: wildcard initial value '*'")
        dims = [self.const_int(d, "array size") for d in v.dims]
        for d, n in zip(v.dims, dims, strict=True):
            if n <= 0:
                raise SemanticError.at(d.span, f"array size must be positive, not {n}")
        lo = hi = None
        if v.range is not None:
            lo = self.const_int(v.range[0], "range bound") if v.range[0] is not None else None
            hi = self.const_int(v.range[1], "range bound") if v.range[1] is not None else None
        values: list[int | bool] | None = None
        init_span = v.span
        if isinstance(v.init, s.ArrayLit):
            values = self._array_values(v.init)
            init_span = v.init.span
            if not dims:
                dims = [len(values)]
            elif len(values) != product(dims):
                raise SemanticError.at(
                    v.init.span,
                    f"array '{v.name}' has {product(dims)} elements but its initialiser "
                    f"has {len(values)}",
                )
        elif v.init is not None:
            init_span = v.init.span
            try:
                value = self.const_value(v.init)
            except NotConstant:
                raise SemanticError.at(
                    v.init.span, f"initial value of '{v.name}' must be a constant expression"
                ) from None
            values = [value] * (product(dims) if dims else 1)
        is_bool = bool(values) and all(isinstance(x, bool) for x in values)
        if values and not is_bool and any(isinstance(x, bool) for x in values):
            raise SemanticError.at(init_span, f"initialiser of '{v.name}' mixes bool and int")
        if v.range is not None:
            if is_bool:
                raise SemanticError.at(v.span, f"a range is declared for bool variable '{v.name}'")
            scalar: Type = IntType(lo, hi, Overflow.ERROR, "var")
            for x in values or [0]:
                if (lo is not None and x < lo) or (hi is not None and x > hi):
                    raise SemanticError.at(
                        init_span,
                        f"initial value {x} of '{v.name}' is outside its range "
                        f"{{{'' if lo is None else lo}..{'' if hi is None else hi}}}",
                    )
        elif is_bool:
            scalar = BoolType()
        else:
            scalar = UNBOUNDED
        t: Type = scalar
        for n in reversed(dims):
            t = ArrayType(t, n)
        init: Expr | tuple[Expr, ...] | None = None
        if values is not None:
            if dims:
                init = tuple(Const(x) for x in values)
            else:
                init = Const(values[0])
        self.globals[v.name] = GlobalDecl(v.name, t, v.name_span)
        return Variable(v.name, t, init, v.hidden, v.span)

    def _array_values(self, lit: s.ArrayLit) -> list[int | bool]:
        out: list[int | bool] = []
        for el in lit.elems:
            if el.kind == "nested":
                assert isinstance(el.first, s.ArrayLit)
                out.extend(self._array_values(el.first))
                continue
            try:
                first = self.const_value(el.first)  # type: ignore[arg-type]
                second = self.const_value(el.second) if el.second is not None else None
            except NotConstant:
                raise SemanticError.at(
                    el.span, "array literal elements must be constant expressions"
                ) from None
            if el.kind == "single":
                out.append(first)
            elif el.kind == "repeat":
                if isinstance(second, bool) or second is None or second < 0:
                    raise SemanticError.at(el.span, "repeat count must be a non-negative integer")
                out.extend([first] * second)
            else:
                if isinstance(first, bool) or isinstance(second, bool) or second is None:
                    raise SemanticError.at(el.span, "range bounds must be integers")
                step = 1 if second >= first else -1
                out.extend(range(first, second + step, step))
        return out

    # -- processes, channels, indices --------------------------------------------------
    def definition(self, ref: s.ProcRef) -> s.ProcDef:
        d = self.defs.get(ref.name)
        if d is None:
            close = difflib.get_close_matches(ref.name, sorted(self.defs), n=1)
            notes = [f"did you mean '{close[0]}'? It is defined at {self.defs[close[0]].name_span}"] if (
                close
            ) else []
            raise SemanticError.at(ref.span, f"undeclared process '{ref.name}'", *notes)
        if len(d.params) != len(ref.args):
            raise SemanticError.at(
                ref.span,
                f"process '{ref.name}' takes {len(d.params)} argument"
                f"{'' if len(d.params) == 1 else 's'} but {len(ref.args)} "
                f"{'was' if len(ref.args) == 1 else 'were'} given",
                f"'{ref.name}' is defined at {d.name_span}",
            )
        return d

    def channel(self, name: str, span: Span) -> Channel:
        ch = self.channels.get(name)
        if ch is None:
            close = difflib.get_close_matches(name, sorted(self.channels), n=1)
            notes = [f"did you mean '{close[0]}'?"] if close else []
            raise SemanticError.at(span, f"undeclared channel '{name}'", *notes)
        return ch

    def seq_rest(self, term: s.Binary, k: int) -> s.Term:
        if k == len(term.operands) - 1:
            return term.operands[k]
        key = (id(term), k)
        rest = self._seq_rest.get(key)
        if rest is None:
            ops = term.operands[k:]
            rest = s.Binary(Span(ops[0].span.file, ops[0].span.line, ops[0].span.col,
                                 term.span.end_line, term.span.end_col), ";", ops)
            self._seq_rest[key] = rest
        return rest

    def seq_prefix(self, term: s.Binary, k: int) -> s.Term:
        """Return the (cached) term of the first ``k`` operands of a ``;`` chain."""
        key = (id(term), -k)
        prefix = self._seq_rest.get(key)
        if prefix is None:
            ops = term.operands[:k]
            last = ops[-1].span
            prefix = s.Binary(Span(term.span.file, term.span.line, term.span.col,
                                   last.end_line, last.end_col), ";", ops)
            self._seq_rest[key] = prefix
        return prefix

    def index_envs(self, index: s.Index, env: Env) -> list[Env]:
        if index.unbounded:
            raise UnsupportedError.at(index.span, "unsupported construct: unbounded index '{..}'")
        if index.count is not None:
            n = self.const_int(index.count, "replication count", env)
            return [env] * n
        envs = [env]
        for iv in index.variables:
            values: list[int]
            if iv.values is not None:
                values = [self.const_int(v, "index value", env) for v in iv.values]
            else:
                assert iv.lo is not None and iv.hi is not None
                lo = self.const_int(iv.lo, "index bound", env)
                hi = self.const_int(iv.hi, "index bound", env)
                values = list(range(lo, hi + 1))
            envs = [env_set(e, {iv.name: Const(v)}) for e in envs for v in values]
        return envs

    def alphabet_items(self, items: Iterable[s.AlphaItem], env: Env) -> set[str]:
        out: set[str] = set()
        for item in items:
            envs = [env]
            if item.variables:
                envs = self.index_envs(s.Index(variables=item.variables, span=item.span), env)
            for e in envs:
                values = []
                for c in item.event.components:
                    v = self.expr(c, Ctx(env=e))
                    if not isinstance(v, Const):
                        raise SemanticError.at(c.span, "alphabet event components must be constants")
                    values.append(v.value)
                out.add(event_name(item.event.name, values))
        return out
