"""The lowering context: declarations of a CSP# program (cspsharp.md section 2).

``Lowerer`` holds constants, enums, ``#define`` propositions and macros, variables,
channels, process definitions and ``#alphabet``s; it evaluates constant expressions,
array literals and replicated-operator indices, and (through ``ExpressionLowering``)
lowers expressions and statements.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

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
from bridge.frontends.csp.parse import END_MARK
from bridge.frontends.csp.terms import (
    all_terms,
)
from bridge.ir import (
    UNBOUNDED,
    ArrayType,
    BoolType,
    Call,
    Channel,
    ChanType,
    Const,
    Expr,
    Index,
    IntType,
    ObjectType,
    Overflow,
    Type,
    Var,
    Variable,
)
from bridge.ir.library import LIBRARIES, MATH_LIBRARY, SHIPPED


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
        # ids of the '|||' terms lowered inside their process (steps.py "ILV"): those
        # that static instances cannot give (reached repeatedly, under a choice...)
        self.inline_interleave: set[int] = set()
        # Leaves unfolded lazily (leaf.build_leaf), by leaf.lazy_key: their builders.
        self.lazy_builders: dict[tuple, Any] = {}
        # Complete leaves of a system with lazily unfolded leaves (leaf.build_leaf),
        # kept while its unfolding is completed: (term, builder, process).
        self.built_leaves: dict[tuple, tuple[Any, Any, Any]] = {}
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
        # ``#define f(a, b) body;`` (PAT 3.4.2), used as ``call(f, x, y)``.
        self.param_macros: dict[str, s.Define] = {}
        self._macro_bodies: dict[str, object] | None = None
        self._lines: dict[str, list[str]] = {}
        # ``#import``ed library classes (``Set``...) and whether PAT.Math is imported.
        self.classes: set[str] = set()
        self.math_imported = False
        # ``channel c[N] k;``: the element channels ``c[0]``... (ids in ``c``).
        self.channel_arrays: dict[str, list[str]] = {}
        # Channels used with messages of different arities: name -> the largest one.
        # Their messages carry their arity first (``ir.Channel.arity_tag``).
        self.channel_tags: dict[str, int] = {}
        # Initial values of the scalar variables declared so far (for initialisers).
        self.initial_values: dict[str, int | bool] = {}

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

        self._imports()
        self._refuse_array_arguments()
        for en in self.program.enums:
            for k, (name, span) in enumerate(en.names):
                claim(name, span)
                self.constants[name] = k
                self.const_spans[name] = span
                self.enums.append((name, k))
        defines: dict[str, s.Define] = {}
        unique: list[s.Define] = []
        for d in self.program.defines:
            first = defines.get(d.name)
            if first is not None and self._define_text(first) == self._define_text(d):
                continue  # PAT accepts the same #define twice (e.g. in two included files)
            claim(d.name, d.name_span)
            defines[d.name] = d
            unique.append(d)
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

        for d in unique:
            if d.params is not None:
                self.param_macros[d.name] = d
                continue
            if d.block is not None:
                self.macros[d.name] = d.block
                continue
            try:
                const_of(d.name, d.span)
            except NotConstant:
                self.props[d.name] = d
        for c in self.program.channels:
            cap = self.const_int(c.capacity, "channel capacity")
            if cap < 0:
                raise SemanticError.at(c.capacity.span, f"channel capacity {cap} is negative")
            arity, tagged = self._channel_arity(c.name)
            fields = (UNBOUNDED,) * (arity + tagged)
            if c.size is None:
                self.channels[c.name] = Channel(c.name, cap, fields, c.name_span, tagged)
                continue
            size = self.const_int(c.size, "channel array size")
            if size <= 0:
                raise SemanticError.at(c.size.span, f"channel array size must be positive, "
                                       f"not {size}")
            names = [f"{c.name}[{k}]" for k in range(size)]
            for name in names:
                self.channels[name] = Channel(name, cap, fields, c.name_span, tagged)
            self.channel_arrays[c.name] = names
            # The element ids, for ``c[i]`` with an index known only at run time.
            ids = tuple(Const(list(self.channels).index(n) + 1) for n in names)
            self.global_vars.append(
                Variable(c.name, ArrayType(ChanType(), size), ids, False, c.span)
            )
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

    def source_lines(self, file: str) -> list[str] | None:
        """Return the lines of a source file of the program (cached), or None."""
        lines = self._lines.get(file)
        if lines is None:
            src = self.program.sources.get(file)
            if src is None:
                return None
            lines = self._lines[file] = src.splitlines()
        return lines

    @property
    def macro_bodies(self) -> dict[str, object]:
        """Return the body of every macro, with or without parameters, by name (what a
        term that uses it may read)."""
        if self._macro_bodies is None:
            bodies: dict[str, object] = dict(self.macros)
            for name, d in self.param_macros.items():
                bodies[name] = d.block if d.block is not None else d.expr
            self._macro_bodies = bodies
        return self._macro_bodies

    def _define_text(self, d: s.Define) -> str:
        """Return the source text of ``#define`` ``d`` with whitespace and comments
        normalised (two definitions are the same when these are equal)."""
        src = self.program.sources.get(d.span.file, "")
        lines = src.splitlines()
        sp = d.span
        if not lines or sp.line > len(lines):
            return ""
        end_line = sp.end_line or sp.line
        chunk = lines[sp.line - 1:end_line]
        chunk[-1] = chunk[-1][:(sp.end_col or len(chunk[-1]) + 1) - 1]
        chunk[0] = chunk[0][sp.col - 1:]
        text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", "\n".join(chunk), flags=re.S)
        return " ".join(text.replace(END_MARK, ";").split())

    def _channel_arity(self, name: str) -> tuple[int, bool]:
        """Return the largest number of fields channel ``name`` is used with, and
        whether it is used with several (PAT channels are untyped: ``c!1.2`` and
        ``c!5`` may share one; a receive of k fields takes only a head message of k
        fields, so such messages carry their arity as a first field)."""
        arities = {
            len(t.fields) for t in all_terms(self.program.processes)
            if isinstance(t, (s.SendPrefix, s.RecvPrefix)) and t.channel == name
        }
        if len(arities) > 1:
            self.channel_tags[name] = max(arities)
        return (max(arities) if arities else 1), len(arities) > 1

    def _refuse_array_arguments(self) -> None:
        """Refuse an array literal passed to a process (``P([1, 2])``, which PAT
        accepts): bridge binds parameters to scalar values only."""
        for t in all_terms(self.program.processes):
            if isinstance(t, s.ProcRef):
                for arg in t.args:
                    if isinstance(arg, s.ArrayLit):
                        raise UnsupportedError.at(
                            arg.span,
                            "unsupported construct: an array literal as a process argument",
                            "pass the elements as separate arguments, or keep the array "
                            "in a global variable",
                        )

    def _imports(self) -> None:
        """Record the ``#import``ed libraries bridge implements; refuse the others."""
        for name, span in self.program.imports:
            if name == MATH_LIBRARY:
                self.math_imported = True
            elif name in LIBRARIES:
                self.classes.add(LIBRARIES[name])
            elif name in SHIPPED:
                continue  # a library PAT ships: refused where something of it is used
            else:
                raise UnsupportedError.at(
                    span,
                    f"unsupported construct: #import of the C# library '{name}'",
                    "bridge implements PAT.Math and PAT's library classes "
                    f"{', '.join(sorted(set(LIBRARIES)))} natively; it cannot run other "
                    "C# libraries (inline their operations as event blocks)",
                )

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

    def const_value(self, e: s.SExpr, initialiser: bool = False) -> int | bool:
        """Return the value of a constant expression; in the ``initialiser`` of a
        global variable, a scalar variable declared before has its initial value
        (``var b = a;``: PAT initialises variables in order)."""

        def lookup(name: str, span: Span) -> int | bool:
            if name in self.constants:
                return self.constants[name]
            if initialiser and name in self.initial_values:
                return self.initial_values[name]
            raise NotConstant

        return self._const_expr(e, lookup)

    def const_int(self, e: s.SExpr, what: str, env: Env = ()) -> int:
        value = fold(self.expr(e, Ctx(env=env, pre=True)))
        if not isinstance(value, Const) or isinstance(value.value, bool):
            raise SemanticError.at(e.span, f"{what} must be a constant integer expression")
        return value.value

    def _object_variable(self, v: s.VarDecl) -> Variable:
        """``var<Set> s;`` or ``var<Set> s = new Set();``: a library object, empty at
        the start (PAT creates one with the class's default constructor)."""
        cls = self._library_class(v.object_type or "", v.span)
        if v.dims or v.range is not None or v.wildcard:
            raise UnsupportedError.at(
                v.span, "unsupported construct: an array, range or '*' for a library object"
            )
        if v.init is not None and not (
            isinstance(v.init, s.SNew) and v.init.type_name == cls and not v.init.args
        ):
            raise SemanticError.at(
                v.init.span, f"a 'var<{cls}>' starts as 'new {cls}()' (or with no initialiser)"
            )
        t = ObjectType(cls)
        self.globals[v.name] = GlobalDecl(v.name, t, v.name_span)
        return Variable(v.name, t, Call(f"{cls}.new", (), v.span), v.hidden, v.span)

    def _variable(self, v: s.VarDecl) -> Variable:
        if v.object_type is not None:
            return self._object_variable(v)
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
            values = self._array_values(v.init, initialiser=True)
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
                value = self.const_value(v.init, initialiser=True)
            except NotConstant:
                raise SemanticError.at(
                    v.init.span, f"initial value of '{v.name}' must be a constant expression "
                    "(of constants and variables declared before it)"
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
        if not dims:
            self.initial_values[v.name] = values[0] if values else (False if is_bool else 0)
        self.globals[v.name] = GlobalDecl(v.name, t, v.name_span)
        return Variable(v.name, t, init, v.hidden, v.span)

    def _array_values(self, lit: s.ArrayLit, initialiser: bool = False) -> list[int | bool]:
        out: list[int | bool] = []
        for el in lit.elems:
            if el.kind == "nested":
                assert isinstance(el.first, s.ArrayLit)
                out.extend(self._array_values(el.first, initialiser))
                continue
            try:
                first = self.const_value(el.first, initialiser)  # type: ignore[arg-type]
                second = (self.const_value(el.second, initialiser) if el.second is not None
                          else None)
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
            if name in self.channel_arrays:
                raise SemanticError.at(
                    span, f"'{name}' is a channel array: name an element, '{name}[i]'"
                )
            known = sorted(set(self.channels) | set(self.channel_arrays))
            close = difflib.get_close_matches(name, known, n=1)
            notes = [f"did you mean '{close[0]}'?"] if close else []
            raise SemanticError.at(span, f"undeclared channel '{name}'", *notes)
        return ch

    def channel_ref(self, name: str, index: s.SExpr | None, span: Span, ctx: Ctx
                    ) -> tuple[Expr, Channel]:
        """Return the channel expression of ``name`` or ``name[index]`` and the channel
        (for an array, its first element: they share capacity and fields). An index
        known now names the element; one known only at run time (or out of range, a
        runtime error when the step is taken, as in PAT) reads the id array."""
        if index is None:
            return Var(self.channel(name, span).name, "global", span), self.channels[name]
        elements = self.channel_arrays.get(name)
        if elements is None:
            if name in self.channels:
                raise SemanticError.at(index.span, f"channel '{name}' is not an array")
            self.channel(name, span)  # raises: undeclared
            raise AssertionError("unreachable")  # pragma: no cover
        value, t = self.typed(index, ctx)
        if t == "bool":
            raise SemanticError.at(index.span, "a channel index must be an integer")
        first = self.channels[elements[0]]
        if isinstance(value, Const) and 0 <= int(value.value) < len(elements):
            return Var(elements[int(value.value)], "global", span), first
        return Index(Var(name, "global", span), value, span), first

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
