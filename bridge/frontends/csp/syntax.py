"""The CSP# syntax tree: what ``parse.py`` returns and ``lower.py`` consumes.

Plain frozen dataclasses with spans; names are unresolved (the lowering resolves them
against constants, variables, parameters and channel-input bindings). Process-term nodes
compare by identity (``eq=False``) because the lowering uses them as location keys
(cspsharp.md section 3).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge.diagnostics import Span

# ---------------------------------------------------------------------------------
# Expressions


@dataclass(frozen=True, slots=True)
class SInt:
    value: int
    span: Span


@dataclass(frozen=True, slots=True)
class SBool:
    value: bool
    span: Span


@dataclass(frozen=True, slots=True)
class SName:
    name: str
    span: Span


@dataclass(frozen=True, slots=True)
class SIndex:
    base: SExpr
    index: SExpr
    span: Span


@dataclass(frozen=True, slots=True)
class SUnary:
    op: str  # "-", "!"
    operand: SExpr
    span: Span


@dataclass(frozen=True, slots=True)
class SBinary:
    op: str  # source spelling; "%" is PAT's non-negative modulo
    left: SExpr
    right: SExpr
    span: Span


@dataclass(frozen=True, slots=True)
class SAssign:
    target: SExpr
    value: SExpr
    span: Span


@dataclass(frozen=True, slots=True)
class SIncDec:
    target: SExpr
    delta: int
    span: Span


@dataclass(frozen=True, slots=True)
class SCall:
    function: str
    args: tuple[SExpr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class SMethodCall:
    """``obj.Method(args)``: a method of a PAT library object (``s.Add(3)``)."""

    target: SExpr
    method: str
    args: tuple[SExpr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class SNew:
    """``new Set()``: a fresh object of a PAT library class."""

    type_name: str
    args: tuple[SExpr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class SIndexedOp:
    """``(&& i:{0..2} @ e)``, also ``||`` and ``xor``: the operator over every index."""

    op: str
    variables: tuple[IndexVar, ...]
    body: SExpr
    span: Span


SExpr = (
    SInt | SBool | SName | SIndex | SUnary | SBinary | SAssign | SIncDec | SCall | SIndexedOp
    | SMethodCall | SNew
)

# ---------------------------------------------------------------------------------
# Statements (event blocks)


@dataclass(frozen=True, slots=True)
class SExprStmt:
    expr: SExpr
    span: Span


@dataclass(frozen=True, slots=True)
class SLocalVar:
    name: str
    dims: tuple[SExpr, ...]
    init: SExpr | ArrayLit | None
    span: Span


@dataclass(frozen=True, slots=True)
class SIf:
    cond: SExpr
    then: SStmt
    otherwise: SStmt | None
    span: Span


@dataclass(frozen=True, slots=True)
class SWhile:
    cond: SExpr
    body: SStmt
    span: Span


@dataclass(frozen=True, slots=True)
class SBlock:
    stmts: tuple[SStmt, ...]
    span: Span


SStmt = SExprStmt | SLocalVar | SIf | SWhile | SBlock

# ---------------------------------------------------------------------------------
# Array literals: ``[4, 1(N), 7..9]``


@dataclass(frozen=True, slots=True)
class ArrayElem:
    kind: str  # "single", "repeat", "range", "nested"
    first: SExpr | ArrayLit
    second: SExpr | None
    span: Span


@dataclass(frozen=True, slots=True)
class ArrayLit:
    elems: tuple[ArrayElem, ...]
    span: Span


# ---------------------------------------------------------------------------------
# Events and indices


@dataclass(frozen=True, slots=True)
class SEvent:
    """``name.c1.c2`` or ``tau`` (name ``"tau"``, no components)."""

    name: str
    components: tuple[SExpr, ...]
    span: Span

    @property
    def is_tau(self) -> bool:
        return self.name == "tau"


@dataclass(frozen=True, slots=True)
class IndexVar:
    """``i:{lo..hi}`` (``values`` None) or ``i:{a, b, c}``."""

    name: str
    lo: SExpr | None
    hi: SExpr | None
    values: tuple[SExpr, ...] | None
    span: Span


@dataclass(frozen=True, slots=True)
class Index:
    """The index of a replicated operator: variables, or a count ``{n}``, or ``{..}``."""

    variables: tuple[IndexVar, ...] = ()
    count: SExpr | None = None
    unbounded: bool = False
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class AlphaItem:
    event: SEvent
    variables: tuple[IndexVar, ...]
    span: Span


# ---------------------------------------------------------------------------------
# Process terms (identity semantics: used as location keys)


@dataclass(frozen=True, eq=False)
class Term:
    span: Span


@dataclass(frozen=True, eq=False)
class Skip(Term):
    pass


@dataclass(frozen=True, eq=False)
class Stop(Term):
    pass


@dataclass(frozen=True, eq=False)
class ProcRef(Term):
    name: str
    args: tuple[SExpr, ...]
    has_parens: bool


@dataclass(frozen=True, eq=False)
class EventPrefix(Term):
    """``ev -> P``, ``ev{block} -> P``, ``tau -> P``, ``{block} -> P``, ``wf(ev) -> P``."""

    event: SEvent
    block: SBlock | None
    body: Term
    fairness: str | None = None


@dataclass(frozen=True, eq=False)
class SendPrefix(Term):
    channel: str
    fields: tuple[SExpr, ...]
    block: SBlock | None
    body: Term
    channel_span: Span | None = None
    index: SExpr | None = None  # ``c[i]!v``: an element of a channel array


@dataclass(frozen=True, eq=False)
class RecvPrefix(Term):
    channel: str
    guard: SExpr | None
    fields: tuple[SExpr, ...]
    block: SBlock | None
    body: Term
    channel_span: Span | None = None
    index: SExpr | None = None


@dataclass(frozen=True, eq=False)
class Guard(Term):
    cond: SExpr
    body: Term


@dataclass(frozen=True, eq=False)
class Binary(Term):
    """An n-ary operator: ``|||``, ``||``, ``[]``, ``<>``, ``[*]``, ``;``, ``interrupt``."""

    op: str
    operands: tuple[Term, ...]


@dataclass(frozen=True, eq=False)
class Indexed(Term):
    """``op index @ body`` for op in ``|||``, ``||``, ``[]``, ``<>``, ``[*]``."""

    op: str
    index: Index
    body: Term


@dataclass(frozen=True, eq=False)
class Hiding(Term):
    body: Term
    events: tuple[AlphaItem, ...]


@dataclass(frozen=True, eq=False)
class Atomic(Term):
    body: Term


@dataclass(frozen=True, eq=False)
class IfProc(Term):
    """``if``/``ifa``/``ifb``: ``kind`` names which; ``otherwise`` None: no else."""

    kind: str
    cond: SExpr
    then: Term
    otherwise: Term | None


@dataclass(frozen=True, eq=False)
class Case(Term):
    branches: tuple[tuple[SExpr, Term], ...]
    default: Term | None


# ---------------------------------------------------------------------------------
# Top-level items


@dataclass(frozen=True, slots=True)
class Define:
    """``#define name expr;``, ``#define name {block};`` or, with ``params``, a macro
    ``#define name(p1, p2) body;`` used as ``call(name, a1, a2)`` (PAT 3.4.2)."""

    name: str
    expr: SExpr | None
    block: SBlock | None
    span: Span
    name_span: Span
    params: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class EnumDecl:
    names: tuple[tuple[str, Span], ...]
    span: Span


@dataclass(frozen=True, slots=True)
class VarDecl:
    name: str
    hidden: bool
    dims: tuple[SExpr, ...]
    range: tuple[SExpr | None, SExpr | None] | None
    init: SExpr | ArrayLit | None
    wildcard: bool
    span: Span
    name_span: Span
    object_type: str | None = None  # ``var<Set> s;``: a PAT library class


@dataclass(frozen=True, slots=True)
class ChannelDecl:
    name: str
    size: SExpr | None
    capacity: SExpr
    span: Span
    name_span: Span


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    span: Span


@dataclass(frozen=True, slots=True)
class ProcDef:
    name: str
    params: tuple[Param, ...]
    body: Term
    span: Span
    name_span: Span


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    args: tuple[SExpr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Assertion:
    """``#assert target kind``; ``kind`` is the keyword (``deadlockfree``, ``reaches``,
    ``ltl``, ``refines``...)."""

    target: Target
    kind: str
    span: Span
    proposition: str | None = None
    proposition_span: Span | None = None
    optimise: tuple[str, SExpr] | None = None
    ltl_text: str = ""
    ltl_span: Span | None = None
    text: str = ""
    spec: Target | None = None  # ``refines``: the specification
    refinement: str = ""  # ``refines``: "" (traces), "F" or "FD"


@dataclass(frozen=True, slots=True)
class AlphabetDecl:
    process: str
    items: tuple[AlphaItem, ...]
    span: Span


@dataclass
class Program:
    """A parsed file with its ``#include``s merged in (items in file order, except
    ``assertions``: the main file's first, as PAT numbers them)."""

    path: str
    defines: list[Define] = field(default_factory=list)
    enums: list[EnumDecl] = field(default_factory=list)
    variables: list[VarDecl] = field(default_factory=list)
    channels: list[ChannelDecl] = field(default_factory=list)
    processes: list[ProcDef] = field(default_factory=list)
    assertions: list[Assertion] = field(default_factory=list)
    alphabets: list[AlphabetDecl] = field(default_factory=list)
    imports: list[tuple[str, Span]] = field(default_factory=list)  # ``#import "PAT.Math";``
    sources: dict[str, str] = field(default_factory=dict)
    # Resolved paths of the files read (the main file and each #include, once).
    included: set[str] = field(default_factory=set)
