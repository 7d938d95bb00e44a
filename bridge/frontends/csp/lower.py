"""Return the IR ``ModelFile`` of a parsed CSP# program (cspsharp.md sections 2-7).

Lowering strategy
-----------------
* ``#define`` with an expression that folds to a constant (over literals, enums and
  other constants) is a constant; any other ``#define`` expression is a state
  proposition (``Proposition``), also expanded like a macro where a guard or block uses
  its name (section 9.6); ``#define name { ... }`` is a statement macro for blocks.
* Variables: ``var x = 0`` -> ``UNBOUNDED`` int (bool when initialised with a bool),
  ``var x : {lo..hi}`` -> ``IntType(lo, hi, Overflow.ERROR)``, arrays of either,
  ``hvar`` -> ``Variable.hidden``. Channels keep their capacity; a synchronous step is
  labelled ``c.v`` and an asynchronous one ``c!v``/``c?v`` by the engine (edges carry
  ``comm`` and no event).
* Each ``#assert`` target gives one ``TransitionSystem`` (distinct targets in order of
  first use). The target is unfolded (constant arguments) through ``|||``/``||``
  (binary and indexed, nested ones flattened) into a composition tree; every other
  operand is a *leaf* that becomes one instance of a ``Process``. Identical leaves
  (``||| {4} @ P()``) share their ``Process``. ``|||`` is an ``Interleave`` unless two
  or more operands can terminate, in which case it is a ``Parallel`` whose alphabets
  are ``{"terminate"}`` (PAT's ``|||`` terminates jointly). ``||`` is a ``Parallel``
  whose alphabets are the leaf's plain events (no tau, channel or data-operation
  events) with constant components, plus ``terminate``, or the ``#alphabet``
  override; a plain event with a state-dependent component in a ``||`` operand
  without ``#alphabet`` is an error (PAT needs ``#alphabet`` there too).
* A leaf is explored symbolically: a location is a *configuration* (the process term,
  the values bound to the parameters/inputs/index variables in scope, and the pending
  sequential continuations); outgoing edges are the first steps of that term
  (section 7 rules); targets are normalised (process references unfolded, ``Skip ; Q``
  -> ``Q``, ``atomic{Skip}`` -> ``Skip``), so tail recursion ``P(i)`` maps back to an
  existing location. Constant parameters are folded (``Node(0)`` and ``Node(1)`` become
  different processes, each with its own locations).
* Parameters bound to state-dependent values and channel-input variables become
  process-local variables. As in PAT, an argument that reads global variables is
  evaluated when the reference is unfolded, i.e. in the state where the next step is
  computed: it is kept symbolically in the location and captured into a local by the
  next step (guards, channel arguments and event components use the expression,
  evaluated in the pre-state). Locals that the target no longer needs are reset to 0
  on the edge, so the state vector is canonical (PAT states hold no dead values).
* ``Skip`` has one ``terminate`` step to a terminal (``end``) location; ``Stop`` has
  none. ``if``/``case``/``<>``/``ifb`` resolution are tau steps; a ``case`` with no
  true condition and no ``default`` takes a tau step to ``Skip`` (section 9.7); an
  ``if`` without ``else`` likewise. ``atomic{P}``: every location inside is atomic,
  including the first (PAT >= 3.4.2, section 9.2).
* Event blocks become effects (``If``/``While``/``LocalVar``/``Assign``); ``%`` is
  ``mod``; the edge is marked ``data_operation`` (never a barrier). ``c?[g]x`` puts
  ``g`` in ``Receive.condition``. Event components are evaluated in the pre-state.
* ``P interrupt Q`` and ``P \\ {...}`` inside a leaf follow section 7 (hidden events
  with constant names become tau; P's ``terminate`` under ``;`` becomes tau).
  ``call(cempty|cfull|ccount|csize, c)`` are channel queries; ``(&& i:{..}@e)`` and
  its ``||``/``xor`` forms expand over the constant index.
* Names: processes are called after the leaf (``Node(0)``), instances after their
  process (``V()[0]``, ``V()[1]`` for copies), systems after the target (``Sys``),
  properties after their text (``Sys deadlockfree``); ``Property.number`` is the
  1-based position of the assertion in the file.

* A sequential *prefix* before the asserted composition, ``Init(); (A ||| B)``: the
  prefix is an instance whose last step (its terminate under ';', a tau, or the step
  reaching Skip) sets a fresh global ``_startedK`` that guards the first locations of
  the composition's leaves.
* A composition nested in a leaf, ``init -> (A ||| B)`` or ``(A || B); C``, reached at
  most once in any run from each place (``Round(0); Round(1)`` reaches one written
  composition from two places: two sets of operands) (the leaf's locations before it and after it are disjoint, and
  the leaf cannot end before it): its operands are static instances that start
  dormant (their first location waits for a global ``_startedK`` set by the leaf's step
  that reaches the composition: no extra step). If the leaf ends there, its only step
  is a ``terminate`` that is a barrier with the operands' joint terminate
  (``Parallel`` on ``terminate``). Under ``;`` the operands park at Skip (no terminate
  step) counting a global ``_joinedK`` down, and the leaf's waiting location has C's
  edges, enabled at 0: PAT's ``Sequence`` is C at once when its first part
  ``IsSkip()``, which a composition of Skips is, so there is no tau (C re-entered later
  is that same location). The bookkeeping globals are functions of the control
  locations, so there is one state per PAT state. Barriers among the operands are
  those of the same composition at top level; the enclosing ``||`` alphabet of the
  leaf includes its operands' events (or is its ``#alphabet``).

Rejected with ``UnsupportedError`` (named construct and span): parallel composition
nested under recursion (a process call cycle leads back to it), in a loop, under a
choice, guard, ``atomic``, hiding or ``interrupt``, whose continuation is also reached
without it, or whose operands read a value bound at run time; a composition followed
by ';' with an operand that may terminate from a choice (``Skip [] a -> Skip``) or
that is ``P; (Skip ||| ...)``; hiding above a ``||`` composition
(above ``|||`` it is pushed into every operand); hiding of events with
state-dependent components or of channel events; ``refines``; channel
arrays; other ``call``s; ``var x = *``; ``||| {..}``; process arguments that are
arrays.
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from bridge.diagnostics import SemanticError, Span, UnsupportedError
from bridge.frontends.csp import syntax as s
from bridge.ir import (
    UNBOUNDED,
    ArrayType,
    Assign,
    Binary,
    BoolType,
    Channel,
    ChanQuery,
    Composition,
    Const,
    Edge,
    Event,
    Expr,
    FairnessMark,
    If,
    Index,
    Instance,
    InstanceRef,
    Interleave,
    IntType,
    LocalVar,
    Location,
    ModelFile,
    Overflow,
    Parallel,
    Process,
    Property,
    PropertyKind,
    Proposition,
    Receive,
    RecvBind,
    RecvMatch,
    Send,
    SourceLanguage,
    Stmt,
    TransitionSystem,
    Type,
    Unary,
    Var,
    Variable,
    While,
)

TERMINATE = "terminate"
MAX_LOCATIONS = 20_000
MAX_UNFOLD = 500

_BINOP = {"%": "mod"}
_CHANNEL_QUERIES = {"cempty": "empty", "cfull": "full", "ccount": "len", "csize": "size"}
_BOOL_OPS = {"&&", "||", "xor"}
_CMP_OPS = {"==", "!=", "<", "<=", ">", ">="}
_INT_OPS = {"+", "-", "*", "/", "%", "&", "|", "^"}


class _NotConstant(Exception):
    pass


# ---------------------------------------------------------------------------------
# Expression helpers


def fold(e: Expr) -> Expr:
    """Return ``e`` with constant sub-expressions evaluated (PAT semantics)."""
    if isinstance(e, Unary):
        a = fold(e.operand)
        if isinstance(a, Const):
            if e.op == "-" and not isinstance(a.value, bool):
                return Const(-a.value)
            if e.op == "!" and isinstance(a.value, bool):
                return Const(not a.value)
        return Unary(e.op, a, e.span) if a is not e.operand else e
    if isinstance(e, Binary):
        a = fold(e.left)
        if e.op in ("&&", "||") and isinstance(a, Const) and isinstance(a.value, bool):
            if e.op == "&&" and not a.value:
                return Const(False)
            if e.op == "||" and a.value:
                return Const(True)
            b = fold(e.right)
            return b
        b = fold(e.right)
        if isinstance(a, Const) and isinstance(b, Const):
            value = _apply(e.op, a.value, b.value)
            if value is not None:
                return Const(value)
        if a is e.left and b is e.right:
            return e
        return Binary(e.op, a, b, e.span)
    if isinstance(e, Index):
        i = fold(e.index)
        return Index(e.base, i, e.span) if i is not e.index else e
    return e


def _apply(op: str, a: int | bool, b: int | bool) -> int | bool | None:
    ints = not isinstance(a, bool) and not isinstance(b, bool)
    bools = isinstance(a, bool) and isinstance(b, bool)
    if op in ("==", "!="):
        if ints or bools:
            return (a == b) if op == "==" else (a != b)
        return None
    if op in ("&&", "||", "xor") and bools:
        return {"&&": a and b, "||": a or b, "xor": a != b}[op]
    if not ints:
        return None
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            return None
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    if op == "mod":
        if b == 0:
            return None
        return a % b
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    if op == ">=":
        return a >= b
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    return None


def _map_expr(e: Expr, fn: Callable[[Expr], Expr | None]) -> Expr:
    """Return ``e`` rewritten bottom-up by ``fn`` (None: keep the node)."""
    r = fn(e)
    if r is not None:
        return r
    if isinstance(e, Unary):
        return Unary(e.op, _map_expr(e.operand, fn), e.span)
    if isinstance(e, Binary):
        return Binary(e.op, _map_expr(e.left, fn), _map_expr(e.right, fn), e.span)
    if isinstance(e, Index):
        return Index(_map_expr(e.base, fn), _map_expr(e.index, fn), e.span)
    return e


def _map_stmt(st: Stmt, fn: Callable[[Expr], Expr | None]) -> Stmt:
    if isinstance(st, Assign):
        return Assign(_map_expr(st.target, fn), _map_expr(st.value, fn), st.span)
    if isinstance(st, If):
        return If(
            tuple((_map_expr(c, fn), tuple(_map_stmt(x, fn) for x in b)) for c, b in st.branches),
            tuple(_map_stmt(x, fn) for x in st.otherwise),
            st.span,
        )
    if isinstance(st, While):
        return While(_map_expr(st.cond, fn), tuple(_map_stmt(x, fn) for x in st.body), st.span)
    if isinstance(st, LocalVar):
        init = st.init
        if isinstance(init, tuple):
            init = tuple(_map_expr(x, fn) for x in init)
        elif init is not None:
            init = _map_expr(init, fn)
        return LocalVar(st.name, st.type, init, st.span)
    return st


def _walk(e: Expr) -> Iterable[Expr]:
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        if isinstance(x, Unary):
            stack.append(x.operand)
        elif isinstance(x, Binary):
            stack.extend((x.left, x.right))
        elif isinstance(x, Index):
            stack.extend((x.base, x.index))


def _without_spans(e: Expr) -> Expr:
    """Return ``e`` with every span removed (location keys compare expressions)."""
    if isinstance(e, Unary):
        return Unary(e.op, _without_spans(e.operand))
    if isinstance(e, Binary):
        return Binary(e.op, _without_spans(e.left), _without_spans(e.right))
    if isinstance(e, Index):
        return Index(_without_spans(e.base), _without_spans(e.index))
    if dataclasses.is_dataclass(e) and hasattr(e, "span"):
        return dataclasses.replace(e, span=None)
    return e


def _locals_in(e: Expr) -> set[str]:
    return {x.name for x in _walk(e) if isinstance(x, Var) and x.scope == "local"}


def _reads_globals(e: Expr) -> bool:
    return any(isinstance(x, Var) and x.scope == "global" for x in _walk(e))


def _stmt_locals(st: Stmt) -> set[str]:
    found: set[str] = set()

    def fn(x: Expr) -> Expr | None:
        if isinstance(x, Var) and x.scope == "local":
            found.add(x.name)
        return None

    _map_stmt(st, fn)
    return found


def _and(a: Expr | None, b: Expr | None) -> Expr | None:
    if a is None:
        return b
    if b is None:
        return a
    return fold(Binary("&&", a, b))


def _not(a: Expr) -> Expr:
    return fold(Unary("!", a))


# ---------------------------------------------------------------------------------
# Configurations (locations of a leaf)
#
# ("T", term, env)    a syntax term with its bindings (env: sorted tuple of (name, Expr))
# ("SEQ", cfg, cfg)   P ; Q  (the right side is an unnormalised ("T", ...))
# ("ATOM", cfg)       atomic { P }
# ("XCH", (cfg, ...)) external choice [*] (tau steps keep it open)
# ("INTR", cfg, cfg)  P interrupt Q
# ("HIDE", cfg, names, bases)  P \ {...}: constant event names hidden, their bases
# SKIP / STOP / TERM

SKIP = ("SKIP",)
STOP = ("STOP",)
TERM = ("TERM",)

Cfg = tuple
Env = tuple[tuple[str, Expr], ...]


def _env_get(env: Env, name: str) -> Expr | None:
    for k, v in env:
        if k == name:
            return v
    return None


def _env_set(env: Env, items: dict[str, Expr]) -> Env:
    d = dict(env)
    d.update(items)
    return tuple(sorted(d.items()))


def _cfg_envs(cfg: Cfg) -> Iterable[Env]:
    stack = [cfg]
    while stack:
        c = stack.pop()
        if c[0] == "T":
            yield c[2]
        elif c[0] == "SEQ":
            stack.extend((c[1], c[2]))
        elif c[0] in ("ATOM", "HIDE"):
            stack.append(c[1])
        elif c[0] == "INTR":
            stack.extend((c[1], c[2]))
        elif c[0] == "XCH":
            stack.extend(c[1])


def _cfg_locals(cfg: Cfg) -> set[str]:
    out: set[str] = set()
    for env in _cfg_envs(cfg):
        for _, v in env:
            out |= _locals_in(v)
    return out


def _cfg_map_env(cfg: Cfg, fn: Callable[[Env], Env]) -> Cfg:
    if cfg[0] == "T":
        return ("T", cfg[1], fn(cfg[2]))
    if cfg[0] == "SEQ":
        return ("SEQ", _cfg_map_env(cfg[1], fn), _cfg_map_env(cfg[2], fn))
    if cfg[0] == "ATOM":
        return ("ATOM", _cfg_map_env(cfg[1], fn))
    if cfg[0] == "HIDE":
        return ("HIDE", _cfg_map_env(cfg[1], fn), cfg[2], cfg[3])
    if cfg[0] == "INTR":
        return ("INTR", _cfg_map_env(cfg[1], fn), _cfg_map_env(cfg[2], fn))
    if cfg[0] == "XCH":
        return ("XCH", tuple(_cfg_map_env(c, fn) for c in cfg[1]))
    return cfg


def _cfg_atomic(cfg: Cfg) -> bool:
    while cfg[0] in ("SEQ", "HIDE", "INTR"):
        cfg = cfg[1]
    return cfg[0] == "ATOM"


@dataclass
class _Raw:
    """A first step of a configuration, before its target is normalised."""

    guard: Expr | None
    comm: Send | Receive | None
    effect: list[Stmt]
    event: Event | None
    target: Cfg
    span: Span | None
    text: str = ""
    fairness: FairnessMark | None = None
    data_operation: bool = False
    captures: dict[str, Expr] = field(default_factory=dict)


_PLACEHOLDER = "\x00"


# ---------------------------------------------------------------------------------
# The lowering context


@dataclass
class _Global:
    name: str
    type: Type
    span: Span


@dataclass
class _Leaf:
    term: s.Term
    env: Env
    name: str
    def_name: str | None
    span: Span
    gate_set: str | None = None  # a sequential prefix: its end sets this global
    gate: Expr | None = None  # must hold for the edges of the first location
    hidden: frozenset[str] = frozenset()  # hiding above the composition (constant names)
    hidden_bases: frozenset[str] = frozenset()
    # An operand of a nested composition followed by ';': it parks at its Skip (no
    # terminate step) and the step reaching Skip counts this global down to 0.
    park: str | None = None
    # Allocates a fresh hidden-bookkeeping global name (nested compositions).
    fresh_global: Callable[[str], str] | None = None
    # An operand of a nested composition: written inline, it does not take the
    # '#alphabet' of the definition it is written in (that one is its owner's).
    nested_op: bool = False
    # Runs after a sequential prefix (``P; (A ||| B)``): it starts when P hands over.
    behind_prefix: bool = False


@dataclass
class _Nested:
    """A parallel composition reached by a step of a leaf (or first in it): its
    operands become static instances whose first edges wait for ``start`` (None: they
    start at once). ``flag``: the global the entering step sets (``start`` is then
    that flag); ``fixed``: started otherwise (first in the leaf, or when a previous
    composition ends), so no edge may enter it. ``kind`` "tail": the leaf ends there
    (its terminate joins the operands'); "seq": ``(A || B); C``, the operands count
    ``join`` down as they reach Skip and at 0 the leaf's location behaves as C
    (PAT: ``P ; C`` is C as soon as P is a composition of Skips; cspsharp.md 7)."""

    cfg: Cfg
    kind: str
    start: Expr | None
    flag: str | None
    fixed: bool
    join: str | None
    span: Span
    # The leaf location whose ';' chain starts with it (a composition written once
    # but reached by two calls, ``Round(0); Round(1)``, is two compositions), or
    # ("CHAIN", key of the composition it follows, cfg).
    key: Cfg = ()

    def done(self) -> Expr:
        """Return the condition under which the composition has ended ("seq")."""
        assert self.join is not None
        return _and(self.start, Binary("==", Var(self.join, "global"), Const(0)))


class _Lowerer:
    def __init__(self, program: s.Program) -> None:
        self.program = program
        self.path = program.path
        self.constants: dict[str, int | bool] = {}
        self.const_spans: dict[str, Span] = {}
        self.enums: list[tuple[str, int]] = []
        self.props: dict[str, s.Define] = {}
        self.macros: dict[str, s.SBlock] = {}
        self.globals: dict[str, _Global] = {}
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
                raise _NotConstant
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
            except _NotConstant:
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
        for t in _all_terms(self.program.processes):
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
            raise _NotConstant
        if isinstance(e, s.SBinary):
            a = self._const_expr(e.left, lookup)
            b = self._const_expr(e.right, lookup)
            value = _apply(_BINOP.get(e.op, e.op), a, b)
            if value is None:
                raise _NotConstant
            return value
        raise _NotConstant

    def const_value(self, e: s.SExpr) -> int | bool:
        def lookup(name: str, span: Span) -> int | bool:
            if name in self.constants:
                return self.constants[name]
            raise _NotConstant

        return self._const_expr(e, lookup)

    def const_int(self, e: s.SExpr, what: str, env: Env = ()) -> int:
        value = fold(self.expr(e, _Ctx(env=env, pre=True)))
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
            elif len(values) != _product(dims):
                raise SemanticError.at(
                    v.init.span,
                    f"array '{v.name}' has {_product(dims)} elements but its initialiser "
                    f"has {len(values)}",
                )
        elif v.init is not None:
            init_span = v.init.span
            try:
                value = self.const_value(v.init)
            except _NotConstant:
                raise SemanticError.at(
                    v.init.span, f"initial value of '{v.name}' must be a constant expression"
                ) from None
            values = [value] * (_product(dims) if dims else 1)
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
        self.globals[v.name] = _Global(v.name, t, v.name_span)
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
            except _NotConstant:
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
            envs = [_env_set(e, {iv.name: Const(v)}) for e in envs for v in values]
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
                    v = self.expr(c, _Ctx(env=e))
                    if not isinstance(v, Const):
                        raise SemanticError.at(c.span, "alphabet event components must be constants")
                    values.append(v.value)
                out.add(_event_name(item.event.name, values))
        return out

    # -- expressions --------------------------------------------------------------------
    def expr(self, e: s.SExpr, ctx: _Ctx) -> Expr:
        """Return the IR expression of ``e`` under ``ctx`` (names resolved, folded)."""
        result, _ = self._expr(e, ctx)
        return fold(result)

    def typed(self, e: s.SExpr, ctx: _Ctx) -> tuple[Expr, str | None]:
        result, t = self._expr(e, ctx)
        return fold(result), t

    def bool_expr(self, e: s.SExpr, ctx: _Ctx, what: str) -> Expr:
        result, t = self._expr(e, ctx)
        if t == "int":
            raise SemanticError.at(e.span, f"{what} must be a boolean expression, not an integer")
        return fold(result)

    def _name(self, name: str, span: Span, ctx: _Ctx) -> tuple[Expr, str | None]:
        if name in ctx.block_locals:
            return Var(name, "block", span), ctx.block_locals[name]
        bound = _env_get(ctx.env, name)
        if bound is not None:
            return bound, _const_type(bound)
        if name in self.globals:
            g = self.globals[name]
            return Var(name, "global", span), _type_word(g.type)
        if name in self.constants:
            value = self.constants[name]
            return Const(value, span), "bool" if isinstance(value, bool) else "int"
        if name in self.props:
            return self._proposition(name, span), "bool"
        if name in self.channels:
            raise SemanticError.at(span, f"channel '{name}' used as a value")
        if name in self.defs:
            raise SemanticError.at(span, f"process '{name}' used as a value")
        raise self._undeclared(name, span, "variable")

    def _proposition(self, name: str, span: Span) -> Expr:
        if name in self._prop_cache:
            return self._prop_cache[name]
        if name in self._prop_busy:
            raise SemanticError.at(span, f"#define '{name}' refers to itself")
        self._prop_busy.add(name)
        try:
            d = self.props[name]
            assert d.expr is not None
            value = self.expr(d.expr, _Ctx())
        finally:
            self._prop_busy.discard(name)
        self._prop_cache[name] = value
        return value

    def _expr(self, e: s.SExpr, ctx: _Ctx) -> tuple[Expr, str | None]:
        if isinstance(e, s.SInt):
            return Const(e.value, e.span), "int"
        if isinstance(e, s.SBool):
            return Const(e.value, e.span), "bool"
        if isinstance(e, s.SName):
            return self._name(e.name, e.span, ctx)
        if isinstance(e, s.SIndex):
            base, bt = self._expr(e.base, ctx)
            idx, it = self._expr(e.index, ctx)
            if it == "bool":
                raise SemanticError.at(e.index.span, "array index must be an integer")
            if bt in ("int", "bool"):
                raise SemanticError.at(e.base.span, "indexing a value that is not an array")
            elem = bt[len("array:"):] if bt and bt.startswith("array:") else None
            return Index(base, idx, e.span), elem
        if isinstance(e, s.SUnary):
            a, t = self._expr(e.operand, ctx)
            if e.op == "-":
                if t == "bool":
                    raise SemanticError.at(e.span, "type clash: unary '-' applied to a boolean")
                return Unary("-", a, e.span), "int"
            if t == "int":
                raise SemanticError.at(e.span, "type clash: '!' applied to an integer")
            return Unary("!", a, e.span), "bool"
        if isinstance(e, s.SBinary):
            a, ta = self._expr(e.left, ctx)
            b, tb = self._expr(e.right, ctx)
            op = e.op
            if op in _BOOL_OPS:
                for t, side in ((ta, e.left), (tb, e.right)):
                    if t == "int":
                        raise SemanticError.at(
                            side.span, f"type clash: '{op}' needs booleans, this is an integer"
                        )
                return Binary(op, a, b, e.span), "bool"
            if op in _INT_OPS or op in ("<", "<=", ">", ">="):
                for t, side in ((ta, e.left), (tb, e.right)):
                    if t == "bool":
                        raise SemanticError.at(
                            side.span, f"type clash: '{op}' needs integers, this is a boolean"
                        )
                result = "bool" if op in _CMP_OPS else "int"
                return Binary(_BINOP.get(op, op), a, b, e.span), result
            if op in ("==", "!="):
                if {ta, tb} == {"int", "bool"}:
                    raise SemanticError.at(
                        e.span, f"type clash: '{op}' compares an integer with a boolean"
                    )
                return Binary(op, a, b, e.span), "bool"
            raise SemanticError.at(e.span, f"unknown operator '{op}'")  # pragma: no cover
        if isinstance(e, (s.SAssign, s.SIncDec)):
            raise SemanticError.at(
                e.span, "an assignment is only allowed as a statement inside an event block"
            )
        if isinstance(e, s.SIndexedOp):
            envs = self.index_envs(s.Index(variables=e.variables, span=e.span), ctx.env)
            result: Expr | None = None
            for env in envs:
                inner = _Ctx(env, ctx.pre, dict(ctx.block_locals))
                for iv in e.variables:
                    inner.block_locals.pop(iv.name, None)
                part, t = self._expr(e.body, inner)
                if t == "int":
                    raise SemanticError.at(e.body.span, f"'{e.op}' over an index needs booleans")
                result = part if result is None else Binary(e.op, result, part, e.span)
            if result is None:  # an empty index: the operator's unit
                return Const(e.op == "&&", e.span), "bool"
            return result, "bool"
        if isinstance(e, s.SCall) and e.function in _CHANNEL_QUERIES:
            if len(e.args) != 1 or not isinstance(e.args[0], s.SName):
                raise SemanticError.at(e.span, f"call({e.function}, c) takes one channel")
            ch = self.channel(e.args[0].name, e.args[0].span)
            op = _CHANNEL_QUERIES[e.function]
            if op == "size":
                return Const(ch.capacity, e.span), "int"
            result = "int" if op == "len" else "bool"
            return ChanQuery(op, Var(ch.name, "global", e.args[0].span), e.span), result
        if isinstance(e, s.SCall):
            raise UnsupportedError.at(
                e.span,
                f"unsupported construct: call({e.function}, ...) (C# library or macro call)",
            )
        raise SemanticError.at(getattr(e, "span", None), "unsupported expression")

    # -- statements -----------------------------------------------------------------------
    def block(self, b: s.SBlock, ctx: _Ctx, depth: int = 0) -> list[Stmt]:
        out: list[Stmt] = []
        inner = ctx.child()
        for st in b.stmts:
            out.extend(self.stmt(st, inner, depth))
        return out

    def stmt(self, st: s.SStmt, ctx: _Ctx, depth: int = 0) -> list[Stmt]:
        if isinstance(st, s.SBlock):
            return self.block(st, ctx, depth)
        if isinstance(st, s.SExprStmt):
            return self._expr_stmt(st.expr, ctx, depth)
        if isinstance(st, s.SIf):
            cond = self.bool_expr(st.cond, ctx, "an if condition")
            then = self.stmt(st.then, ctx.child(), depth)
            otherwise = self.stmt(st.otherwise, ctx.child(), depth) if st.otherwise else []
            return [If(((cond, tuple(then)),), tuple(otherwise), st.span)]
        if isinstance(st, s.SWhile):
            cond = self.bool_expr(st.cond, ctx, "a while condition")
            body = self.stmt(st.body, ctx.child(), depth)
            return [While(cond, tuple(body), st.span)]
        if isinstance(st, s.SLocalVar):
            return self._local_var(st, ctx)
        raise SemanticError.at(getattr(st, "span", None), "unsupported statement")

    def _local_var(self, st: s.SLocalVar, ctx: _Ctx) -> list[Stmt]:
        dims = [self.const_int(d, "array size", ctx.env) for d in st.dims]
        init: Expr | tuple[Expr, ...] | None = None
        word = "int"
        if isinstance(st.init, s.ArrayLit):
            values = self._array_values(st.init)
            init = tuple(Const(x) for x in values)
            if not dims:
                dims = [len(values)]
        elif st.init is not None:
            init, t = self.typed(st.init, ctx)
            word = t or "int"
        t_ir: Type = BoolType() if word == "bool" else UNBOUNDED
        for n in reversed(dims):
            t_ir = ArrayType(t_ir, n)
        ctx.block_locals[st.name] = "array:int" if dims else word
        if dims and isinstance(init, Expr):
            init = tuple([init] * _product(dims))
        return [LocalVar(st.name, t_ir, init, st.span)]

    def _expr_stmt(self, e: s.SExpr, ctx: _Ctx, depth: int) -> list[Stmt]:
        if isinstance(e, s.SAssign):
            out: list[Stmt] = []
            value_src = e.value
            if isinstance(value_src, s.SAssign):  # x = y = v
                out.extend(self._expr_stmt(value_src, ctx, depth))
                value_src = value_src.target
            target, tt = self._lvalue(e.target, ctx)
            value, vt = self.typed(value_src, ctx)
            if tt in ("int", "bool") and vt in ("int", "bool") and tt != vt:
                raise SemanticError.at(
                    e.span, f"type clash: assigning a{'n' if vt == 'int' else ''} {vt} "
                    f"to {'an' if tt == 'int' else 'a'} {tt} variable"
                )
            out.append(Assign(target, value, e.span))
            return out
        if isinstance(e, s.SIncDec):
            target, tt = self._lvalue(e.target, ctx)
            if tt == "bool":
                raise SemanticError.at(e.span, "type clash: '++'/'--' applied to a boolean")
            op = "+" if e.delta > 0 else "-"
            return [Assign(target, Binary(op, target, Const(1)), e.span)]
        if isinstance(e, s.SName) and e.name in self.macros and _env_get(ctx.env, e.name) is None:
            if depth > 50:
                raise SemanticError.at(e.span, f"macro '{e.name}' expands into itself")
            return self.block(self.macros[e.name], ctx, depth + 1)
        # An expression statement without effect: evaluated and discarded (PAT).
        self.typed(e, ctx)
        return []

    def _lvalue(self, e: s.SExpr, ctx: _Ctx) -> tuple[Expr, str | None]:
        if isinstance(e, s.SName):
            if e.name in ctx.block_locals:
                return Var(e.name, "block", e.span), ctx.block_locals[e.name]
            if _env_get(ctx.env, e.name) is not None:
                raise SemanticError.at(
                    e.span, f"cannot assign to '{e.name}': it is a process parameter or input"
                )
            if e.name in self.globals:
                return Var(e.name, "global", e.span), _type_word(self.globals[e.name].type)
            if e.name in self.constants:
                raise SemanticError.at(e.span, f"cannot assign to constant '{e.name}'")
            raise self._undeclared(e.name, e.span, "variable")
        if isinstance(e, s.SIndex):
            base, bt = self._lvalue(e.base, ctx)
            idx, it = self.typed(e.index, ctx)
            if it == "bool":
                raise SemanticError.at(e.index.span, "array index must be an integer")
            if bt in ("int", "bool"):
                raise SemanticError.at(e.base.span, "indexing a value that is not an array")
            elem = bt[len("array:"):] if bt and bt.startswith("array:") else None
            return Index(base, idx, e.span), elem
        raise SemanticError.at(e.span, "the left side of '=' must be a variable or array element")


def _product(xs: Iterable[int]) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


def _type_word(t: Type) -> str | None:
    if isinstance(t, BoolType):
        return "bool"
    if isinstance(t, IntType):
        return "int"
    if isinstance(t, ArrayType):
        inner = _type_word(t.element)
        return f"array:{inner}" if inner else "array:"
    return None


def _const_type(e: Expr) -> str | None:
    if isinstance(e, Const):
        return "bool" if isinstance(e.value, bool) else "int"
    return None


@dataclass
class _Ctx:
    """Name-resolution context: bindings in scope and block-local variables."""

    env: Env = ()
    pre: bool = False
    block_locals: dict[str, str] = field(default_factory=dict)

    def child(self) -> _Ctx:
        return _Ctx(self.env, self.pre, dict(self.block_locals))


# ---------------------------------------------------------------------------------
# Leaf exploration


class _LeafBuilder:
    """Build the ``Process`` of one leaf by exploring its configurations."""

    def __init__(
        self, low: _Lowerer, leaf: _Leaf, dynamic: frozenset[tuple[str, str]] = frozenset()
    ) -> None:
        self.low = low
        self.leaf = leaf
        # (definition, parameter) pairs that also receive state-dependent values: their
        # constant arguments go into the local too, so that P(0) and P(w) with w = 0
        # are one location (one PAT state).
        self.dynamic = dynamic
        self.binding_kinds: dict[tuple[str, str], set[str]] = {}
        self.initial_values: dict[str, Expr] = {}
        self.counter = itertools.count()
        self.locations: dict[Cfg, int] = {}
        self.location_list: list[Location] = []
        self.cfgs: list[Cfg] = []
        self.edges: list[Edge] = []
        self.local_types: dict[str, Type] = {}
        self.syntactic_events: set[str] = set()
        self.dynamic_events: list[tuple[Event, Span | None]] = []
        self.can_terminate = False
        # Nested parallel compositions, by their ("PAR", term, env) configuration.
        self.nested: dict[Cfg, _Nested] = {}
        # The compositions whose steps the location being expanded offers: cfg -> key.
        self._allowed: dict[Cfg, Cfg] = {}
        self._wrap: s.Skip | None = None  # the Skip after a sequential prefix
        # The continuation C of ``(A || B); C`` -> the waiting location that behaves
        # as C once the composition has ended (so C re-entered is that location).
        self.aliases: dict[Cfg, int] = {}
        self.alias_conflict: Span | None = None
        self.alias_edges: set[int] = set()  # id() of edges whose target is an alias
        # A sequential prefix that ends in a composition: the conditions under which
        # it has handed over (with no step of its own).
        self.handovers: list[Expr] = []

    def fresh(self, base: str) -> str:
        return f"{_PLACEHOLDER}{next(self.counter)}{_PLACEHOLDER}{base}"

    # -- normalisation ------------------------------------------------------------------
    def normalise(
        self, cfg: Cfg, mode: str, caps: dict[str, Expr], post: list[tuple[str, Expr]],
        depth: int = 0,
    ) -> Cfg:
        """Return ``cfg`` with references unfolded and ``Skip ; Q`` simplified.

        ``mode`` "step": bindings to non-trivial values become captures (evaluated in the
        pre-state of the step being computed); "post": bindings reading globals stay
        symbolic, other non-trivial ones are assigned at the end of the edge (``post``).
        """
        if depth > MAX_UNFOLD:
            span = cfg[1].span if cfg[0] == "T" else None
            raise SemanticError.at(
                span,
                "process definition unfolds without end (unguarded recursion, or a "
                "parameter that grows without bound)",
            )
        kind = cfg[0]
        if kind == "SEQ":
            left = self.normalise(cfg[1], mode, caps, post, depth + 1)
            if left == SKIP:
                return self.normalise(cfg[2], mode, caps, post, depth + 1)
            right = cfg[2] if cfg[2][0] != "T" else self.restrict(cfg[2])
            return ("SEQ", left, right)
        if kind == "ATOM":
            inner = self.normalise(cfg[1], mode, caps, post, depth + 1)
            return inner if inner in (SKIP, TERM) else ("ATOM", inner)
        if kind == "XCH":
            return ("XCH", tuple(self.normalise(c, mode, caps, post, depth + 1) for c in cfg[1]))
        if kind == "HIDE":
            inner = self.normalise(cfg[1], mode, caps, post, depth + 1)
            if inner in (SKIP, STOP, TERM):
                return inner
            if inner[0] == "HIDE":  # (P \ A) \ B = P \ (A + B): keeps recursion finite
                return ("HIDE", inner[1], inner[2] | cfg[2], inner[3] | cfg[3])
            return ("HIDE", inner, cfg[2], cfg[3])
        if kind == "INTR":
            left = self.normalise(cfg[1], mode, caps, post, depth + 1)
            if left == TERM:
                return TERM
            return ("INTR", left, self.normalise(cfg[2], mode, caps, post, depth + 1))
        if kind != "T":
            return cfg
        term, env = cfg[1], cfg[2]
        if isinstance(term, s.Skip):
            return SKIP
        if isinstance(term, s.Stop):
            return STOP
        if isinstance(term, s.ProcRef):
            body, new_env = self.unfold(term, env, mode, caps, post)
            return self.normalise(("T", body, new_env), mode, caps, post, depth + 1)
        if isinstance(term, s.Binary) and term.op == ";":
            left = ("T", term.operands[0], env)
            rest = self.low.seq_rest(term, 1)
            return self.normalise(("SEQ", left, ("T", rest, env)), mode, caps, post, depth + 1)
        if isinstance(term, s.Atomic):
            return self.normalise(("ATOM", ("T", term.body, env)), mode, caps, post, depth + 1)
        if isinstance(term, s.Binary) and term.op == "[*]":
            return self.normalise(
                ("XCH", tuple(("T", op, env) for op in term.operands)), mode, caps, post, depth + 1
            )
        if isinstance(term, s.Indexed) and term.op == "[*]":
            envs = self.low.index_envs(term.index, env)
            return self.normalise(
                ("XCH", tuple(("T", term.body, e) for e in envs)), mode, caps, post, depth + 1
            )
        if isinstance(term, (s.Binary, s.Indexed)) and term.op in ("|||", "||"):
            # A nested composition: unfolded into static instances if it is reached at
            # most once (checked by the system builder); its operands cannot read this
            # process's run-time values.
            kept = self.restrict(cfg)[2]
            for name, value in kept:
                if not isinstance(value, Const):
                    raise UnsupportedError.at(
                        term.span,
                        f"unsupported construct: '{term.op}' nested in a process whose "
                        f"operands depend on a run-time value ('{name}')",
                    )
            return ("PAR", term, kept)
        if isinstance(term, s.Binary) and term.op == "interrupt":
            c: Cfg = ("T", term.operands[0], env)
            for op in term.operands[1:]:
                c = ("INTR", c, ("T", op, env))
            return self.normalise(c, mode, caps, post, depth + 1)
        if isinstance(term, s.Hiding):
            names = frozenset(self.low.alphabet_items(term.events, env))
            bases = frozenset(item.event.name for item in term.events)
            for item in term.events:
                if item.event.name in self.low.channels:
                    raise UnsupportedError.at(
                        item.span, "unsupported construct: hiding channel events"
                    )
            return self.normalise(("HIDE", ("T", term.body, env), names, bases), mode, caps,
                                  post, depth + 1)
        return self.restrict(cfg)

    def restrict(self, cfg: Cfg) -> Cfg:
        """Return ``("T", term, env)`` with the bindings the term cannot read dropped
        (PAT substitutes values into the term, so unused ones are not in its state)."""
        term, env = cfg[1], cfg[2]
        names = _term_names(term, self.low.term_names, self.low.macros)
        kept = tuple((k, v) for k, v in env if k in names)
        return cfg if len(kept) == len(env) else ("T", term, kept)

    def unfold(
        self, ref: s.ProcRef, env: Env, mode: str, caps: dict[str, Expr],
        post: list[tuple[str, Expr]],
    ) -> tuple[s.Term, Env]:
        d = self.low.definition(ref)
        bindings: dict[str, Expr] = {}
        for p, arg in zip(d.params, ref.args, strict=True):
            value, t = self.low.typed(arg, _Ctx(env=env))
            key = (d.name, p.name)
            self.binding_kinds.setdefault(key, set()).add(
                "const" if isinstance(value, Const) else "dynamic"
            )
            if isinstance(value, Const) and key not in self.dynamic:
                bindings[p.name] = Const(value.value)
                continue
            if isinstance(value, Var) and value.scope == "local":
                bindings[p.name] = value
                continue
            if isinstance(value, Const):
                value = Const(value.value)
                t = "bool" if isinstance(value.value, bool) else "int"
            if t and t.startswith("array"):
                raise UnsupportedError.at(arg.span, "unsupported construct: array argument")
            ltype: Type = BoolType() if t == "bool" else UNBOUNDED
            if mode == "step":
                name = self.fresh(p.name)
                caps[name] = value
                self.local_types[name] = ltype
                bindings[p.name] = Var(name, "local")
            elif _reads_globals(value):
                # Symbolic until the next step; without spans, so that the same
                # argument written in two places gives the same location.
                bindings[p.name] = _without_spans(value)
            else:
                name = self.fresh(p.name)
                post.append((name, value))
                self.local_types[name] = ltype
                bindings[p.name] = Var(name, "local")
        return d.body, tuple(sorted(bindings.items()))

    # -- steps ----------------------------------------------------------------------------
    def steps(self, cfg: Cfg, caps: dict[str, Expr]) -> list[_Raw]:
        cfg = self.normalise(cfg, "step", caps, [])
        kind = cfg[0]
        if kind == "SKIP":
            self.can_terminate = True
            return [_Raw(None, None, [], Event(TERMINATE), TERM, None, "terminate")]
        if kind in ("STOP", "TERM"):
            return []
        if kind == "PAR":
            # The process ended in a composition: its own terminate joins the
            # operands' joint terminate (a barrier; cspsharp.md section 7).
            rec = self._nested_at(cfg, "tail")
            self.can_terminate = True
            return [_Raw(None, None, [], Event(TERMINATE), TERM, rec.span,
                         "terminate (parallel composition)")]
        if kind == "SEQ" and _spine_head(cfg)[0][0] == "PAR":
            # (A || B); C: once every operand is at its Skip (the count-down global
            # is 0) this location is C: PAT's Sequence takes C's steps at once when
            # its first part is a composition of Skips (no tau step).
            rec = self._nested_at(_spine_head(cfg)[0], "seq")
            assert rec.join is not None
            done = Binary("==", Var(rec.join, "global"), Const(0))
            q = self.normalise(_replace_head(cfg, SKIP), "step", caps, [])
            if self.leaf.gate_set is not None and q == SKIP:
                # A sequential prefix that ends here: the rest starts at the join.
                handover = rec.done()
                if handover not in self.handovers:
                    self.handovers.append(handover)
                return []
            head, depth = _spine_head(q)
            if head[0] == "PAR":
                # C starts with another composition: its operands start when this
                # one ends.
                key = ("CHAIN", rec.key, head)
                self._record(key, head, "tail" if depth == 0 else "seq", "chain", rec.done())
                self._allowed[head] = key
            raws = self.steps(q, caps)
            for r in raws:
                r.guard = _and(done, r.guard)
            return raws
        if kind == "SEQ":
            raws = self.steps(cfg[1], caps)
            for r in raws:
                if _is_terminate(r):
                    # P's termination (under interrupt/hiding) hands over to Q as tau.
                    r.event = None
                    r.text = "terminate (sequential composition: tau)"
                    r.target = cfg[2]
                else:
                    r.target = ("SEQ", r.target, cfg[2])
            return raws
        if kind == "ATOM":
            raws = self.steps(cfg[1], caps)
            for r in raws:
                r.target = ("ATOM", r.target)
            return raws
        if kind == "HIDE":
            raws = self.steps(cfg[1], caps)
            for r in raws:
                if r.event is not None and not _is_terminate(r):
                    comps = [fold(c) for c in r.event.components]
                    if all(isinstance(c, Const) for c in comps):
                        name = _event_name(r.event.base, [c.value for c in comps])  # type: ignore[union-attr]
                        if name in cfg[2]:
                            r.event = None
                            r.data_operation = False
                    elif r.event.base in cfg[3]:
                        raise UnsupportedError.at(
                            r.span,
                            f"unsupported construct: hiding event '{r.event.base}' whose "
                            "components depend on the state",
                        )
                r.target = ("HIDE", r.target, cfg[2], cfg[3])
            return raws
        if kind == "INTR":
            out_i: list[_Raw] = []
            for r in self.steps(cfg[1], caps):
                if not _is_terminate(r):
                    r.target = ("INTR", r.target, cfg[2])
                out_i.append(r)
            for r in self.steps(cfg[2], caps):
                if r.event is None and r.comm is None:
                    r.target = ("INTR", cfg[1], r.target)
                out_i.append(r)
            return out_i
        if kind == "XCH":
            out: list[_Raw] = []
            parts = cfg[1]
            for i, part in enumerate(parts):
                for r in self.steps(part, caps):
                    if r.event is None and r.comm is None:
                        r.target = ("XCH", parts[:i] + (r.target,) + parts[i + 1:])
                    out.append(r)
            return out
        term, env = cfg[1], cfg[2]
        return self.term_steps(term, env, caps)

    def _nested_at(self, par: Cfg, kind: str) -> _Nested:
        """Return the record of the nested composition ``par`` offering its steps at
        the current location; refuse one in any other position (under a choice, guard,
        atomic, hiding or interrupt)."""
        term = par[1]
        key = self._allowed.get(par)
        if key is None:
            raise _nested_unsupported(
                term, "a choice, guard, atomic, hiding or interrupt"
            )
        rec = self.nested.get(key)
        assert rec is not None, "the location's composition is recorded when reached"
        if rec.kind != kind:
            raise _nested_unsupported(term, "two different continuations")
        return rec

    def _record(
        self, key: Cfg, par: Cfg, kind: str, how: str, start: Expr | None = None
    ) -> _Nested:
        """Return the record of the nested composition ``par`` first in the location
        ``key`` (a new one the first time). ``how``: "initial" (first in the leaf: its
        operands start with the leaf), "edge" (a step enters it and sets a fresh
        flag), "chain" (it starts when ``start`` holds: a previous composition
        ended)."""
        term = par[1]
        rec = self.nested.get(key)
        if rec is not None:
            if how != "edge" or rec.fixed or rec.kind != kind:
                raise _nested_unsupported(
                    term, "recursion, a loop or a choice (it may be reached twice, or in "
                    "two ways)"
                )
            return rec
        fresh = self.leaf.fresh_global
        if fresh is None:  # pragma: no cover - every system leaf has an allocator
            raise _nested_unsupported(term, "this context")
        flag = None
        if how == "initial":
            start = self.leaf.gate
        elif how == "edge":
            flag = fresh("_started")
            start = Var(flag, "global")
        join = fresh("_joined") if kind == "seq" else None
        rec = _Nested(par, kind, start, flag, how != "edge", join, term.span, key)
        self.nested[key] = rec
        return rec

    def term_steps(self, term: s.Term, env: Env, caps: dict[str, Expr]) -> list[_Raw]:
        low = self.low
        ctx = _Ctx(env=env)
        if isinstance(term, s.EventPrefix):
            return [self.event_step(term, env, ctx)]
        if isinstance(term, s.SendPrefix):
            ch = low.channel(term.channel, term.channel_span or term.span)
            args = tuple(low.expr(f, ctx) for f in term.fields)
            comm = Send(Var(ch.name, "global", term.channel_span), args, span=term.channel_span)
            effect = low.block(term.block, ctx) if term.block else []
            last = term.block.span if term.block else term.fields[-1].span
            return [_Raw(None, comm, effect, None, ("T", term.body, env), term.span,
                         self.text(term.span, last))]
        if isinstance(term, s.RecvPrefix):
            ch = low.channel(term.channel, term.channel_span or term.span)
            args: list = []
            binds: dict[str, Expr] = {}
            for f in term.fields:
                if (
                    isinstance(f, s.SName)
                    and f.name not in low.constants
                    and _env_get(env, f.name) is None
                    and f.name not in binds
                ):
                    name = self.fresh(f.name)
                    self.local_types[name] = UNBOUNDED
                    binds[f.name] = Var(name, "local")
                    args.append(RecvBind(Var(name, "local", f.span), f.span))
                else:
                    args.append(RecvMatch(low.expr(f, ctx), f.span))
            new_env = _env_set(env, binds)
            bctx = _Ctx(env=new_env)
            cond = low.bool_expr(term.guard, bctx, "a receive guard") if term.guard else None
            comm = Receive(
                Var(ch.name, "global", term.channel_span), tuple(args),
                span=term.channel_span, condition=cond,
            )
            effect = low.block(term.block, bctx) if term.block else []
            last = term.block.span if term.block else term.fields[-1].span
            return [_Raw(None, comm, effect, None, ("T", term.body, new_env), term.span,
                         self.text(term.span, last))]
        if isinstance(term, s.Guard):
            cond = low.bool_expr(term.cond, ctx, "a guard")
            raws = self.steps(("T", term.body, env), caps)
            out = []
            for r in raws:
                r.guard = _and(cond, r.guard)
                out.append(r)
            return out
        if isinstance(term, s.Binary) and term.op == "[]":
            out = []
            for op in term.operands:
                out.extend(self.steps(("T", op, env), caps))
            return out
        if isinstance(term, s.Binary) and term.op == "<>":
            return [_Raw(None, None, [], None, ("T", op, env), op.span, "<> (internal choice)")
                    for op in term.operands]
        if isinstance(term, s.Indexed) and term.op in ("[]", "<>"):
            envs = low.index_envs(term.index, env)
            out = []
            for e in envs:
                if term.op == "[]":
                    out.extend(self.steps(("T", term.body, e), caps))
                else:
                    out.append(_Raw(None, None, [], None, ("T", term.body, e), term.body.span,
                                    "<> (internal choice)"))
            return out
        if isinstance(term, s.IfProc):
            cond = low.bool_expr(term.cond, ctx, "an if condition")
            else_cfg = ("T", term.otherwise, env) if term.otherwise is not None else SKIP
            if term.kind == "ifb":
                return [_Raw(cond, None, [], None, ("T", term.then, env), term.span,
                             f"ifb ({self.text(term.cond.span)})")]
            if term.kind == "if":
                text = f"if ({self.text(term.cond.span)})"
                return [
                    _Raw(cond, None, [], None, ("T", term.then, env), term.span, text),
                    _Raw(_not(cond), None, [], None, else_cfg, term.span, text + " else"),
                ]
            out = []
            for r in self.steps(("T", term.then, env), caps):
                r.guard = _and(cond, r.guard)
                out.append(r)
            for r in self.steps(else_cfg, caps):
                r.guard = _and(_not(cond), r.guard)
                out.append(r)
            return out
        if isinstance(term, s.Case):
            out = []
            previous: Expr | None = None
            for cond_src, body in term.branches:
                cond = low.bool_expr(cond_src, ctx, "a case condition")
                guard = _and(_not(previous) if previous is not None else None, cond)
                out.append(_Raw(guard, None, [], None, ("T", body, env), cond_src.span,
                                f"case {self.text(cond_src.span)}"))
                previous = cond if previous is None else fold(Binary("||", previous, cond))
            default_cfg = ("T", term.default, env) if term.default is not None else SKIP
            guard = _not(previous) if previous is not None else None
            out.append(_Raw(guard, None, [], None, default_cfg, term.span, "case default"))
            return out
        raise SemanticError.at(term.span, "unsupported process term")  # pragma: no cover

    def event_step(self, term: s.EventPrefix, env: Env, ctx: _Ctx) -> _Raw:
        low = self.low
        ev = term.event
        effect = low.block(term.block, ctx) if term.block is not None else []
        event: Event | None = None
        if not ev.is_tau:
            comps = tuple(low.expr(c, ctx) for c in ev.components)
            for c, src in zip(comps, ev.components, strict=True):
                if _const_type(c) == "bool":
                    raise SemanticError.at(src.span, "event components must be integers")
            event = Event(ev.name, comps, ev.span)
            low.event_bases.add(ev.name)
        fairness = FairnessMark(term.fairness) if term.fairness else None
        end = term.block.span if term.block is not None else ev.span
        return _Raw(None, None, effect, event, ("T", term.body, env), ev.span,
                    self.text(ev.span, end), fairness,
                    data_operation=term.block is not None and event is not None)

    def text(self, start: Span | None, end: Span | None = None) -> str:
        if start is None:
            return ""
        src = self.low.program.sources.get(start.file)
        if src is None:
            return ""
        lines = src.splitlines()
        stop = end or start
        a_line, a_col = start.line, start.col
        b_line, b_col = (stop.end_line or stop.line), (stop.end_col or stop.col + 1)
        if a_line == b_line:
            piece = lines[a_line - 1][a_col - 1:b_col - 1] if a_line <= len(lines) else ""
        else:
            chunk = [lines[a_line - 1][a_col - 1:]] + lines[a_line:b_line - 1]
            chunk.append(lines[b_line - 1][:b_col - 1] if b_line <= len(lines) else "")
            piece = " ".join(chunk)
        piece = " ".join(piece.split())
        return piece if len(piece) <= 80 else piece[:77] + "..."

    # -- edges --------------------------------------------------------------------------
    def location(self, cfg: Cfg, span: Span | None) -> int:
        lid = self.locations.get(cfg)
        if lid is not None:
            return lid
        lid = self.aliases.get(cfg)
        if lid is not None:
            return lid
        lid = len(self.location_list)
        if lid >= MAX_LOCATIONS:
            raise SemanticError.at(
                self.leaf.span,
                f"process '{self.leaf.name}' unfolds into more than {MAX_LOCATIONS} "
                "control locations (a parameter that grows without bound?)",
            )
        self.locations[cfg] = lid
        self.cfgs.append(cfg)
        shown = cfg
        if cfg[0] == "SEQ" and cfg[2][0] == "T" and cfg[2][1] is self._wrap:
            shown = cfg[1]  # the prefix's location, as without the added '; Skip'
        term_span = shown[1].span if shown[0] in ("T", "PAR") else span
        # An operand parked at its Skip has finished (its terminate is the joint tau
        # step of the process waiting for the composition).
        done = cfg == TERM or (self.leaf.park is not None and _parks(cfg))
        atomic = _cfg_atomic(cfg)
        if cfg[0] == "SEQ" and _spine_head(cfg)[0][0] == "PAR":
            # (A || B); C: its edges are C's, enabled once the composition has
            # ended; an atomic C has priority from then on (its steps are disabled
            # before). A prefix that ends in a composition has nothing left.
            atomic, done = self._alias(cfg, lid)
        self.location_list.append(
            Location(
                lid,
                labels=(),
                atomic=atomic,
                end=done,
                terminal=done,
                span=term_span,
            )
        )
        return lid

    def _alias(self, cfg: Cfg, lid: int) -> tuple[bool, bool]:
        """Make the continuation C of the waiting location ``cfg`` = ``(A || B); C``
        (after any compositions chained behind this one) map to that location: once
        they have ended it is C, one PAT state. Return whether the location's own
        continuation is atomic and whether it ends a sequential prefix."""
        post: list[tuple[str, Expr]] = []
        try:
            rest = self.normalise(_replace_head(cfg, SKIP), "post", {}, post)
            final = rest
            while not post and final[0] in ("PAR", "SEQ") and (
                _spine_head(final)[0][0] == "PAR"
            ):
                final = self.normalise(_replace_head(final, SKIP), "post", {}, post)
        except UnsupportedError:
            return False, False  # reported when the location's steps are computed
        atomic = _cfg_atomic(rest)
        if final == SKIP and self.leaf.gate_set is not None and not post:
            return False, True  # the prefix ends in compositions: nothing left
        if post or _cfg_locals(final) or final in (SKIP, STOP, TERM):
            return atomic, False
        if final in self.locations or final in self.aliases:
            self.alias_conflict = _spine_head(cfg)[0][1].span
            return atomic, False
        self.aliases[final] = lid
        return atomic, False

    def build(self) -> Process:
        post: list[tuple[str, Expr]] = []
        start: Cfg = ("T", self.leaf.term, self.leaf.env)
        if self.leaf.hidden:
            start = ("HIDE", start, self.leaf.hidden, self.leaf.hidden_bases)
        if self.leaf.gate_set is not None:
            # A sequential prefix ``P; (A ||| B)`` runs as ``P; Skip``: P's terminate
            # is a tau to the composition (``Skip ; Q`` is Q at once), and a
            # composition that ends P is followed by something.
            self._wrap = s.Skip(self.leaf.span)
            start = ("SEQ", start, ("T", self._wrap, ()))
        initial_cfg = self.normalise(start, "post", {}, post)
        if self.leaf.gate_set is not None and initial_cfg == SKIP:
            # ``Skip ; (A ||| B)`` is the composition at once: no step of its own.
            initial_cfg = TERM
            self.handovers.append(self.leaf.gate if self.leaf.gate is not None else Const(True))
        if post:
            # Constant arguments of parameters kept in locals: initial values.
            canon = _canonical_names(initial_cfg, self.local_types)
            for name, value in post:
                assert isinstance(value, Const), "no locals exist before the first step"
                self.initial_values[canon[name]] = value

            initial_cfg = _rename_locals(initial_cfg, canon)
        head, depth = _spine_head(initial_cfg)
        if head[0] == "PAR":
            self._record(initial_cfg, head, "tail" if depth == 0 else "seq", "initial")
        self.location(initial_cfg, self.leaf.span)
        work = [0]
        while work:
            lid = work.pop()
            cfg = self.cfgs[lid]
            for raw in self.expand(cfg):
                before = len(self.location_list)
                edge = self.finish(lid, cfg, raw)
                if edge is not None:
                    self.edges.append(edge)
                work.extend(range(before, len(self.location_list)))
        used: set[str] = set()
        for e in self.edges:
            for st in e.effect:
                used |= _stmt_locals(st)
            used |= set(self._comm_binds(e.comm))
        for cfg in self.cfgs:
            used |= _cfg_locals(cfg)
        locals_ = tuple(
            Variable(name, self.local_types.get(name, UNBOUNDED), self.initial_values.get(name))
            for name in sorted(used)
        )
        return Process(
            self.leaf.name, (), locals_, tuple(self.location_list), tuple(self.edges), 0,
            span=self.leaf.span,
        )

    def expand(self, cfg: Cfg) -> list[_Raw]:
        """Return the raw steps of a location, its symbolic bindings captured."""
        caps: dict[str, Expr] = {}

        def capture(env: Env) -> Env:
            out = []
            for k, v in env:
                if isinstance(v, Const) or (isinstance(v, Var) and v.scope == "local"):
                    out.append((k, v))
                else:
                    name = self.fresh(k)
                    caps[name] = v
                    self.local_types.setdefault(name, UNBOUNDED)
                    out.append((k, Var(name, "local")))
            return tuple(out)

        if self.leaf.park is not None and _parks(cfg):
            return []  # parked: the waiting process takes the joint terminate
        head, _ = _spine_head(cfg)
        self._allowed = {head: cfg} if head[0] == "PAR" else {}
        captured = _cfg_map_env(cfg, capture)
        raws: list[_Raw] = []
        for raw in self.steps(captured, caps):
            raw.captures = dict(caps)
            raws.append(raw)
            if self.leaf.park is not None and _is_terminate(raw):
                raise UnsupportedError.at(
                    raw.span or self.leaf.span,
                    "unsupported construct: an operand of a composition followed by ';' "
                    "that may terminate other than by becoming Skip (e.g. a choice with "
                    "a Skip branch)",
                )
        return raws

    def finish(self, source: int, source_cfg: Cfg, raw: _Raw) -> Edge | None:
        """Return the edge of ``raw`` (target normalised, locals named and reset).

        New values (captures, receive bindings, argument values) are first written to
        fresh locals that avoid the source's locals; at the end of the effect they are
        moved to the target's canonical names (``_canonical_names``) and every other
        local is reset to 0, so one PAT state is one state vector.
        """
        guard = raw.guard
        if isinstance(guard, Const):
            if guard.value is False:
                self._note_event(raw)
                return None
            guard = None
        post: list[tuple[str, Expr]] = []
        target_cfg = self.normalise(raw.target, "post", raw.captures, post)
        src_locals = _cfg_locals(source_cfg)
        mapping: dict[str, str] = {}
        taken = set(src_locals)
        fresh = list(raw.captures) + self._comm_placeholders(raw.comm) + [n for n, _ in post]
        for n in fresh:
            if n not in mapping:
                wanted = self.local_types.get(n, UNBOUNDED)
                clash = {x for x, t in self.local_types.items() if t != wanted}
                mapping[n] = _pick(n, taken | clash)
                taken.add(mapping[n])
                self.local_types.setdefault(mapping[n], wanted)

        def rename(e: Expr) -> Expr | None:
            if isinstance(e, Var) and e.scope == "local" and e.name in mapping:
                return Var(mapping[e.name], "local", e.span)
            return None

        def rename_env(env: Env) -> Env:
            return tuple((k, _map_expr(v, rename)) for k, v in env)

        target_cfg = _cfg_map_env(target_cfg, rename_env)
        cap_values = {mapping[n]: _map_expr(v, rename) for n, v in raw.captures.items()}

        def pre(e: Expr) -> Expr | None:
            if isinstance(e, Var) and e.scope == "local":
                name = mapping.get(e.name, e.name)
                if name in cap_values:
                    return cap_values[name]
                if name != e.name:
                    return Var(name, "local", e.span)
            return None

        guard = fold(_map_expr(guard, pre)) if guard is not None else None
        if isinstance(guard, Const):
            if guard.value is False:
                self._note_event(raw)
                return None
            guard = None
        comm = self._map_comm(raw.comm, pre, rename)
        event = raw.event
        if event is not None:
            event = Event(event.base, tuple(fold(_map_expr(c, pre)) for c in event.components),
                          event.span)
        effect = [_map_stmt(st, rename) for st in raw.effect]
        post_pairs = [(mapping[n], _map_expr(v, rename)) for n, v in post]
        # Captures the rest of the step needs.
        needed: set[str] = set(_cfg_locals(target_cfg))
        for st in effect:
            needed |= _stmt_locals(st)
        for _, v in post_pairs:
            needed |= _locals_in(v)
        front: list[Stmt] = [
            Assign(Var(n, "local"), v) for n, v in cap_values.items() if n in needed
        ]
        back: list[Stmt] = [Assign(Var(n, "local"), v) for n, v in post_pairs]
        # Canonical names for the target's locals.
        canon = _canonical_names(target_cfg, self.local_types)
        moves = [(new, old) for old, new in canon.items() if new != old]
        if moves:
            sources = {old for _, old in moves}
            if any(new in sources for new, _ in moves):
                for k, (_, old) in enumerate(moves):
                    back.append(LocalVar(f"_mv{k}", self.local_types.get(old, UNBOUNDED),
                                         Var(old, "local")))
                back.extend(Assign(Var(new, "local"), Var(f"_mv{k}", "block"))
                            for k, (new, _) in enumerate(moves))
            else:
                back.extend(Assign(Var(new, "local"), Var(old, "local")) for new, old in moves)
            for new, old in moves:
                self.local_types.setdefault(new, self.local_types.get(old, UNBOUNDED))

            target_cfg = _rename_locals(target_cfg, canon)
        gate_set = self.leaf.gate_set
        if gate_set is not None and target_cfg == SKIP:
            # The end of a sequential prefix: ``Skip ; (A ||| B)`` is the composition.
            target_cfg = TERM
            back.append(Assign(Var(gate_set, "global"), Const(True)))
        park = self.leaf.park
        if park is not None and _parks(target_cfg):
            back.append(Assign(Var(park, "global"), Binary("-", Var(park, "global"), Const(1))))
        head, depth = _spine_head(target_cfg)
        aliased = target_cfg in self.aliases and target_cfg not in self.locations
        if head[0] == "PAR":
            rec = self._record(target_cfg, head, "tail" if depth == 0 else "seq", "edge")
            assert rec.flag is not None
            back.append(Assign(Var(rec.flag, "global"), Const(True)))
        body = _coalesce_moves(front + effect + back)
        final = set(canon.values())
        written = set(src_locals) | set(self._comm_binds(comm))
        for st in body:
            if isinstance(st, Assign) and isinstance(st.target, Var):
                if st.target.scope == "local":
                    written.add(st.target.name)
        resets = [Assign(Var(n, "local"), _zero(self.local_types.get(n)))
                  for n in sorted(written - final)]
        if self.leaf.gate is not None and source == 0:
            guard = _and(self.leaf.gate, guard)
        target = self.location(target_cfg, raw.span)
        if raw.event is not None and raw.comm is None:
            self._note_event(raw, event)
        edge = Edge(
            source,
            target,
            guard=guard,
            comm=comm,
            effect=tuple(body + resets),
            event=event,
            fairness=raw.fairness,
            text=raw.text,
            span=raw.span,
            data_operation=raw.data_operation,
        )
        if aliased:
            self.alias_edges.add(id(edge))
        return edge

    def _note_event(self, raw: _Raw, event: Event | None = None) -> None:
        ev = event or raw.event
        if ev is None or raw.comm is not None or raw.data_operation:
            return
        comps = [fold(c) for c in ev.components]
        if all(isinstance(c, Const) for c in comps):
            self.syntactic_events.add(_event_name(ev.base, [c.value for c in comps]))  # type: ignore[union-attr]
        else:
            self.dynamic_events.append((ev, raw.span))

    @staticmethod
    def _comm_placeholders(comm: Send | Receive | None) -> list[str]:
        if isinstance(comm, Receive):
            return [
                a.target.name for a in comm.args
                if isinstance(a, RecvBind) and isinstance(a.target, Var)
            ]
        return []

    @staticmethod
    def _comm_binds(comm: Send | Receive | None) -> list[str]:
        return _LeafBuilder._comm_placeholders(comm)

    @staticmethod
    def _map_comm(comm: Send | Receive | None, pre: Callable, rename: Callable) -> (
        Send | Receive | None
    ):
        if comm is None:
            return None
        if isinstance(comm, Send):
            return dataclasses.replace(
                comm, args=tuple(fold(_map_expr(a, pre)) for a in comm.args)
            )
        args = []
        for a in comm.args:
            if isinstance(a, RecvBind) and a.target is not None:
                args.append(RecvBind(_map_expr(a.target, rename), a.span))
            elif isinstance(a, RecvMatch):
                args.append(RecvMatch(fold(_map_expr(a.value, pre)), a.span))
            else:
                args.append(a)
        cond = comm.condition
        if cond is not None:
            cond = fold(_map_expr(_map_expr(cond, rename), pre))
        return dataclasses.replace(comm, args=tuple(args), condition=cond)


def _reads(st: Stmt, name: str) -> bool:
    """Return True if ``st`` mentions local ``name`` other than as a plain assigned
    target (conservative)."""
    if isinstance(st, Assign) and isinstance(st.target, Var):
        return name in _locals_in(st.value)
    return name in _stmt_locals(st)


def _writes(st: Stmt, name: str) -> bool:
    if isinstance(st, Assign):
        return isinstance(st.target, Var) and st.target.scope == "local" and (
            st.target.name == name)
    return name in _stmt_locals(st)


def _coalesce_moves(stmts: list[Stmt]) -> list[Stmt]:
    """Return ``stmts`` with ``t := e; ...; n := t`` turned into ``n := e; ...`` when the
    statements in between neither read nor write ``n`` (the fresh local ``t`` then
    disappears from the edge)."""
    out = list(stmts)
    changed = True
    while changed:
        changed = False
        for j, mv in enumerate(out):
            if not (isinstance(mv, Assign) and isinstance(mv.target, Var)
                    and mv.target.scope == "local" and isinstance(mv.value, Var)
                    and mv.value.scope == "local"):
                continue
            new, old = mv.target.name, mv.value.name
            writers = [i for i, st in enumerate(out) if _writes(st, old)]
            if len(writers) != 1 or writers[0] >= j:
                continue
            i = writers[0]
            first = out[i]
            if not (isinstance(first, Assign) and isinstance(first.target, Var)):
                continue
            if any(_reads(st, new) or _writes(st, new) for st in out[i + 1:j]):
                continue
            if any(_reads(st, old) for st in out[j + 1:]):
                continue

            def swap(e: Expr, old: str = old, new: str = new) -> Expr | None:
                if isinstance(e, Var) and e.scope == "local" and e.name == old:
                    return Var(new, "local", e.span)
                return None

            out[i] = Assign(Var(new, "local", first.target.span), first.value, first.span)
            out[i + 1:j] = [_map_stmt(st, swap) for st in out[i + 1:j]]
            del out[j]
            changed = True
            break
    return out


def _rename_locals(cfg: Cfg, canon: dict[str, str]) -> Cfg:
    """Return ``cfg`` with the locals named in ``canon`` renamed in its environments'
    values (the canonical local names of ``_canonical_names``)."""

    def rename(e: Expr) -> Expr | None:
        if isinstance(e, Var) and e.scope == "local" and e.name in canon:
            return Var(canon[e.name], "local", e.span)
        return None

    return _cfg_map_env(cfg, lambda env: tuple((k, _map_expr(v, rename)) for k, v in env))


def _canonical_names(cfg: Cfg, types: dict[str, Type] | None = None) -> dict[str, str]:
    """Return canonical names for the locals of ``cfg``: in a fixed traversal order, a
    local bound to a name ``p`` in scope is called ``p`` (``p_2``... when taken, or when
    ``p`` already names a local of another type in this process)."""
    types = types if types is not None else {}
    canon: dict[str, str] = {}
    used: set[str] = set()
    for env in _cfg_envs(cfg):
        for key, value in env:
            for old in sorted(_locals_in(value)):
                if old in canon:
                    continue
                if isinstance(value, Var):
                    base = key
                else:
                    base = old.rsplit("_", 1)[0] if old.rsplit("_", 1)[-1].isdigit() else old
                wanted = types.get(old, UNBOUNDED)
                clash = {n for n, t in types.items() if t != wanted}
                new = _pick(base, used | clash)
                canon[old] = new
                used.add(new)
                types.setdefault(new, wanted)
    return canon


def _replace_head(cfg: Cfg, new: Cfg) -> Cfg:
    """Return ``cfg`` with the innermost left operand of its ';' chain replaced."""
    if cfg[0] != "SEQ":
        return new
    return ("SEQ", _replace_head(cfg[1], new), cfg[2])


def _parks(cfg: Cfg) -> bool:
    """Return True if an operand of a composition under ';' is done at ``cfg``: at
    Skip, or ended in a nested composition (whose operands then park in its place)."""
    return cfg == SKIP or cfg[0] == "PAR"


def _spine_head(cfg: Cfg) -> tuple[Cfg, int]:
    """Return the innermost left operand of the ``;`` chain of ``cfg`` (what runs
    first) and how many ``;`` lie above it."""
    depth = 0
    while cfg[0] == "SEQ":
        cfg = cfg[1]
        depth += 1
    return cfg, depth


def _nested_unsupported(term: s.Term, why: str) -> UnsupportedError:
    op = getattr(term, "op", "||")
    return UnsupportedError.at(
        term.span,
        f"unsupported construct: '{op}' nested under {why} (only a composition reached "
        "at most once, after a prefix or in a sequential composition, is unfolded)",
    )


def _is_terminate(raw: _Raw) -> bool:
    return raw.event is not None and raw.event.base == TERMINATE and raw.target == TERM


def _pick(placeholder: str, taken: set[str]) -> str:
    base = placeholder.rsplit(_PLACEHOLDER, 1)[-1] if placeholder.startswith(_PLACEHOLDER) else (
        placeholder
    )
    if base not in taken:
        return base
    for k in itertools.count(2):
        name = f"{base}_{k}"
        if name not in taken:
            return name
    raise AssertionError("unreachable")  # pragma: no cover


def _zero(t: Type | None) -> Const:
    return Const(False) if isinstance(t, BoolType) else Const(0)


def _event_name(base: str, values: Iterable[int | bool]) -> str:
    return base + "".join(f".{int(v)}" for v in values)


# ---------------------------------------------------------------------------------
# Lowerer: definitions, indices, compositions, systems














# ---------------------------------------------------------------------------------
# Systems


def _build_leaf(low: _Lowerer, leaf: _Leaf) -> tuple[_LeafBuilder, Process]:
    """Return the builder and process of ``leaf``; parameters that receive both
    constant and state-dependent values are kept in locals throughout (at most one
    rebuild per such parameter)."""
    dynamic: frozenset[tuple[str, str]] = frozenset()
    while True:
        builder = _LeafBuilder(low, leaf, dynamic)
        process = builder.build()
        mixed = {k for k, kinds in builder.binding_kinds.items() if len(kinds) > 1}
        if mixed <= dynamic:
            return builder, process
        dynamic = dynamic | frozenset(mixed)


def _expr_names(e: object, out: set[str]) -> None:
    """Add every identifier of a syntax expression/statement/array literal to ``out``."""
    stack = [e]
    while stack:
        x = stack.pop()
        if x is None:
            continue
        if isinstance(x, s.SName):
            out.add(x.name)
        elif isinstance(x, (tuple, list)):
            stack.extend(x)
        elif dataclasses.is_dataclass(x) and not isinstance(x, (s.Term, type)):
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x) if f.name != "span")


def _term_names(
    term: s.Term, cache: dict[int, frozenset[str]], macros: dict[str, s.SBlock]
) -> frozenset[str]:
    """Return the identifiers a process term may read (an over-approximation: every
    name written in it or in the block macros it uses, not descending into referenced
    definitions)."""
    hit = cache.get(id(term))
    if hit is not None:
        return hit
    names: set[str] = set()
    stack: list[s.Term] = [term]
    while stack:
        t = stack.pop()
        for f in dataclasses.fields(t):
            if f.name == "span":
                continue
            value = getattr(t, f.name)
            if isinstance(value, s.Term):
                stack.append(value)
            elif isinstance(value, tuple) and value and all(
                isinstance(v, s.Term) for v in value
            ):
                stack.extend(value)
            elif isinstance(t, s.Case) and f.name == "branches":
                for cond, body in value:
                    _expr_names(cond, names)
                    stack.append(body)
            else:
                _expr_names(value, names)
    pending = [n for n in names if n in macros]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        inner: set[str] = set()
        _expr_names(macros[name], inner)
        names |= inner
        pending.extend(n for n in inner if n in macros)
    result = frozenset(names)
    cache[id(term)] = result
    return result


def _leaves(node: _Node, final: bool = False) -> list[_Leaf]:
    """Return the leaves of ``node``; ``final``: only those that end it (not the prefix
    of a ``;`` node)."""
    out: list[_Leaf] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.leaf is not None:
            out.append(n.leaf)
        if final and n.op == ";":
            stack.append(n.children[1])
        else:
            stack.extend(n.children)
    return out


@dataclass
class _Node:
    """A composition node under construction: ``op`` "|||"/"||" or a leaf."""

    op: str | None
    children: list[_Node] = field(default_factory=list)
    leaf: _Leaf | None = None


class _SystemBuilder:
    def __init__(self, low: _Lowerer, target: s.Target) -> None:
        self.low = low
        self.target = target
        self.leaf_count = itertools.count(1)
        self.processes: dict[tuple, tuple[Process, _LeafBuilder]] = {}
        self.instances: list[Instance] = []
        self.instance_builders: list[_LeafBuilder] = []
        self.instance_leaves: list[_Leaf] = []
        self.gates = 0
        self.gate_vars: list[Variable] = []
        self._nesting: list[int] = []  # nested compositions being unfolded (term ids)
        self.owner: dict[int, int] = {}  # operand instance -> the instance that starts it

    def compose(self, term: s.Term, env: Env, def_name: str | None, depth: int = 0) -> _Node:
        low = self.low
        if depth > MAX_UNFOLD:
            raise SemanticError.at(term.span, "process definition unfolds without end")
        if isinstance(term, s.ProcRef):
            d = low.definition(term)
            if _is_composition(low, d.body):
                values: dict[str, Expr] = {}
                for p, arg in zip(d.params, term.args, strict=True):
                    v = low.expr(arg, _Ctx(env=env))
                    if not isinstance(v, Const):
                        raise SemanticError.at(
                            arg.span,
                            f"argument of '{term.name}' must be a constant: it selects the "
                            "operands of a parallel composition",
                        )
                    values[p.name] = Const(v.value)
                return self.compose(d.body, tuple(sorted(values.items())), d.name, depth + 1)
            return self.leaf(term, env, d.name)
        if (
            isinstance(term, s.Binary) and term.op == ";"
            and _is_composition(low, term.operands[-1])
        ):
            # ``Init(); (A ||| B)``: the prefix runs first; its last step hands over
            # (``Skip ; Q`` behaves as Q directly, so there is no extra step).
            # A composition inside the prefix is a nested one (the prefix leaf's).
            prefix_term = (
                term.operands[0] if len(term.operands) == 2
                else low.seq_prefix(term, len(term.operands) - 1)
            )
            prefix = self.leaf(prefix_term, env, def_name)
            rest = self.compose(term.operands[-1], env, def_name, depth + 1)
            return _Node(";", [prefix, rest])
        if isinstance(term, s.Binary) and term.op in ("|||", "||"):
            node = _Node(term.op)
            for op in term.operands:
                self._add_child(node, self.compose(op, env, def_name, depth + 1))
            return node
        if isinstance(term, s.Hiding) and _is_composition(low, term.body):
            # Hiding distributes over interleaving (not over '||', where hidden events
            # still synchronise): every leaf hides the events itself.
            node = self.compose(term.body, env, def_name, depth + 1)
            if _has_parallel(node):
                raise UnsupportedError.at(
                    term.span, "unsupported construct: hiding above a '||' composition"
                )
            for item in term.events:
                if item.event.name in low.channels:
                    raise UnsupportedError.at(
                        item.span, "unsupported construct: hiding channel events"
                    )
            names = frozenset(low.alphabet_items(term.events, env))
            bases = frozenset(item.event.name for item in term.events)
            for leaf in _leaves(node):
                leaf.hidden = leaf.hidden | names
                leaf.hidden_bases = leaf.hidden_bases | bases
            return node
        if isinstance(term, s.Indexed) and term.op in ("|||", "||"):
            node = _Node(term.op)
            if term.index.count is not None and term.op == "||":
                raise SemanticError.at(term.index.span, "'{n}' replication is only for '|||'")
            for e in low.index_envs(term.index, env):
                self._add_child(node, self.compose(term.body, e, def_name, depth + 1))
            return node
        return self.leaf(term, env, def_name)

    @staticmethod
    def _add_child(node: _Node, child: _Node) -> None:
        if child.op == node.op:
            node.children.extend(child.children)
        else:
            node.children.append(child)

    def leaf(self, term: s.Term, env: Env, def_name: str | None) -> _Node:
        low = self.low
        if isinstance(term, s.ProcRef):
            shown = []
            for arg in term.args:
                v = low.expr(arg, _Ctx(env=env))
                shown.append(str(int(v.value)) if isinstance(v, Const) and not isinstance(
                    v.value, bool) else (str(v.value).lower() if isinstance(v, Const) else "?"))
            name = f"{term.name}({', '.join(shown)})"
            def_name = term.name
        else:
            name = f"{def_name or 'P'}.{next(self.leaf_count)}"
        return _Node(None, leaf=_Leaf(term, env, name, def_name, term.span))

    def build_node(self, node: _Node) -> tuple[Composition, list[int]]:
        """Return the composition of ``node`` and the instance ids under it."""
        if node.leaf is not None:
            leaf = node.leaf
            leaf.fresh_global = self._fresh_global
            key = (id(leaf.term), leaf.env, leaf.gate, leaf.gate_set, leaf.hidden, leaf.park)
            cached = self.processes.get(key)
            if cached is not None and cached[1].nested:
                # Its nested compositions have their own operands and globals.
                key = (*key, len(self.instances))
                cached = None
            if cached is None:
                builder, process = _build_leaf(self.low, leaf)
                names = {p.name for p, _ in self.processes.values()}
                if process.name in names:
                    k = 2
                    while f"{process.name}#{k}" in names:
                        k += 1
                    process = dataclasses.replace(process, name=f"{process.name}#{k}")
                self.processes[key] = (process, builder)
            process, builder = self.processes[key]
            iid = len(self.instances)
            same = sum(1 for i in self.instances if i.process == process.name)
            iname = process.name if same == 0 else f"{process.name}[{same}]"
            if same == 1:
                first = next(k for k, i in enumerate(self.instances) if i.process == process.name)
                self.instances[first] = dataclasses.replace(
                    self.instances[first], name=f"{process.name}[0]"
                )
            self.instances.append(Instance(process.name, (), iname, leaf.span))
            self.instance_builders.append(builder)
            self.instance_leaves.append(leaf)
            comp: Composition = InstanceRef(iid)
            ids = [iid]
            for rec in builder.nested.values():
                comp, more = self._nested_node(comp, iid, process, builder, rec, leaf)
                ids.extend(more)
            return comp, ids
        if node.op == ";":
            prefix, rest = node.children
            assert prefix.leaf is not None
            gate = self._fresh_global("_started")
            prefix.leaf.gate_set = gate
            self.gate_vars.append(
                Variable(gate, BoolType(), Const(False), span=prefix.leaf.span)
            )
            first, first_ids = self.build_node(prefix)
            # The rest starts when the prefix's last step sets the flag, or when a
            # composition that ends the prefix has ended (no step of its own).
            start: Expr = Var(gate, "global")
            for handover in self.instance_builders[first_ids[0]].handovers:
                start = Binary("||", start, handover)
            for leaf in _leaves(rest):
                leaf.gate = start
                leaf.behind_prefix = True
            second, second_ids = self.build_node(rest)
            return Interleave((first, second)), first_ids + second_ids
        parts = [self.build_node(c) for c in node.children]
        children = tuple(c for c, _ in parts)
        ids = [i for _, xs in parts for i in xs]
        terminating = any(self.instance_builders[i].can_terminate for i in ids)
        if node.op == "|||":
            if terminating and len(children) > 1:
                return Parallel(children, tuple(frozenset({TERMINATE}) for _ in children)), ids
            return Interleave(children), ids
        alphabets = []
        for _, xs in parts:
            alpha: set[str] = set()
            inside = set(xs)
            for i in xs:
                alpha |= self.alphabet(self._alphabet_source(i, inside))
            if terminating:
                alpha.add(TERMINATE)
            alphabets.append(frozenset(alpha))
        return Parallel(children, tuple(alphabets)), ids

    def _fresh_global(self, base: str) -> str:
        """Return a new bookkeeping global name ``baseK`` that no declaration uses."""
        low = self.low
        while True:
            name = f"{base}{self.gates}"
            self.gates += 1
            if name not in low.globals and name not in low.constants and (
                name not in low.props and name not in low.channels
            ):
                return name

    def _nested_node(
        self, comp: Composition, owner: int, process: Process, builder: _LeafBuilder,
        rec: _Nested, leaf: _Leaf,
    ) -> tuple[Composition, list[int]]:
        """Return ``comp`` (the leaf's composition so far) composed with the static
        instances of the nested composition ``rec``, and those instances' ids.

        The operands start dormant: the edges of their first location wait for
        ``rec.start`` (the flag set by the leaf's step that reaches the composition,
        or the end of the composition before it), so starting costs no step. "tail":
        ``Parallel`` on ``terminate`` with the leaf, whose only step there is its
        terminate (PAT's joint termination). "seq": the operands park at Skip,
        counting ``rec.join`` down, and at 0 the leaf's waiting location offers the
        continuation's steps (PAT's ``Sequence`` of a composition of Skips is its
        continuation, with no tau). Operands and leaf never run at the same time, and
        barriers between operands are those of the composition at top level
        (cspsharp.md section 7)."""
        term = rec.cfg[1]
        _check_reached_once(process, builder, rec)
        if id(term) in self._nesting:
            raise _nested_unsupported(term, "recursion (a process call cycle leads back to it)")
        self._nesting.append(id(term))
        try:
            node = self.compose(term, rec.cfg[2], leaf.def_name)
            for op_leaf in _leaves(node):
                op_leaf.gate = rec.start
                op_leaf.nested_op = True
            # Under ';' the operands park on the composition's count-down; a leaf
            # that itself parks and ends in a composition hands its count to them.
            park = rec.join if rec.kind == "seq" else leaf.park
            if park is not None:
                for op_leaf in _leaves(node, final=True):
                    op_leaf.park = park
            sub, ids = self.build_node(node)
        finally:
            self._nesting.pop()
        for i in ids:
            self.owner.setdefault(i, owner)
        if rec.flag is not None:
            self.gate_vars.append(Variable(rec.flag, BoolType(), Const(False), span=rec.span))
        if rec.kind == "tail":
            if leaf.park is not None:
                return Interleave((comp, sub)), ids
            both = frozenset({TERMINATE})
            return Parallel((comp, sub), (both, both)), ids
        assert rec.join is not None
        waiting = 0
        for i in ids:
            op_leaf = self.instance_leaves[i]
            if op_leaf.park != rec.join:
                continue
            if not _parks(self.instance_builders[i].cfgs[0]):
                waiting += 1
            elif op_leaf.behind_prefix:
                # Done from its start, but only once the prefix has handed over:
                # the count cannot see that.
                raise UnsupportedError.at(
                    op_leaf.span,
                    "unsupported construct: an operand 'P; (Skip ||| ...)' of a "
                    "composition followed by ';' (a sequential prefix before operands "
                    "that are Skip)",
                )
        self.gate_vars.append(
            Variable(rec.join, IntType(0, waiting, Overflow.ERROR, "var"), Const(waiting),
                     span=rec.span)
        )
        return Interleave((comp, sub)), ids

    def _declares_alphabet(self, iid: int) -> bool:
        leaf = self.instance_leaves[iid]
        return leaf.def_name is not None and leaf.def_name in self.low.alphabets and (
            isinstance(leaf.term, s.ProcRef) or not leaf.nested_op
        )

    def _alphabet_source(self, iid: int, inside: set[int]) -> int:
        """Return the instance whose alphabet stands for ``iid`` in an operand made of
        the instances ``inside``: the outermost process, in that operand, whose nested
        composition created ``iid`` and that has an ``#alphabet``, else ``iid``."""
        best = iid
        j = iid
        while j in self.owner:
            j = self.owner[j]
            if j in inside and self._declares_alphabet(j):
                best = j
        return best

    def alphabet(self, iid: int) -> set[str]:
        leaf = self.instance_leaves[iid]
        builder = self.instance_builders[iid]
        if self._declares_alphabet(iid):
            decl = self.low.alphabets[leaf.def_name]
            env = leaf.env
            if isinstance(leaf.term, s.ProcRef):
                d = self.low.definition(leaf.term)
                vals = {}
                for p, arg in zip(d.params, leaf.term.args, strict=True):
                    vals[p.name] = self.low.expr(arg, _Ctx(env=env))
                env = tuple(sorted(vals.items()))
            return self.low.alphabet_items(decl.items, env)
        if builder.dynamic_events:
            ev, span = builder.dynamic_events[0]
            raise SemanticError.at(
                span,
                f"the alphabet of '{leaf.name}' in '||' cannot be computed: event "
                f"'{ev.base}' has a component that depends on the state",
                f"declare it with '#alphabet {leaf.def_name or leaf.name} {{ ... }};'",
            )
        return set(builder.syntactic_events)


def _check_reached_once(process: Process, builder: _LeafBuilder, rec: _Nested) -> None:
    """Refuse the nested composition ``rec`` unless its operands exist exactly when
    PAT's term has them: the leaf's locations before it (reachable without entering
    it) and after it (reachable from it) are disjoint, only steps from before enter it,
    only steps from after reach its continuation, and the leaf cannot end before it.
    A composition started when a previous one ends ("chain") is checked with that one.
    """
    term = rec.cfg[1]
    locs = [i for i, c in enumerate(builder.cfgs) if c == rec.key]
    if not locs:
        return  # chained behind another composition (checked with that one)
    if len(locs) != 1:
        raise _nested_unsupported(term, "two different continuations")
    if builder.alias_conflict is not None:
        raise _nested_unsupported(
            term, "recursion, a loop or a choice (what follows it is also reached "
            "without it)"
        )
    target = locs[0]
    succ: dict[int, list[int]] = {loc.id: [] for loc in process.locations}
    for e in process.edges:
        succ[e.source].append(e.target)

    def reach(start: int, avoid: int | None) -> set[int]:
        seen = {start}
        stack = [start]
        while stack:
            x = stack.pop()
            for w in succ[x]:
                if w != avoid and w not in seen:
                    seen.add(w)
                    stack.append(w)
        return seen

    after = reach(target, None)
    before = set() if target == process.initial else reach(process.initial, target)
    for e in process.edges:
        if e.source in before and e.target != target and process.locations[e.target].terminal:
            raise _nested_unsupported(
                term, "a choice (the process may end without starting it)"
            )
    if before & after:
        raise _nested_unsupported(
            term, "a choice or loop (a part of the process is reached both before and "
            "after it)"
        )
    for e in process.edges:
        if e.target != target:
            continue
        if id(e) in builder.alias_edges:
            if e.source not in after:
                raise _nested_unsupported(
                    term, "a choice (what follows it is also reached without it)"
                )
        elif e.source in after:
            raise _nested_unsupported(term, "recursion or a loop (it may be reached twice)")


def _has_parallel(node: _Node) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.op == "||":
            return True
        stack.extend(n.children)
    return False


def _is_composition(low: _Lowerer, term: s.Term, depth: int = 0) -> bool:
    if isinstance(term, (s.Binary, s.Indexed)) and term.op in ("|||", "||"):
        return True
    if isinstance(term, s.Hiding):
        return _is_composition(low, term.body, depth + 1)
    if isinstance(term, s.Binary) and term.op == ";":
        return _is_composition(low, term.operands[-1], depth + 1)
    if isinstance(term, s.ProcRef) and depth < MAX_UNFOLD:
        d = low.defs.get(term.name)
        return d is not None and _is_composition(low, d.body, depth + 1)
    return False






def _all_terms(defs: Iterable[s.ProcDef]) -> Iterable[s.Term]:
    """Yield every process term of the definitions (iteratively)."""
    stack: list[s.Term] = [d.body for d in defs]
    while stack:
        t = stack.pop()
        yield t
        if isinstance(t, s.EventPrefix):
            stack.append(t.body)
        elif isinstance(t, (s.SendPrefix, s.RecvPrefix, s.Guard, s.Atomic, s.Hiding)):
            stack.append(t.body)
        elif isinstance(t, s.Binary):
            stack.extend(t.operands)
        elif isinstance(t, s.Indexed):
            stack.append(t.body)
        elif isinstance(t, s.IfProc):
            stack.append(t.then)
            if t.otherwise is not None:
                stack.append(t.otherwise)
        elif isinstance(t, s.Case):
            stack.extend(b for _, b in t.branches)
            if t.default is not None:
                stack.append(t.default)


def _collect_event_names(low: _Lowerer) -> None:
    """Record every event base name written in a process definition (for LTL atoms)."""
    for t in _all_terms(low.defs.values()):
        if isinstance(t, s.EventPrefix) and not t.event.is_tau:
            low.event_bases.add(t.event.name)


def lower_program(program: s.Program) -> ModelFile:
    """Return the ``ModelFile`` of ``program``: one ``TransitionSystem`` per distinct
    assertion target, in order of first use (cspsharp.md sections 6-7).

    A file without assertions yields no system. Raises ``SemanticError`` /
    ``UnsupportedError`` with spans.
    """
    from bridge.frontends.csp.ltl import parse_ltl

    low = _Lowerer(program)
    low.declare()
    _collect_event_names(low)
    propositions = tuple(
        Proposition(name, low._proposition(name, d.name_span), d.span)
        for name, d in low.props.items()
    )
    groups: dict[tuple, list[tuple[int, s.Assertion]]] = {}
    order: list[tuple] = []
    for number, a in enumerate(program.assertions, start=1):
        key = _target_key(low, a.target)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append((number, a))
    systems = []
    for key in order:
        first = groups[key][0][1]
        ref = s.ProcRef(first.target.span, first.target.name, first.target.args, True)
        builder = _SystemBuilder(low, first.target)
        node = builder.compose(ref, (), None)
        composition, _ = builder.build_node(node)
        target_text = _target_text(key)
        properties = []
        for number, a in groups[key]:
            properties.append(_property(low, a, number, target_text, parse_ltl))
        systems.append(
            TransitionSystem(
                name=target_text,
                language=SourceLanguage.CSP,
                globals=tuple(low.global_vars) + tuple(builder.gate_vars),
                channels=tuple(low.channels.values()),
                processes=tuple(p for p, _ in builder.processes.values()),
                instances=tuple(builder.instances),
                composition=composition,
                propositions=propositions,
                properties=tuple(properties),
                enums=tuple(low.enums),
                source_files=tuple(program.sources),
            )
        )
    return ModelFile(program.path, tuple(systems))


def _target_key(low: _Lowerer, target: s.Target) -> tuple:
    d = low.definition(s.ProcRef(target.span, target.name, target.args, True))
    values = []
    for arg in target.args:
        v = low.expr(arg, _Ctx())
        if not isinstance(v, Const):
            raise SemanticError.at(arg.span, "an assertion target's arguments must be constants")
        values.append(v.value)
    del d
    return (target.name, tuple(values))


def _target_text(key: tuple) -> str:
    name, values = key
    if not values:
        return name
    shown = ", ".join(str(v).lower() if isinstance(v, bool) else str(v) for v in values)
    return f"{name}({shown})"


_KINDS = {
    "deadlockfree": PropertyKind.DEADLOCK_FREE,
    "nonterminating": PropertyKind.NONTERMINATING,
    "divergencefree": PropertyKind.DIVERGENCE_FREE,
    "deterministic": PropertyKind.DETERMINISTIC,
}


def _property(low: _Lowerer, a: s.Assertion, number: int, target: str, parse_ltl) -> Property:
    text = a.text.removeprefix("#assert").strip() if a.text else f"{target} {a.kind}"
    name = text
    if a.kind in _KINDS:
        return Property(name, _KINDS[a.kind], text, target=target, number=number, span=a.span)
    if a.kind == "reaches":
        assert a.proposition is not None
        pname = a.proposition
        if pname in low.props:
            cond = low._proposition(pname, a.proposition_span)
        elif pname in low.constants and isinstance(low.constants[pname], bool):
            cond = Const(low.constants[pname])
        elif pname in low.globals:
            raise SemanticError.at(
                a.proposition_span,
                f"'reaches' needs a #define proposition, not the variable '{pname}'",
                f"write '#define goal {pname} == ...;' and 'reaches goal'",
            )
        else:
            raise low._undeclared(pname, a.proposition_span, "proposition")
        optimise = None
        if a.optimise is not None:
            which, e = a.optimise
            value, t = low.typed(e, _Ctx())
            if t == "bool":
                raise SemanticError.at(e.span, f"'with {which}(...)' needs an integer expression")
            optimise = (which, value)
        return Property(name, PropertyKind.REACHES, text, target=target, condition=cond,
                        optimise=optimise, number=number, span=a.span)
    if a.kind == "ltl":
        formula = parse_ltl(a.ltl_text, a.ltl_span, low)
        return Property(name, PropertyKind.LTL, text, target=target, formula=formula,
                        number=number, span=a.span)
    if a.kind == "refines":
        raise UnsupportedError.at(a.span, "unsupported construct: refinement checking 'refines'")
    raise SemanticError.at(a.span, f"unknown assertion kind '{a.kind}'")  # pragma: no cover
