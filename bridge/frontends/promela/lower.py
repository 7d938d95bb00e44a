"""Return the IR ``TransitionSystem`` of a parsed Promela model (DESIGN.md section 2).

Each proctype (and ``init``, and the ``never`` claim) becomes a ``Process``: a control
flow graph whose edges are the statements. How SPIN constructs map to the graph
(checked against SPIN 6.5.2 state counts, see tests/differential):

* **Statements.** Every executable statement is one edge from the location before it
  to the location after it, with ``text`` = its source text and ``span``. Conditions
  are guards, send/receive are the edge's ``comm``, assignments/assert/printf/run
  are the ``effect``. ``skip``/``true`` have guard None. ``else`` is ``ElseGuard``;
  ``timeout`` is ``Builtin("timeout")``.
* **if/do.** Options start at the location of the ``if``/``do`` itself (a ``do``
  loops back to it); ``break`` and ``goto`` are jumps, not steps: the location before
  them is merged with their target, exactly as SPIN's jump elimination does, except
  when the jump is the first statement of an option, where it is an unconditional
  edge (SPIN executes such a ``goto`` as a step). A compound statement that is the first
  statement of an option is compiled at a fresh location whose outgoing edges are
  copied onto the option's location.
* **Declarations.** Locals are created with the process; a local declaration with an
  initialiser before the body's first statement is its initial value, after it the
  variable starts at 0 and the initialiser is an assignment statement there (SPIN
  6.5.2 behaviour, checked). Typedef records are flattened into one variable per
  leaf field, named ``r.f.g``; arrays of records become arrays per leaf field
  (``Rec r[3]`` with field ``b[2]`` gives ``r.b`` of type ``short[3][2]``).
* **Channels.** ``chan q = [N] of {...}`` becomes a ``Channel`` named ``q`` (global:
  ``TransitionSystem.channels``, ids 1.. in declaration order; local:
  ``Process.channels``, created per instance) and ``q`` in expressions is
  ``Var("q")``, which the engine reads as the channel id. A channel array
  ``chan c[3] = ...`` (global) is three channels ``c[0]..c[2]`` plus an array variable
  ``c`` holding their ids. ``chan x`` without initialiser (and ``chan`` parameters) are
  ordinary variables of ``ChanType``.
* **atomic.** A straight-line atomic sequence whose statements after the first can
  never block (assignments, ``assert``, ``printf``, ``skip``), and whose first statement
  is not a rendezvous, is one edge, like a ``d_step``: pan stores none of its
  intermediate states and a never claim cannot step inside it, so this is exactly
  SPIN's observable behaviour (and keeps those states out of fairness checks); not
  inside the main part of an ``unless``, whose escape may interrupt it, nor in a
  proctype with a ``provided`` clause, which may block it midway. Any
  other atomic sequence keeps its statements as edges: the locations after the first
  statement get ``atomic=True``; the first statement leaves from an ordinary location
  (its out-edges are copies of those of the atomic entry location, so a loop back to
  the start of the sequence stays atomic).
* **d_step.** One edge: the guard (or ``comm``) of its first statement, and an effect
  holding the whole sequence with ``If``/``While`` (first enabled option wins; a
  ``do`` uses a block-local break flag). A condition that is false later in the
  sequence, or an ``if``/``do`` without enabled option, is an ``AssertStmt`` whose text
  starts with ``block in d_step`` (SPIN reports the pan error of that name).
* **unless.** ``{ M } unless { E }``: at every location of ``M`` the first edges of
  ``E`` are added and every edge of ``M`` gets the conjunct ``!g`` where ``g`` is the
  executability of ``E``'s first statement (a condition, a poll for a receive, ``nfull``
  for a buffered send), so the escape has priority; ``else`` edges need no conjunct
  (the escape edge is a sibling). Nested: the outer escape is applied last, so it has
  priority over the inner one, as in SPIN.
* **provided (e).** ``e`` is conjoined to the guard of every edge of the proctype
  (an ``else`` is written out as "no sibling executable") and kept as
  ``Process.provided``: SPIN guards the removal of a finished instance by it too.
* **Labels.** A label names the location before its statement (``Location.labels``);
  ``end*``/``progress*``/``accept*`` set ``end``/``progress``/``accept``. The final
  location (the closing ``}``) is ``terminal=True, end=True``.

**Promela actions** (for event-level fairness): an action is one edge (statement) of
one process instance, ``Step.action == (instance id, edge index)``. Every edge leaving a
location that carries a user label gets ``label`` (the first label) and
``event=Event(label)``, so ``--fair sf:LABEL`` names the statement(s) written after
``LABEL:`` in every instance of the proctype.

**Instances.** ``active [N] proctype`` gives N initial instances with zero arguments,
``init`` one; pids follow declaration order of the active proctypes and ``init`` (SPIN
6.5.2: ``init`` written first gets pid 0, checked). ``run`` is a ``Run`` effect.

**Properties.** Each ``ltl name { f }`` is ``Property(kind=LTL, name=name)`` numbered
1, 2, ... in file order (unnamed: ``ltl_0``, ``ltl_1``, ...; so ``--assert 1`` is the
first ltl block, as a SPIN user counts them); the implicit
``Property(kind=SAFETY, name="safety")`` (assertions and invalid end states) comes last. The never claim
is kept in ``TransitionSystem.never`` (not an instance); when there is one,
``Property(kind=NEVER, name="never")`` comes after the ltl blocks and before ``safety``.
"""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from lark import Token, Tree

from bridge.diagnostics import ParseError, SemanticError, Span, UnsupportedError
from bridge.frontends.promela.preprocess import Preprocessed
from bridge.ir import (
    BIT,
    BYTE,
    INT,
    PID,
    SHORT,
    ArrayType,
    AssertStmt,
    Assign,
    Binary,
    Builtin,
    Channel,
    ChannelAssertion,
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
    Instance,
    IntType,
    LocalVar,
    Location,
    Overflow,
    Print,
    Process,
    Property,
    PropertyKind,
    Proposition,
    Receive,
    RecvArg,
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
    unsigned,
)

BOOL_T = IntType(0, 1, Overflow.WRAP, "bool")
_BUILTINS = {"_pid", "_nr_pr", "_last"}
_BINOPS = {
    "PIPE": "|", "CARET": "^", "AMP": "&", "ANDAND": "&&", "OROR": "||", "EQ": "==",
    "NE": "!=", "LT": "<", "GT": ">", "LE": "<=", "GE": ">=", "LSHIFT": "<<",
    "RSHIFT": ">>", "PLUS": "+", "MINUS": "-", "STAR": "*", "SLASH": "/", "PERCENT": "%",
}
_LTL_NODES = {"ltl_binary", "ltl_unary", "ltl_not_unary"}


def mtype_type(name: str | None) -> IntType:
    """Return the IR type of ``mtype`` / ``mtype:name`` variables (a byte)."""
    return IntType(0, 255, Overflow.WRAP, "mtype" if name is None else f"mtype:{name}")


# ---------------------------------------------------------------------------------
# Symbols


@dataclass
class _Field:
    name: str
    type: Type | None  # None for a record field
    record: str | None
    length: int | None
    init: Expr | tuple[Expr, ...] | _ChanInit | None = None


@dataclass(frozen=True)
class _ChanInit:
    """A typedef field ``chan c = [capacity] of { fields }``: every variable of the
    record type gets a channel of its own for the field (SPIN creates it with the
    variable)."""

    capacity: int
    fields: tuple[Type, ...]


@dataclass
class _Sym:
    """A declared name: a variable (scalar/array), a record, a channel or a constant."""

    kind: str  # "var" | "record" | "chan" | "const"
    name: str
    scope: str  # "global" | "local"
    type: Type | None = None
    record: str | None = None
    length: int | None = None
    value: int = 0
    fields: tuple[Type, ...] | None = None  # message fields of a declared channel
    capacity: int | None = None
    span: Span | None = None
    # a local channel the proctype assigns to (``c = d``, or receives into): which
    # channel the name stands for is known only at run time
    reassigned: bool = False


def _wrap(t: Type, dims: Sequence[int]) -> Type:
    for n in reversed(dims):
        t = ArrayType(t, n)
    return t


def _children(tree: Tree) -> list:
    return [c for c in tree.children if c is not None]


def _subtrees(tree: Tree) -> list[Tree]:
    return [c for c in tree.children if isinstance(c, Tree)]


# ---------------------------------------------------------------------------------
# The process builder


@dataclass
class _Loc:
    labels: list[str] = field(default_factory=list)
    atomic: bool = False
    span: Span | None = None


@dataclass
class _Edge:
    source: int
    target: int
    guard: Expr | None = None
    comm: Send | Receive | None = None
    effect: tuple[Stmt, ...] = ()
    text: str = ""
    span: Span | None = None
    # The location whose statement this edge is a copy of (an if/do option's first
    # statement copied to the head): its label names the copy too.
    origin: int | None = None


@dataclass(eq=False)
class _Escape:
    """The escape of one ``unless``, as it applies at one of its main locations.

    SPIN gives an executable escape priority over *every* transition of the state,
    so at a location shared with sibling options (an unless that starts an option of
    an if/do) the siblings are pre-empted as well (checked with pan). ``guard`` is
    the escape's executability (None until a jump escape is resolved in ``finish``);
    ``pending`` the edges still to be conjoined with ``!guard`` then.
    """

    guard: Expr | None
    pending: list[_Edge] = field(default_factory=list)

    def pre_empt(self, edge: _Edge) -> None:
        """Let this escape take priority over ``edge`` (now, or once resolved)."""
        if isinstance(edge.guard, ElseGuard):
            return  # else is taken only when no sibling, the escape included, can be
        if self.guard is None:
            self.pending.append(edge)
            return
        neg = Unary("!", self.guard, edge.span)
        edge.guard = neg if edge.guard is None else Binary("&&", edge.guard, neg, edge.span)


@dataclass(eq=False)
class _JumpEscape:
    """An escape whose first statement is a jump: SPIN eliminates the jump, so the
    escape is the statement at the jump's target, known only in ``finish``."""

    escape: _Escape
    entry: int
    main_locs: set[int]
    end: int
    where: Tree
    span: Span | None = None
    copies: set[int] = field(default_factory=set)  # got the main's edges by copy_out


class _ProcBuilder:
    """Collects locations and edges of one process; ``finish`` returns the Process."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.locs: list[_Loc] = []
        self.edges: list[_Edge] = []
        self.parent: dict[int, int] = {}
        # label -> every (block scope path, location) it names: SPIN 6 scopes labels to
        # their block, so two inline expansions (or two blocks) may each have one.
        self.labels: dict[str, list[tuple[tuple[int, ...], int]]] = {}
        self.label_spans: dict[str, Span | None] = {}
        self.gotos: list[tuple[int, str, Span | None, bool, str, tuple[int, ...]]] = []
        self.atomic_depth = 0
        self.loops: list[int] = []
        self.locals: list[Variable] = []
        self.channels: list[Channel] = []
        self.symbols: dict[str, _Sym] = {}
        self.parameters: list[str] = []
        self.stmt_seen = False
        self.in_dstep = False
        self.has_provided = False
        self.channel_assertions: list[ChannelAssertion] = []
        self.assigned: set[str] = set()  # names the body assigns to (see _Sym.reassigned)
        # location -> escapes that apply there, each with the ids of its edges there
        # that it already covers (its own, or pre-empted already)
        self.escapes: dict[int, list[tuple[_Escape, set[int]]]] = {}
        self.jump_escapes: list[_JumpEscape] = []

    def new_loc(self, span: Span | None = None) -> int:
        self.locs.append(_Loc(atomic=self.atomic_depth > 0, span=span))
        return len(self.locs) - 1

    def find(self, loc: int) -> int:
        seen = []
        while loc in self.parent:
            seen.append(loc)
            loc = self.parent[loc]
        for s in seen:
            self.parent[s] = loc
        return loc

    def alias(self, loc: int, target: int, span: Span | None) -> None:
        a, b = self.find(loc), self.find(target)
        if a == b:
            raise SemanticError.at(span, "a jump to itself (an endless loop without a step)")
        self.parent[a] = b

    def add_edge(self, edge: _Edge) -> _Edge:
        self.edges.append(edge)
        return edge

    def out_edges(self, loc: int) -> list[_Edge]:
        return [e for e in self.edges if e.source == loc]

    def copy_out(self, src: int, dst: int) -> None:
        """Give ``dst`` copies of the edges leaving ``src`` (or a jump when src merged)."""
        root = self.find(src)
        if root != src:
            self.add_edge(_Edge(dst, root, None, text="goto"))
            return
        copied: set[int] = set()
        for e in list(self.out_edges(src)):
            origin = e.origin if e.origin is not None else e.source
            copy = self.add_edge(replace(e, source=dst, origin=origin))
            copied.add(id(copy))
            for escape, _covered in self.escapes.get(src, ()):
                if any(p is e for p in escape.pending):
                    escape.pending.append(copy)
        for escape, _covered in self.escapes.get(src, ()):
            self.escapes.setdefault(dst, []).append((escape, set(copied)))
        for jump in self.jump_escapes:
            if src in jump.main_locs or src in jump.copies:
                jump.copies.add(dst)  # it gets the escape's edges when resolved

    def pre_empt_siblings(self, loc: int) -> None:
        """Give the escapes that apply at ``loc`` priority over every other edge there
        (the options of an if/do whose first statement is an unless)."""
        for escape, covered in self.escapes.get(loc, ()):
            for edge in self.out_edges(loc):
                if id(edge) not in covered:
                    covered.add(id(edge))
                    escape.pre_empt(edge)

    def resolve_jump_escapes(self, executable: Callable[[list[_Edge], Tree], Expr]) -> None:
        """Resolve escapes that start with a jump (after the gotos): the escape's edges
        are those of the statement the jump leads to."""
        for jump in self.jump_escapes:
            target = self.find(next(e.target for e in self.edges if e.source == jump.entry))
            edges = [e for e in self.edges if self.find(e.source) == target]
            if not edges:
                raise UnsupportedError.at(jump.span, "an escape that jumps to the end of a "
                                          "process is not supported by bridge")
            jump.escape.guard = executable(edges, jump.where)
            for edge in jump.escape.pending:
                jump.escape.pre_empt(edge)
            jump.escape.pending.clear()
            at = {loc for loc in jump.main_locs if loc != self.find(jump.end)} | jump.copies
            for loc in sorted(at):
                if self.find(loc) == loc:
                    for edge in edges:
                        self.add_edge(replace(edge, source=loc))

    def finish(
        self, terminal: int, span: Span | None, provided: Expr | None, initial: int = 0,
        executable: Callable[[list[_Edge], Tree | None], Expr] | None = None,
    ) -> Process:
        for src, label, lspan, as_edge, text, path in self.gotos:
            if label not in self.labels:
                known = ", ".join(sorted(self.labels)) or "none"
                raise SemanticError.at(
                    lspan, f"undefined label '{label}' in {self.name}", f"labels defined: {known}"
                )
            target = _label_target(self.labels[label], path)
            if as_edge:
                self.add_edge(_Edge(src, target, None, text=text, span=lspan))
            else:
                self.alias(src, target, lspan)
        if self.jump_escapes:
            assert executable is not None
            self.resolve_jump_escapes(executable)
        roots: list[int] = []
        index: dict[int, int] = {}
        for i in range(len(self.locs)):
            r = self.find(i)
            if r not in index:
                index[r] = len(roots)
                roots.append(r)
        merged: dict[int, _Loc] = {}
        for i, loc in enumerate(self.locs):
            r = self.find(i)
            m = merged.setdefault(r, _Loc(atomic=self.locs[r].atomic, span=self.locs[r].span))
            for lab in loc.labels:
                if lab not in m.labels:
                    m.labels.append(lab)
        term = self.find(terminal)
        locations = []
        for r in roots:
            m = merged[r]
            labs = tuple(m.labels)
            locations.append(
                Location(
                    index[r],
                    labs,
                    atomic=m.atomic and r != term,
                    end=r == term or any(lab.startswith("end") for lab in labs),
                    terminal=r == term,
                    accept=any(lab.startswith("accept") for lab in labs),
                    progress=any(lab.startswith("progress") for lab in labs),
                    span=m.span,
                )
            )
        edges = []
        for e in self.edges:
            src = index[self.find(e.source)]
            dst = index[self.find(e.target)]
            guard = e.guard
            if provided is not None:
                if isinstance(guard, ElseGuard):
                    # else = no sibling executable, written out, then the clause added
                    # (ElseGuard itself can only be a whole guard).
                    siblings = [o for o in self.edges
                                if o is not e and self.find(o.source) == self.find(e.source)]
                    if executable is None or not siblings:
                        raise UnsupportedError.at(
                            e.span, "'else' in a proctype with a provided clause is not supported")
                    guard = Unary("!", executable(siblings, None), e.span)
                guard = provided if guard is None else Binary("&&", guard, provided, e.span)
            labs = locations[src].labels
            if e.origin is not None:
                # do :: go: x = 1 -- the copy at the head is the statement labelled go
                labs = locations[index[self.find(e.origin)]].labels or labs
            label = labs[0] if labs else None
            edges.append(
                Edge(
                    src, dst, guard, e.comm, e.effect,
                    event=Event(label, (), e.span) if label else None,
                    label=label, text=e.text, span=e.span,
                )
            )
        return Process(
            self.name,
            tuple(self.parameters),
            tuple(self.locals),
            tuple(locations),
            tuple(edges),
            index[self.find(initial)],
            tuple(self.channels),
            span,
            provided,
            tuple(self.channel_assertions),
        )


# ---------------------------------------------------------------------------------
# The lowering


class _Lowering:
    def __init__(self, pre: Preprocessed, path: str) -> None:
        self.pre = pre
        self.path = path
        self.globals: list[Variable] = []
        self.channels: list[Channel] = []
        self.symbols: dict[str, _Sym] = {}
        self.typedefs: dict[str, list[_Field]] = {}
        self.inlines: dict[str, tuple[list[str], Tree, Span | None]] = {}
        self.proctypes: dict[str, Tree] = {}
        self.proc_params: dict[str, list[str]] = {}
        self.proc_locals: dict[str, dict[str, _Sym]] = {}
        self.proc_labels: dict[str, set[str]] = {}
        self.mtype_counts: dict[str | None, int] = {}
        self.enums: list[tuple[str, int]] = []
        self.pb: _ProcBuilder | None = None
        self.inline_env: list[dict[str, Tree]] = []
        self.inline_stack: list[str] = []
        self.remote_checks: list[tuple[str, str, str, Span | None]] = []
        # Block scopes of inline expansions (SPIN 6 scopes a declaration to its block):
        # a name declared in an inline body is local to that expansion.
        self.scopes: list[dict[str, _Sym]] = []
        self.scope_ids: list[int] = []  # a number per open block (labels' scope paths)
        self.scope_count = 0
        self.flags = 0
        self.end_condition: Expr | None = None  # set by a trace/notrace
        self.unless_depth = 0  # > 0 while lowering the main part of an unless
        # Process priorities (SPIN's HAS_PRIORITY): set before any body is lowered.
        self.priority_scheduling = False
        # Where the model uses enabled() (refused with rendezvous and provided).
        self.enabled_spans: list[Span | None] = []
        self.never_builder: _ProcBuilder | None = None

    # ------------------------------------------------------------------ spans/text

    def span(self, node: Tree | Token | None) -> Span | None:
        if node is None:
            return None
        if isinstance(node, Token):
            if node.line is None:
                return None
            width = max(len(str(node.value)), 1)
            return self.pre.span(node.line, node.column, node.line, node.column + width,
                                 str(node.value))
        meta = node.meta
        if getattr(meta, "empty", True):
            return None
        first = self.pre.text[meta.start_pos:meta.end_pos].split(None, 1)
        return self.pre.span(meta.line, meta.column, meta.end_line, meta.end_column,
                             first[0] if first else None)

    def text(self, node: Tree | Token | None, limit: int = 120) -> str:
        if node is None:
            return ""
        if isinstance(node, Token):
            return str(node.value)
        meta = node.meta
        if getattr(meta, "empty", True):
            return ""
        raw = self.pre.text[meta.start_pos : meta.end_pos]
        raw = re.sub(r"\s+", " ", raw).strip()
        return raw if len(raw) <= limit else raw[: limit - 3] + "..."

    def error(self, node: Tree | Token | None, message: str, *notes: str) -> SemanticError:
        return SemanticError.at(self.span(node), message, *notes)

    def unsupported(self, node: Tree | Token | None, what: str) -> UnsupportedError:
        return UnsupportedError.at(self.span(node), f"{what} is not supported by bridge")

    # ------------------------------------------------------------------ constants

    def const_int(self, tree: Tree | Token, what: str) -> int:
        e = self.expr(tree)
        value = _fold(e)
        if value is None:
            raise self.error(tree, f"{what} must be a constant")
        return value

    # ------------------------------------------------------------------ entry

    def run(self, tree: Tree) -> TransitionSystem:
        units = _subtrees(tree)
        # Pass 1: names of proctypes, inlines, typedefs (usable before declaration).
        for u in units:
            if u.data == "proctype":
                name_tok = next(c for c in u.children if isinstance(c, Token) and c.type == "NAME")
                if name_tok.value in self.proctypes:
                    raise self.error(name_tok, f"proctype '{name_tok.value}' already declared")
                self.proctypes[name_tok.value] = u
        self.priority_scheduling = _uses_priorities(tree)
        processes: list[Process] = []
        instances: list[Instance] = []
        ltls: list[Tree] = []
        never: Process | None = None
        trace: Tree | None = None
        init_seen = False
        pending_procs: list[tuple[str, Tree]] = []
        for u in units:
            kind = u.data
            if kind == "mtype_def":
                self.mtype_def(u)
            elif kind == "typedef":
                self.typedef(u)
            elif kind == "one_decl" or kind == "unsigned_decl":
                self.declare(u, None)
            elif kind == "inline_def":
                self.inline_def(u)
            elif kind in ("proctype", "init"):
                if kind == "init":
                    if init_seen:
                        raise self.error(u, "more than one init")
                    init_seen = True
                pending_procs.append((kind, u))
            elif kind == "never":
                if never is not None:
                    raise self.unsupported(u, "more than one never claim")
                pending_procs.append(("never", u))
                never = True  # type: ignore[assignment]
            elif kind == "trace":
                if trace is not None:
                    raise self.error(u, "a second trace/notrace (SPIN: 'trace redefined')")
                trace = u
            elif kind == "ltl":
                ltls.append(u)
            elif kind == "c_thing":
                raise self.unsupported(u, "embedded C")
            elif kind == "empty_unit":
                continue
            elif kind == "stray_backslash":
                raise ParseError.at(self.span(u), "syntax error: unexpected '\\'")
            else:  # pragma: no cover - grammar and lowering out of sync
                raise self.error(u, f"unexpected top-level construct {kind}")
        # Locals of every proctype first, so remote references P[i]:x can be checked.
        never = None
        for kind, u in pending_procs:
            if kind == "proctype":
                proc, count = self.proctype(u)
                processes.append(proc)
                priority = self.declared_priority(u)
                for _ in range(count):
                    pid = len(instances)
                    instances.append(
                        Instance(proc.name, tuple(Const(0) for _ in proc.parameters),
                                 f"{proc.name}[{pid}]", self.span(u), priority)
                    )
            elif kind == "init":
                proc = self.init(u)
                processes.append(proc)
                instances.append(Instance(proc.name, (), ":init:", self.span(u),
                                          self.declared_priority(u)))
            else:
                never = self.never(u)
        if trace is not None:
            processes = self.event_trace(trace, processes)
        self.check_remote(processes)
        properties: list[Property] = []
        from bridge.frontends.promela.ltl import lower_ltl

        for i, u in enumerate(ltls):
            name_tok = next((c for c in u.children if isinstance(c, Token) and c.type == "NAME"), None)
            name = str(name_tok.value) if name_tok is not None else f"ltl_{i}"
            if name == "safety" or any(p.name == name for p in properties):
                raise self.error(name_tok or u, f"ltl property '{name}' defined twice")
            body = _subtrees(u)[0]
            formula = lower_ltl(self, body)
            properties.append(
                Property(name, PropertyKind.LTL, self.text(body, 10_000), formula=formula,
                         number=len(properties) + 1, span=self.span(u))
            )
        self.check_remote(processes)
        if never is not None:
            properties.append(
                Property("never", PropertyKind.NEVER, "never claim",
                         number=len(properties) + 1, span=never.span)
            )
        properties.append(
            Property("safety", PropertyKind.SAFETY, "assertions and invalid end states",
                     number=len(properties) + 1)
        )
        properties.extend(_label_cycle_properties(processes, len(properties)))
        self.check_scheduling_constructs(processes)
        name = os.path.splitext(os.path.basename(self.path))[0] or "model"
        files = [self.path] + [f for f in dict.fromkeys(f for f, _ in self.pre.origin)
                               if f != self.path]
        return TransitionSystem(
            name=name,
            language=SourceLanguage.PROMELA,
            globals=tuple(self.globals),
            channels=tuple(self.channels),
            processes=tuple(processes),
            instances=tuple(instances),
            composition=None,
            propositions=tuple(self.propositions()),
            properties=tuple(properties),
            enums=tuple(self.enums),
            source_files=tuple(files),
            end_condition=self.end_condition,
            never=never,
            priority_scheduling=self.priority_scheduling,
        )

    # ------------------------------------------------------------------ trace/notrace

    def event_trace(self, u: Tree, processes: list[Process]) -> list[Process]:
        """Return ``processes`` checked against the ``trace`` (or ``notrace``) ``u``.

        SPIN (pan.c ``require``): the trace is an automaton over the sends and
        receives of the channels it names (sends only for a channel it only sends on,
        likewise receives); its state ``_event`` is part of the system state. Each such
        operation must match a step from the current state (a send after the message
        went in, a receive as it takes the message; constants must be equal, anything
        else is a wildcard), which the trace then takes; no match is the error "event_trace
        error (no matching event)", and so is any such operation once the trace has
        ended. A ``notrace`` is the reverse: reaching its end is the error "event_trace
        error (all events matched)", and its first mismatch switches it off for good.

        The trace becomes a global ``_event`` and, after every send or receive that may
        touch a traced channel, a statement that moves it or fails (an assertion whose
        text is pan's message). A receive into ``_`` binds a hidden scratch variable so
        the received value can be compared.
        """
        negated = u.children[0].type == "NOTRACE"
        pb = _ProcBuilder(":notrace:" if negated else ":trace:")
        pb.symbols["_"] = _Sym("var", "_", "local", type=INT)  # a wildcard in a trace send
        tproc = self.build_body(pb, _subtrees(u)[-1], None, self.span(u))
        end = next(loc.id for loc in tproc.locations if loc.terminal)
        steps: list[tuple[int, int, str, int, tuple[Expr | None, ...]]] = []
        for edge in tproc.edges:
            comm = edge.comm
            if comm is None or edge.guard is not None or edge.effect or \
                    (isinstance(comm, Receive) and (comm.peek or comm.random)):
                raise self.unsupported(u, "a trace statement other than a send or a receive "
                                       "('not an event' in SPIN)")
            cid = self.static_channel_id(comm.channel)
            if cid is None:
                raise self.error(u, "a trace names global channels only")
            if isinstance(comm, Send):
                fields = tuple(a if isinstance(a, Const) else None for a in comm.args)
                steps.append((edge.source, edge.target, "s", cid, fields))
            else:
                fields = tuple(a.value if isinstance(a, RecvMatch) else None for a in comm.args)
                steps.append((edge.source, edge.target, "r", cid, fields))
        for i, a in enumerate(steps):
            for b in steps[i + 1:]:
                if a[0] == b[0] and a[2:4] == b[2:4] and _may_match_alike(a[4], b[4]):
                    raise self.unsupported(u, "a trace with two steps that can match the same "
                                           "operation (pan: 'non-determinism in event-trace')")
        dead = len(tproc.locations)
        span = self.span(u)
        event = Var("_event", "global", span)
        self.globals.append(Variable("_event", IntType(0, dead, Overflow.WRAP, "byte"),
                                     Const(tproc.initial), False, span))
        trace = _EventTrace(event, tuple(steps), end, dead, negated, span)
        # pan's endstate(): a deadlock is valid only with the trace at an end state
        stops = [loc.id for loc in tproc.locations if loc.end] + ([dead] if negated else [])
        condition: Expr = Binary("==", event, Const(stops[0]), span)
        for loc in stops[1:]:
            condition = Binary("||", condition, Binary("==", event, Const(loc), span), span)
        self.end_condition = condition
        return [trace.instrument(p, self) for p in processes]

    def static_channel_id(self, chan: Expr) -> int | None:
        """Return the id of the global channel ``chan`` names, if known statically."""
        if isinstance(chan, Var) and chan.scope == "global":
            for i, c in enumerate(self.channels, start=1):
                if c.name == chan.name:
                    return i
        if isinstance(chan, Index) and isinstance(chan.base, Var) and chan.base.scope == "global":
            k = _fold(chan.index)
            var = next((v for v in self.globals if v.name == chan.base.name), None)
            if var is not None and isinstance(var.init, tuple) and k is not None \
                    and 0 <= k < len(var.init):
                return _fold(var.init[k])
        return None

    def propositions(self) -> list[Proposition]:
        """Return a Proposition for every object-like #define that is a boolean
        expression over globals (so it can name an LTL atom or a reachability goal)."""
        from bridge.frontends.promela.parse import parse_expression

        props = []
        for name, body in self.pre.defines.items():
            if name.startswith("__") or not body.strip():
                continue
            try:
                tree = parse_expression(body)
                e = self.expr(tree)
            except Exception:  # noqa: BLE001 - not every macro is an expression
                continue
            if isinstance(e, Const):
                continue
            props.append(Proposition(name, e))
        return props

    def check_remote(self, processes: list[Process]) -> None:
        by_name = {p.name: p for p in processes}
        for proctype, kind, what, span in self.remote_checks:
            p = by_name.get(proctype)
            if p is None:
                continue
            if kind == "label":
                labels = {lab for loc in p.locations for lab in loc.labels}
                if what not in labels:
                    raise SemanticError.at(span, f"proctype {proctype} has no label '{what}'")
        self.remote_checks = []

    def check_scheduling_constructs(self, processes: list[Process]) -> None:
        """Refuse what pan itself cannot compile: priorities or ``enabled()`` beside a
        rendezvous channel (pan.c: ``#error use of priorities cannot be combined with
        rendezvous``, and the same for ``enabled()``), and ``enabled()`` in a model
        with a ``provided`` clause (pan's ``enabled()`` ignores the clause, bridge's
        edges carry it in their guards)."""
        rendezvous = [c for c in self.channels if c.capacity == 0]
        rendezvous += [c for p in processes for c in p.channels if c.capacity == 0]
        if rendezvous and (self.priority_scheduling or self.enabled_spans):
            what = "process priorities" if self.priority_scheduling else "enabled()"
            chan = rendezvous[0]
            raise UnsupportedError.at(
                chan.span if not self.enabled_spans else self.enabled_spans[0],
                f"{what} combined with the rendezvous channel '{chan.name}' is not "
                "supported by bridge (pan refuses to compile it: 'use of "
                f"{'priorities' if self.priority_scheduling else 'enabled()'} cannot be "
                "combined with rendezvous')")
        provided = [p for p in processes if p.provided is not None]
        if provided and self.enabled_spans:
            raise UnsupportedError.at(
                self.enabled_spans[0],
                f"enabled() in a model with a provided clause (proctype {provided[0].name}) "
                "is not supported by bridge: pan's enabled() ignores provided clauses")

    def declared_priority(self, u: Tree) -> int:
        """Return the ``priority N`` of a proctype or ``init`` (1 when none): a number
        in 1..255 (SPIN: ``bad process priority, valid range: 1..255``)."""
        for c in _children(u):
            if isinstance(c, Tree) and c.data == "priority":
                value = self.const_int(_children(c)[1], "a process priority")
                if not 1 <= value <= 255:
                    raise self.error(_children(c)[1], f"bad process priority {value}, "
                                     "valid range: 1..255")
                return value
        return 1

    # ------------------------------------------------------------------ declarations

    def mtype_def(self, u: Tree) -> None:
        set_name: str | None = None
        names: list[Token] = []
        for c in _children(u):
            if isinstance(c, Tree) and c.data == "mtype_name":
                set_name = str(c.children[0])
            elif isinstance(c, Token) and c.type == "NAME":
                names.append(c)
        base = self.mtype_counts.get(set_name, 0)
        k = len(names)
        if base + k > 255:
            raise self.error(u, "too many mtype names (at most 255)")
        for i, tok in enumerate(names):
            if tok.value in self.symbols:
                raise self.error(tok, f"'{tok.value}' already declared")
            value = base + k - i
            self.symbols[tok.value] = _Sym("const", tok.value, "global", value=value,
                                           span=self.span(tok))
            self.enums.append((str(tok.value), value))
        self.mtype_counts[set_name] = base + k

    def typename(self, t: Tree) -> tuple[Type | None, str | None]:
        """Return (IR type, None) or (None, typedef name)."""
        tok = t.children[0]
        kind = tok.type
        if kind == "BIT":
            return BIT, None
        if kind == "BOOL":
            return BOOL_T, None
        if kind == "BYTE":
            return BYTE, None
        if kind == "SHORT":
            return SHORT, None
        if kind == "INT":
            return INT, None
        if kind == "PID":
            return PID, None
        if kind == "CHAN":
            return ChanType(), None
        if kind == "MTYPE":
            set_name = None
            if len(t.children) > 1 and t.children[1] is not None:
                set_name = str(t.children[1].children[0])
                if set_name not in self.mtype_counts:
                    raise self.error(t, f"undeclared mtype set '{set_name}'")
            return mtype_type(set_name), None
        if kind == "UNAME":
            return None, str(tok.value)
        raise self.error(t, f"unknown type {tok}")  # pragma: no cover

    def typedef(self, u: Tree) -> None:
        name = str(u.children[1])
        if name in self.typedefs:
            raise self.error(u.children[1], f"typedef '{name}' already declared")
        fields: list[_Field] = []
        decls = _subtrees(u.children[2])
        for d in decls:
            for fname, ftype, frec, flen, finit, tok in self.decl_items(d):
                if any(f.name == fname for f in fields):
                    raise self.error(tok, f"field '{fname}' declared twice in {name}")
                init: Expr | tuple[Expr, ...] | _ChanInit | None = None
                if isinstance(finit, Tree) and finit.data == "ch_init":
                    if not isinstance(ftype, ChanType):
                        raise self.error(tok, f"chan initialiser for non-channel '{fname}'")
                    init = _ChanInit(*self.channel_spec(finit))
                elif finit is not None:
                    init = self.initial_value(finit, flen)
                fields.append(_Field(fname, ftype, frec, flen, init))
        self.typedefs[name] = fields

    def decl_items(self, d: Tree):
        """Yield (name, type, record, length, init tree, name token) of a declaration."""
        kids = _children(d)
        if kids and isinstance(kids[0], Tree) and kids[0].data == "visibility":
            kids = kids[1:]
        if d.data in ("unsigned_decl", "unsigned_param"):
            for uv in kids:
                if not isinstance(uv, Tree):
                    continue
                name_tok = uv.children[0]
                width = self.const_int(uv.children[1], "the width of an unsigned")
                if not 1 <= width <= 31:
                    raise SemanticError.at(
                        self.span(uv.children[1]),
                        f"invalid unsigned width {width}: must be 1..31",
                    )
                init = uv.children[3] if len(uv.children) > 3 else None
                yield str(name_tok), unsigned(width), None, None, init, name_tok
            return
        t, rec = self.typename(kids[0])
        for iv in kids[1:]:
            if isinstance(iv, Token) and iv.type == "NAME":  # a parameter name
                yield str(iv), t, rec, None, None, iv
                continue
            if not isinstance(iv, Tree):
                continue
            ch = _children(iv)
            name_tok = ch[0]
            length = None
            init = None
            for c in ch[1:]:
                if isinstance(c, Tree) and c.data == "array_size":
                    length = self.array_bound(c.children[0])
                    if length < 1:
                        raise self.error(c, "an array size must be positive")
                elif isinstance(c, Token) and c.type == "ASGN":
                    continue
                else:
                    init = c
            yield str(name_tok), t, rec, length, init, name_tok

    def array_bound(self, tree: Tree) -> int:
        """Return an array size: a constant, or (spin.y ``NAME '[' NAME ']'``, with a
        warning in SPIN) a variable's name, which stands for its initial value when
        that is a positive constant and for 1 otherwise."""
        fields = _subtrees(tree) if tree.data == "varref" else []
        if len(fields) == 1 and fields[0].children[1] is None:
            sym = self.lookup(str(fields[0].children[0]))
            if sym is not None and sym.kind == "var" and sym.length is None:
                var = next((v for v in (self.globals if sym.scope == "global" else
                                        (self.pb.locals if self.pb else []))
                            if v.name == sym.name), None)
                init = var.init if var is not None else None
                value = _fold(init) if init is not None and not isinstance(init, tuple) else None
                return value if value is not None and value > 0 else 1
        return self.const_int(tree, "an array size")

    def leaves(self, record: str) -> list[tuple[str, Type, tuple[int, ...], object]]:
        """Return (path suffix, scalar type, dims, init) of each leaf field of a record."""
        out = []
        for f in self.typedefs[record]:
            dims = (f.length,) if f.length is not None else ()
            if f.record is not None:
                for suffix, t, d, init in self.leaves(f.record):
                    out.append((f"{f.name}.{suffix}", t, dims + d, init))
            else:
                assert f.type is not None
                out.append((f.name, f.type, dims, f.init))
        return out

    def initial_value(self, init: Tree, length: int | None) -> Expr | tuple[Expr, ...]:
        if isinstance(init, Tree) and init.data == "list_init":
            values = tuple(self.expr(c) for c in _subtrees(init))
            if length is None:
                raise self.error(init, "a list initialiser needs an array")
            if len(values) > length:
                raise self.error(init, f"too many initialisers for an array of {length}")
            return values + tuple(Const(0) for _ in range(length - len(values)))
        if isinstance(init, Tree) and init.data == "ch_init":
            raise self.error(init, "a channel initialiser needs a chan variable")
        value = self.expr(init)
        if length is not None:
            return tuple(value for _ in range(length))
        return value

    def channel_spec(self, ch: Tree) -> tuple[int, tuple[Type, ...]]:
        kids = _children(ch)
        capacity = self.const_int(kids[0], "a channel capacity")
        if capacity < 0:
            raise self.error(kids[0], "a channel capacity must be >= 0")
        fields: list[Type] = []
        for t in kids[1:]:
            if isinstance(t, Tree) and t.data == "typename":
                ft, rec = self.typename(t)
                if rec is not None:
                    for _suffix, lt, dims, _init in self.leaves(rec):
                        fields.extend(lt for _ in _index_tuples(dims))
                else:
                    assert ft is not None
                    fields.append(ft)
        return capacity, tuple(fields)

    def declare(self, d: Tree, pb: _ProcBuilder | None) -> list[tuple[Tree, Expr, Expr]]:
        """Declare the variables of ``d``; return late initialisations (ivar, target,
        value) that must become assignment statements (locals after the first
        statement)."""
        scope = "global" if pb is None else "local"
        table = self.symbols if pb is None else pb.symbols
        if pb is not None and self.scopes:
            table = self.scopes[-1]
        kids = _children(d)
        hidden = bool(kids and isinstance(kids[0], Tree) and kids[0].data == "visibility"
                      and kids[0].children[0].type == "HIDDEN")
        if hidden and pb is not None:
            raise self.error(d, "'hidden' is only allowed for global variables")
        late: list[tuple[Tree, tuple[Stmt, ...], str]] = []
        is_late = pb is not None and pb.stmt_seen
        for name, t, rec, length, init, tok in self.decl_items(d):
            if name in table or (pb is not None and name in pb.parameters and not self.scopes):
                raise self.error(tok, f"'{name}' already declared")
            irname = name
            if pb is not None and self.scopes:
                taken = {v.name for v in pb.locals} | {c.name for c in pb.channels}
                k = 1
                while irname in taken or any(v.name.startswith(irname + ".") for v in pb.locals):
                    irname, k = f"{name}__{k}", k + 1
            if pb is None and name in self.proctypes:
                raise self.error(tok, f"'{name}' already declared as a proctype")
            if name in _BUILTINS:
                raise self.error(tok, f"'{name}' is a predefined variable")
            span = self.span(tok)
            if rec is not None:
                if rec not in self.typedefs:
                    raise self.error(tok, f"unknown type '{rec}'")
                if init is not None:
                    raise self.unsupported(init, "an initialiser for a whole record")
                table[name] = _Sym("record", irname, scope, record=rec, length=length, span=span)
                outer = (length,) if length is not None else ()
                late_assigns: list[Stmt] = []
                for suffix, lt, dims, linit in self.leaves(rec):
                    full_dims = outer + dims
                    vinit = None
                    if isinstance(linit, _ChanInit):
                        made = self.record_channels(irname, suffix, len(outer), full_dims,
                                                    linit, pb, tok)
                        if made is None:
                            continue  # channels only: the leaf names them
                        vinit = made
                    elif linit is not None:
                        count = 1
                        for n in full_dims:
                            count *= n
                        cells = linit if isinstance(linit, tuple) else (linit,)
                        vinit = cells if not full_dims else tuple(
                            cells[i % len(cells)] for i in range(count))
                        if len(full_dims) == 0 and isinstance(vinit, tuple):
                            vinit = vinit[0]
                    var = Variable(f"{irname}.{suffix}", _wrap(lt, full_dims), vinit, hidden, span)
                    (self.globals if pb is None else pb.locals).append(var)
                    if is_late:
                        late_assigns.extend(_cell_assigns(var, span))
                        (pb.locals if pb else self.globals)[-1] = replace(var, init=None)
                if is_late:
                    late.append((tok, tuple(late_assigns), f"{name} = 0"))
                continue
            assert t is not None
            if isinstance(t, ChanType) and isinstance(init, Tree) and init.data == "ch_init":
                capacity, fields = self.channel_spec(init)
                if pb is None:
                    if length is None:
                        self.channels.append(Channel(name, capacity, fields, span))
                        table[name] = _Sym("chan", name, scope, type=t, fields=fields,
                                           capacity=capacity, span=span)
                    else:
                        ids = []
                        for i in range(length):
                            self.channels.append(Channel(f"{name}[{i}]", capacity, fields, span))
                            ids.append(Const(len(self.channels)))
                        self.globals.append(
                            Variable(name, ArrayType(t, length), tuple(ids), hidden, span))
                        table[name] = _Sym("var", name, scope, type=ArrayType(t, length),
                                           fields=fields, capacity=capacity, span=span)
                elif length is not None:
                    # One channel per cell, created with the instance; ``c[i]`` reads as
                    # the channel ``c[k]`` chosen by comparing i with each k (varref).
                    for i in range(length):
                        pb.channels.append(Channel(f"{irname}[{i}]", capacity, fields, span))
                    table[name] = _Sym("chanarray", irname, scope, type=ArrayType(t, length),
                                       length=length, fields=fields, capacity=capacity,
                                       span=span)
                else:
                    pb.channels.append(Channel(irname, capacity, fields, span))
                    table[name] = _Sym("chan", irname, scope, type=t, fields=fields,
                                       capacity=capacity, span=span,
                                       reassigned=name in pb.assigned)
                continue
            vtype = t if length is None else ArrayType(t, length)
            table[name] = _Sym("var", irname, scope, type=vtype, length=length, span=span)
            value = None
            if init is not None:
                value = self.initial_value(init, length)
            var = Variable(irname, vtype, value, hidden, span)
            if is_late:
                # SPIN 6.5.2: a local declared after the first statement starts at 0
                # and its declaration is a statement that (re)initialises it there.
                late.append((tok, _cell_assigns(var, span),
                             f"{name} = {self.text(init) if init is not None else 0}"))
                var = replace(var, init=None)
            (self.globals if pb is None else pb.locals).append(var)
        return late

    def record_channels(self, irname: str, suffix: str, outer: int, dims: tuple[int, ...],
                        spec: _ChanInit, pb: _ProcBuilder | None, tok: Token
                        ) -> tuple[Expr, ...] | None:
        """Create the channels of a record variable's field ``chan c = [n] of {...}``.

        Return None when the leaf is one channel named by the leaf path itself (read as
        its id, like a declared ``chan``), or the ids of an array leaf's channels (a
        global array variable holding them, like a global channel array). Inside a
        proctype an array leaf would need ids known only when the instance is created:
        refused by name."""
        span = self.span(tok)
        if not dims:
            channel = Channel(f"{irname}.{suffix}", spec.capacity, spec.fields, span)
            (self.channels if pb is None else pb.channels).append(channel)
            return None
        if pb is not None:
            raise self.unsupported(
                tok, "an array of records (or a record's array field) with a channel "
                "initialiser declared inside a proctype")
        ids: list[Expr] = []
        for combo in _index_tuples(dims):
            head = "".join(f"[{i}]" for i in combo[:outer])
            tail = "".join(f"[{i}]" for i in combo[outer:])
            self.channels.append(
                Channel(f"{irname}{head}.{suffix}{tail}", spec.capacity, spec.fields, span))
            ids.append(Const(len(self.channels)))
        return tuple(ids)

    def inline_def(self, u: Tree) -> None:
        kids = u.children
        name = str(kids[1])
        params = [str(c) for c in kids[2:-1] if isinstance(c, Token) and c.type == "NAME"]
        if name in self.inlines:
            raise self.error(kids[1], f"inline '{name}' already declared")
        self.inlines[name] = (params, kids[-1], self.span(u))

    # ------------------------------------------------------------------ processes

    def proctype(self, u: Tree) -> tuple[Process, int]:
        kids = _children(u)
        count = 0
        provided_tree = None
        name_tok = None
        params_tree = None
        body = None
        for c in kids:
            if isinstance(c, Tree):
                if c.data == "active":
                    count = 1
                    if len(_children(c)) > 1:
                        count = self.const_int(_children(c)[1], "the number of active instances")
                        if count < 0:
                            raise self.error(c, "a negative number of instances")
                elif c.data == "param_list":
                    params_tree = c
                elif c.data == "priority":
                    self.declared_priority(u)  # checked here, used for the instances
                elif c.data == "provided":
                    provided_tree = c
                elif c.data == "body":
                    body = c
            elif c.type == "NAME" and name_tok is None:
                name_tok = c
            elif c.type == "D_PROCTYPE":
                raise self.unsupported(c, "D_proctype")
        assert name_tok is not None and body is not None
        pb = _ProcBuilder(str(name_tok))
        if params_tree is not None:
            for pd in _subtrees(params_tree):
                for pname, t, rec, _length, _init, tok in self.decl_items(pd):
                    if rec is not None:
                        self.record_parameter(pb, pname, rec, tok)
                        continue
                    if pname in pb.symbols:
                        raise self.error(tok, f"parameter '{pname}' declared twice")
                    assert t is not None
                    pb.symbols[pname] = _Sym("var", pname, "local", type=t, span=self.span(tok))
                    pb.parameters.append(pname)
                    pb.locals.append(Variable(pname, t, None, False, self.span(tok)))
        pb.assigned = _assigned_names(body)
        if _receives_into_pid(body):
            # pan keeps _pid in the process's state and a receive into it overwrites
            # it (spin -a accepts; only simulation warns): the process reads a copy.
            pb.symbols["_pid"] = _Sym("var", "_pid", "local", type=PID, span=self.span(u))
            pb.locals.append(Variable("_pid", PID, Builtin("_pid"), False, self.span(u)))
        provided = None
        if provided_tree is not None:
            provided = self.expr(_children(provided_tree)[1])
            pb.has_provided = True
        proc = self.build_body(pb, body, provided, self.span(u))
        return proc, count

    def record_parameter(self, pb: _ProcBuilder, name: str, record: str, tok: Token) -> None:
        """Declare parameter ``name`` of typedef ``record``: SPIN passes a record as its
        fields, one parameter each in field order (``run P(r)`` sends ``r.a, r.b``);
        a record with an array field cannot be a parameter (SPIN: "hidden array in
        parameter")."""
        if record not in self.typedefs:
            raise self.error(tok, f"unknown type '{record}'")
        if name in pb.symbols:
            raise self.error(tok, f"parameter '{name}' declared twice")
        span = self.span(tok)
        leaves = self.leaves(record)
        if any(dims for _suffix, _t, dims, _init in leaves):
            raise self.error(tok, f"a record with an array field cannot be a parameter "
                             f"(SPIN: 'hidden array in parameter {name}')")
        pb.symbols[name] = _Sym("record", name, "local", record=record, span=span)
        for suffix, leaf_type, _dims, _init in leaves:
            pb.parameters.append(f"{name}.{suffix}")
            pb.locals.append(Variable(f"{name}.{suffix}", leaf_type, None, False, span))

    def init(self, u: Tree) -> Process:
        self.declared_priority(u)
        pb = _ProcBuilder(":init:")
        return self.build_body(pb, _subtrees(u)[-1], None, self.span(u))

    def never(self, u: Tree) -> Process:
        kids = _children(u)
        name = next((str(c) for c in kids if isinstance(c, Token) and c.type == "NAME"), "never_0")
        pb = _ProcBuilder(name)
        self.never_builder = pb
        return self.build_body(pb, _subtrees(u)[-1], None, self.span(u))

    def build_body(self, pb: _ProcBuilder, body: Tree, provided: Expr | None,
                   span: Span | None) -> Process:
        self.pb = pb
        try:
            start = pb.new_loc(self.span(body))
            end = pb.new_loc()
            seq = _subtrees(body)[0]
            self.sequence(seq, start, end, shared=False)
            proc = pb.finish(end, span, provided, start,
                             lambda edges, where: self.executable(edges, where or body))
        finally:
            self.pb = None
        self.proc_locals[proc.name] = pb.symbols
        return proc

    # ------------------------------------------------------------------ sequences

    def sequence(self, seq: Tree, start: int, end: int, shared: bool) -> None:
        pb = self.pb
        assert pb is not None
        units: list[tuple[str, object]] = []
        for step in _subtrees(seq):
            if step.data in ("one_decl", "unsigned_decl"):
                for late in self.declare(step, pb):
                    units.append(("assign", late))
                continue
            if step.data == "xu_decl":
                self.channel_assertions(step)
                continue
            pb.stmt_seen = True
            units.append(("step", step))
        if not units:
            if shared:
                pb.add_edge(_Edge(start, end, None, text="skip", span=self.span(seq)))
            else:
                pb.alias(start, end, self.span(seq))
            return
        cur = start
        for i, (kind, item) in enumerate(units):
            target = end if i == len(units) - 1 else pb.new_loc()
            first_shared = shared and i == 0
            if kind == "assign":
                node, effect, text = item  # type: ignore[misc]
                pb.add_edge(_Edge(cur, target, None, effect=effect, text=text,
                                  span=self.span(node)))
            else:
                self.step(item, cur, target, first_shared)  # type: ignore[arg-type]
            cur = target

    def channel_assertions(self, step: Tree) -> None:
        """Record ``xr c`` / ``xs c, d`` of the process being lowered (a declaration:
        pan claims the channels when the instance is created, wherever it is written)."""
        pb = self.pb
        assert pb is not None
        kind = str(step.children[0])
        if pb is self.never_builder:
            raise self.error(step, f"'{kind}' in a never claim")
        for ref in _subtrees(step):
            chan = self.chan_ref(ref)
            if self.type_of(chan) is None:
                raise self.error(ref, f"'{self.text(ref)}' is not a channel")
            pb.channel_assertions.append(ChannelAssertion(kind, chan, self.span(step)))

    @contextmanager
    def block_scope(self) -> Iterator[None]:
        """Open a block scope for the statements lowered inside (SPIN 6: every ``{ }``
        is one, its declarations and labels are its own; a name declared in two
        sibling blocks is two variables, renamed apart in the IR)."""
        self.scope_count += 1
        self.scopes.append({})
        self.scope_ids.append(self.scope_count)
        try:
            yield
        finally:
            self.scopes.pop()
            self.scope_ids.pop()

    def at_private(self, s: int, shared: bool, compile_at: Callable[[int], None]) -> None:
        """Compile at ``s``, or at a fresh location copied onto ``s`` when shared."""
        pb = self.pb
        assert pb is not None
        if not shared:
            compile_at(s)
            return
        h = pb.new_loc()
        compile_at(h)
        pb.copy_out(h, s)

    def step(self, st: Tree, s: int, e: int, shared: bool) -> None:
        pb = self.pb
        assert pb is not None
        kind = st.data
        if kind == "labeled_skip":
            st, kind = _labeled_skip(st), "labeled"
        if kind == "labeled":
            label_tok = st.children[0]
            label = str(label_tok)
            path = tuple(self.scope_ids)
            if any(p == path for p, _ in pb.labels.get(label, ())):
                raise self.error(label_tok, f"duplicate label '{label}' in {pb.name}")

            def at(h: int) -> None:
                pb.labels.setdefault(label, []).append((path, h))
                pb.locs[h].labels.append(label)
                self.step(st.children[1], h, e, False)

            self.at_private(s, shared, at)
            return
        if kind == "unless":
            self.at_private(s, shared, lambda h: self.unless(st, h, e))
            return
        if kind == "if_stmt":
            self.options(st, s, e)
            return
        if kind == "do_stmt":

            def loop(h: int) -> None:
                pb.loops.append(e)
                try:
                    self.options(st, h, h)
                finally:
                    pb.loops.pop()

            self.at_private(s, shared, loop)
            return
        if kind == "block":
            # SPIN: a { } block is a sub-sequence node of its own, so a loop that
            # starts it gets a head distinct from the block's entry (as in an option).
            with self.block_scope():
                self.sequence(st.children[0], s, e, shared=True)
            return
        if kind == "atomic_stmt":
            if pb.in_dstep:
                with self.block_scope():
                    self.sequence(_subtrees(st)[0], s, e, shared)
                return
            if self.collapse_atomic(st, s, e):
                return
            h = pb.new_loc()
            pb.locs[h].atomic = True
            pb.atomic_depth += 1
            try:
                with self.block_scope():
                    self.sequence(_subtrees(st)[0], h, e, False)
            finally:
                pb.atomic_depth -= 1
            pb.copy_out(h, s)
            return
        if kind == "dstep_stmt":
            self.dstep(st, s, e)
            return
        if kind in ("for_range", "for_in"):
            self.for_loop(st, s, e)
            return
        if kind == "select_stmt":
            self.select(st, s, e)
            return
        if kind == "break_stmt":
            if not pb.loops:
                raise self.error(st, "'break' outside a do loop")
            if shared:
                pb.add_edge(_Edge(s, pb.loops[-1], None, text="break", span=self.span(st)))
            else:
                pb.alias(s, pb.loops[-1], self.span(st))
            return
        if kind == "goto_stmt":
            label_tok = st.children[1]
            if shared:
                # A goto that starts an option (or an escape) is a step of its own:
                # the edge exists now (an escape copies it at once), and its target
                # location is merged into the label's when the labels are known.
                g = pb.new_loc()
                pb.add_edge(_Edge(s, g, None, text=self.text(st), span=self.span(label_tok)))
                s = g
            pb.gotos.append((s, str(label_tok), self.span(label_tok), False, self.text(st),
                             tuple(self.scope_ids)))
            return
        if kind == "inline_call":
            self.inline_call(st, s, e, shared)
            return
        if kind == "else_stmt":
            # Not first in an option, an else is a statement of its own that pan takes
            # when nothing else leaves its state: there, always (spin -a accepts it).
            pb.add_edge(_Edge(s, e, ElseGuard(self.span(st)), text="else", span=self.span(st)))
            return
        # Simple statements: one edge.
        pb.add_edge(self.simple(st, s, e))

    _NEVER_BLOCKS = frozenset(
        {"assign", "incr", "decr", "assert_stmt", "printf_stmt", "printm_stmt"})

    def collapse_atomic(self, st: Tree, s: int, e: int) -> bool:
        """Lower a straight-line atomic sequence that cannot block after its first
        statement as one edge; return False (nothing done) for any other sequence.

        pan never stores the states inside such a sequence (it continues atomically
        from each of them) and a never claim does not step inside it, so one edge
        with the first statement's guard/channel operation and all effects gives the
        same stored states and the same LTL semantics as SPIN.
        """
        pb = self.pb
        assert pb is not None
        if self.unless_depth or pb.has_provided or self.priority_scheduling:
            # An escape may interrupt the sequence between its statements; a provided
            # clause may block it there (SPIN guards every statement with it), and so
            # may a higher-priority process that becomes enabled midway (pan checks
            # priorities before every step, inside atomic sequences too).
            return False
        steps = _subtrees(_subtrees(st)[0])
        if not steps:
            return False
        first, rest = steps[0], steps[1:]
        for r in rest:
            if r.data in self._NEVER_BLOCKS:
                if r.data == "assign" and isinstance(r.children[2], Tree) \
                        and r.children[2].data == "run_expr":
                    return False
                continue
            if r.data == "expr_stmt" and isinstance(r.children[0], Tree) \
                    and r.children[0].data in ("true", "skip"):
                continue
            return False
        kind = first.data
        if kind in ("send", "sorted_send", "receive", "random_receive", "peek_receive",
                    "random_peek_receive"):
            chan = self.chan_ref(first.children[0])
            capacity = self.capacity_of(chan)
            if capacity is None or capacity == 0:
                return False  # a rendezvous passes control to the partner (SPIN)
        elif kind == "expr_stmt":
            inner = first.children[0]
            if isinstance(inner, Tree) and inner.data == "run_expr":
                return False
        elif kind not in self._NEVER_BLOCKS:
            return False
        edge = self.simple(first, s, e)
        effects = list(edge.effect)
        for r in rest:
            if r.data == "expr_stmt":
                continue
            effects.extend(self.simple(r, s, e).effect)
        pb.stmt_seen = True
        edge.effect = tuple(effects)
        edge.text = self.text(st)
        edge.span = self.span(st)
        pb.add_edge(edge)
        return True

    def simple(self, st: Tree, s: int, e: int) -> _Edge:
        kind = st.data
        span = self.span(st)
        text = self.text(st)
        edge = _Edge(s, e, None, text=text, span=span)
        own = self.own_priority_target(st) if kind in ("assign", "incr", "decr") else None
        if own is not None:
            # _priority = e: pan stores e in the 8-bit field of the process, unchecked.
            if kind == "assign":
                value = self.expr(st.children[2])
            else:
                value = Binary("+" if kind == "incr" else "-", GetPriority(own, span),
                               Const(1), span)
            edge.effect = (SetPriority(own, value, False, span),)
        elif kind == "assign":
            target = self.lvalue(st.children[0])
            rhs = st.children[2]
            if isinstance(rhs, Tree) and rhs.data == "run_expr":
                edge.effect = (self.run_stmt(rhs, target),)
            else:
                edge.effect = (Assign(target, self.expr(rhs), span),)
        elif kind in ("incr", "decr"):
            target = self.lvalue(st.children[0])
            op = "+" if kind == "incr" else "-"
            edge.effect = (Assign(target, Binary(op, target, Const(1), span), span),)
        elif kind in ("send", "sorted_send"):
            edge.comm = self.send(st)
        elif kind in ("receive", "random_receive", "peek_receive", "random_peek_receive"):
            edge.comm = self.receive(st)
            edge.effect = self.receive_fault(st)
        elif kind == "assert_stmt":
            edge.effect = (AssertStmt(self.expr(st.children[1]), text, span),)
        elif kind == "printf_stmt":
            fmt = codecs.decode(str(st.children[1])[1:-1], "unicode_escape")
            args = tuple(self.expr(c) for c in _subtrees(st))
            edge.effect = (Print(fmt, args, span),)
        elif kind == "printm_stmt":
            edge.effect = (Print("%e", (self.expr(st.children[1]),), span),)
        elif kind == "expr_stmt":
            inner = st.children[0]
            if isinstance(inner, Tree) and inner.data == "run_expr":
                edge.effect = (self.run_stmt(inner, None),)
            elif isinstance(inner, Tree) and inner.data == "set_priority":
                edge.effect = (self.set_priority(inner),)
            else:
                cond = self.expr(inner)
                if isinstance(cond, Const) and cond.value not in (0, False):
                    cond = None
                edge.guard = cond
        elif kind == "c_thing":
            raise self.unsupported(st, "embedded C")
        else:  # pragma: no cover
            raise self.error(st, f"unexpected statement {kind}")
        return edge

    def options(self, st: Tree, s: int, e: int) -> None:
        opts = [c for c in st.children if isinstance(c, Tree) and c.data == "options"][0]
        seqs = _subtrees(opts)
        elses = [q for q in seqs if _first_step_kind(q) == "else_stmt"]
        if len(elses) > 1:
            raise self.error(_first_step(elses[1]), "more than one 'else' in one if/do")
        for q in seqs:
            self.sequence(q, s, e, shared=True)
        self.pb.pre_empt_siblings(s)  # type: ignore[union-attr]

    def for_loop(self, st: Tree, s: int, e: int) -> None:
        pb = self.pb
        assert pb is not None
        kids = _children(st)
        if st.data == "for_in" and self.record_cells(kids[1]) is not None:
            self.for_in_channel(st, s, e)
            return
        var = self.lvalue(kids[1])
        span = self.span(st)
        if st.data == "for_range":
            lo = self.expr(kids[2])
            hi = self.expr(kids[4])
            body = kids[5]
        else:
            lo, hi = Const(0), Const(self.for_in_length(kids[3]) - 1)
            body = kids[4]
        head = pb.new_loc()
        pb.add_edge(_Edge(s, head, None, effect=(Assign(var, lo, span),),
                          text=f"{self.text(kids[1])} = {_expr_text(lo)}", span=span))
        b = pb.new_loc()
        c = pb.new_loc()
        pb.add_edge(_Edge(head, b, Binary("<=", var, hi, span),
                          text=f"{self.text(kids[1])} <= {_expr_text(hi)}", span=span))
        pb.add_edge(_Edge(head, e, ElseGuard(span), text="else", span=span))
        pb.loops.append(e)
        try:
            with self.block_scope():
                self.sequence(body, b, c, shared=False)
        finally:
            pb.loops.pop()
        pb.add_edge(_Edge(c, head, None, effect=(Assign(var, Binary("+", var, Const(1)), span),),
                          text=f"{self.text(kids[1])}++", span=span))

    def for_in_length(self, tree: Tree) -> int:
        """Return the length of the array that ``for (i in a)`` walks (SPIN's
        ``for_index``: any array, an array of channels included)."""
        sub = self.substitute(tree) if tree.data == "varref" else None
        target = sub if sub is not None else tree
        if target.data == "varref":
            fields = _subtrees(target)
            sym = self.lookup(str(fields[0].children[0]))
            if len(fields) == 1 and fields[0].children[1] is None and sym is not None \
                    and sym.kind == "chanarray" and sym.length is not None:
                return sym.length
        t = self.type_of(self.expr(tree))
        if not isinstance(t, ArrayType):
            raise self.unsupported(tree, "for (x in ...) over a non-array")
        return t.length

    def for_in_channel(self, st: Tree, s: int, e: int) -> None:
        """Lower ``for (r in q)`` with a record ``r``: SPIN's ``for_index`` walks the
        messages of channel ``q`` with a counter of its own, receiving each message into
        ``r`` and sending it back (so after a full loop ``q`` is as before)."""
        pb = self.pb
        assert pb is not None
        kids = _children(st)
        span = self.span(st)
        record, cells = self.record_cells(kids[1])  # type: ignore[misc]
        chan = self.chan_ref(kids[3])
        sym = self.chan_sym(chan)
        if sym is None or sym.fields is None or sym.capacity in (None, 0):
            raise self.error(kids[3], f"for ({self.text(kids[1])} in ...): "
                             f"'{self.text(kids[3])}' must be a buffered channel of {record}")
        self.check_arity(chan, len(cells), st)
        counter = Var(self.fresh_local(f"_for{len(pb.locals)}", BYTE, span), "local", span)
        walk = tuple(RecvBind(c, span) for c in cells)
        head, b, c = pb.new_loc(), pb.new_loc(), pb.new_loc()
        pb.add_edge(_Edge(s, head, None, effect=(Assign(counter, Const(0), span),),
                          text=f"{counter.name} = 0", span=span))
        pb.add_edge(_Edge(head, b, Binary("<", counter, ChanQuery("len", chan, span), span),
                          text=f"{counter.name} < len({self.text(kids[3])})", span=span))
        pb.add_edge(_Edge(head, e, ElseGuard(span), text="else", span=span))
        got, put = pb.new_loc(), pb.new_loc()
        pb.add_edge(_Edge(b, got, comm=Receive(chan, walk, False, False, span),
                          text=f"{self.text(kids[3])}?{self.text(kids[1])}", span=span))
        pb.add_edge(_Edge(got, put, comm=Send(chan, tuple(cells), False, span),
                          text=f"{self.text(kids[3])}!{self.text(kids[1])}", span=span))
        pb.loops.append(e)
        try:
            with self.block_scope():
                self.sequence(kids[4], put, c, shared=False)
        finally:
            pb.loops.pop()
        pb.add_edge(_Edge(c, head, None,
                          effect=(Assign(counter, Binary("+", counter, Const(1)), span),),
                          text=f"{counter.name}++", span=span))

    def fresh_local(self, base: str, t: Type, span: Span | None) -> str:
        """Return the name of a new local of type ``t`` that bridge adds to the process
        (no user name can clash: it is not a declared name of the proctype)."""
        pb = self.pb
        assert pb is not None
        taken = {v.name for v in pb.locals} | {c.name for c in pb.channels}
        name, k = base, 1
        while name in taken or name in pb.symbols:
            name, k = f"{base}_{k}", k + 1
        pb.locals.append(Variable(name, t, None, False, span))
        return name

    def select(self, st: Tree, s: int, e: int) -> None:
        pb = self.pb
        assert pb is not None
        kids = _children(st)
        var = self.lvalue(kids[1])
        span = self.span(st)
        lo_e, hi_e = self.expr(kids[2]), self.expr(kids[4])
        lo, hi = _fold(lo_e), _fold(hi_e)
        name = self.text(kids[1])
        if lo is not None and hi is not None and hi - lo <= 32:
            if lo > hi:
                raise self.error(st, "bad range in select statement")
            for v in range(lo, hi + 1):
                pb.add_edge(_Edge(s, e, None, effect=(Assign(var, Const(v), span),),
                                  text=f"{name} = {v}", span=span))
            return
        head = pb.new_loc()
        pb.add_edge(_Edge(s, head, None, effect=(Assign(var, lo_e, span),),
                          text=f"{name} = {_expr_text(lo_e)}", span=span))
        mid = pb.new_loc()
        pb.add_edge(_Edge(head, mid, Binary("<", var, hi_e, span),
                          text=f"({name} < {_expr_text(hi_e)})", span=span))
        pb.add_edge(_Edge(mid, head, None, effect=(Assign(var, Binary("+", var, Const(1)), span),),
                          text=f"{name}++", span=span))
        pb.add_edge(_Edge(head, e, None, text="break", span=span))

    def unless(self, st: Tree, s: int, e: int) -> None:
        pb = self.pb
        assert pb is not None
        main, escape = st.children[0], st.children[2]
        first_loc = len(pb.locs)
        first_edge = len(pb.edges)
        # The braces of ``{ main } unless { escape }`` belong to the unless itself,
        # not to a sub-sequence (checked against SPIN's state counts).
        self.unless_depth += 1
        try:
            if main.data == "block":
                with self.block_scope():
                    self.sequence(main.children[0], s, e, shared=False)
            else:
                self.step(main, s, e, False)
        finally:
            self.unless_depth -= 1
        main_locs = {s} | set(range(first_loc, len(pb.locs)))
        main_edges = pb.edges[first_edge:]
        entry = pb.new_loc()
        if _starts_with_jump(escape):
            # spin.y: the escape's first element is a goto, which SPIN's jump
            # elimination replaces by the statement at its target (not lowered yet).
            self.step(_as_block(escape), entry, e, False)
            record = _Escape(None)
            pb.jump_escapes.append(_JumpEscape(record, entry, main_locs, e, escape,
                                               self.span(escape)))
        else:
            self.step(escape, entry, e, False)
            esc_edges = pb.out_edges(entry)
            if pb.find(entry) != entry or not esc_edges:
                raise self.unsupported(escape, "an escape sequence that starts with a jump")
            record = _Escape(self.executable(esc_edges, escape))
        for edge in main_edges:
            if edge.source in main_locs and pb.find(edge.source) == edge.source:
                record.pre_empt(edge)
        if record.guard is not None:
            for loc in sorted(main_locs):
                if pb.find(loc) == loc and loc != pb.find(e):
                    for edge in esc_edges:
                        pb.add_edge(replace(edge, source=loc))
        pb.escapes.setdefault(s, []).append((record, {id(x) for x in pb.out_edges(s)}))

    def executable(self, edges: list[_Edge], where: Tree) -> Expr:
        """Return an expression that is true iff one of ``edges`` can be taken."""
        parts: list[Expr] = []
        for edge in edges:
            g = edge.guard
            if isinstance(g, ElseGuard) or _mentions_timeout(g):
                raise self.unsupported(where, "else/timeout as the first statement of an escape")
            if isinstance(edge.comm, Receive):
                c = ChanPoll(edge.comm.channel, edge.comm.args, edge.comm.random, edge.span)
                g = c if g is None else Binary("&&", g, c)
            elif isinstance(edge.comm, Send):
                cap = self.capacity_of(edge.comm.channel)
                if cap is None or cap == 0:
                    raise self.unsupported(where, "a rendezvous send as the first statement of an escape")
                c = ChanQuery("nfull", edge.comm.channel, edge.span)
                g = c if g is None else Binary("&&", g, c)
            if g is None:
                return Const(1)
            parts.append(g)
        out = parts[0]
        for p in parts[1:]:
            out = Binary("||", out, p)
        return out

    def inline_call(self, st: Tree, s: int, e: int, shared: bool) -> None:
        kids = _children(st)
        name_tok = next(c for c in kids if isinstance(c, Token) and c.type == "INAME")
        name = str(name_tok)
        args = [c for c in st.children[1:] if isinstance(c, Tree)]
        if name not in self.inlines:  # pragma: no cover - lexer only marks declared ones
            raise self.error(name_tok, f"unknown inline '{name}'")
        params, body, _span = self.inlines[name]
        if len(args) != len(params):
            raise self.error(
                st, f"inline {name} takes {len(params)} argument(s), {len(args)} given")
        if name in self.inline_stack:
            raise self.error(st, f"recursive inline call of '{name}'")
        env = dict(zip(params, args, strict=True))
        self.inline_env.append(env)
        self.inline_stack.append(name)
        try:
            # SPIN wraps an inline body in { } (spin -I): a block, see ``step``; each
            # expansion is a block scope of its own, so its declarations and labels
            # do not clash with those of another expansion.
            with self.block_scope():
                self.sequence(_subtrees(body)[0], s, e, shared=True)
        finally:
            self.inline_env.pop()
            self.inline_stack.pop()

    # ------------------------------------------------------------------ d_step

    def dstep(self, st: Tree, s: int, e: int) -> None:
        pb = self.pb
        assert pb is not None
        seq = _subtrees(st)[0]
        if self.jumps_in(seq):
            self.dstep_graph(st, s, e)
            return
        with self.block_scope():  # the d_step's braces are a block of their own
            self.dstep_structured(st, seq, s, e)

    def dstep_structured(self, st: Tree, seq: Tree, s: int, e: int) -> None:
        """Lower a ``d_step`` without gotos as one edge with a structured effect."""
        pb = self.pb
        assert pb is not None
        steps = self.flat_steps(seq)
        span = self.span(st)
        text = self.text(st)
        edge = _Edge(s, e, None, text=text, span=span)
        pb.in_dstep = True
        try:
            if steps:
                first, rest = steps[0], steps[1:]
                kind = first.data
                if kind in ("send", "sorted_send"):
                    edge.comm = self.send(first)
                    edge.effect = self.dstep_effects(rest, None)
                elif kind in ("receive", "random_receive", "peek_receive", "random_peek_receive"):
                    edge.comm = self.receive(first)
                    edge.effect = self.receive_fault(first) + self.dstep_effects(rest, None)
                elif kind == "expr_stmt" and not (
                    isinstance(first.children[0], Tree) and first.children[0].data == "run_expr"
                ):
                    g = self.expr(first.children[0])
                    if _mentions_timeout(g):
                        raise self.unsupported(first, "timeout inside d_step")
                    edge.guard = None if isinstance(g, Const) and g.value not in (0, False) else g
                    edge.effect = self.dstep_effects(rest, None)
                elif kind in ("if_stmt", "do_stmt"):
                    edge.guard = self.options_guard(first)
                    edge.effect = self.dstep_effects(steps, None)
                elif kind == "else_stmt":
                    raise self.error(first, "'else' must be the first statement of an option")
                else:
                    edge.effect = self.dstep_effects(steps, None)
        finally:
            pb.in_dstep = False
        pb.add_edge(edge)

    def jumps_in(self, tree: Tree) -> bool:
        """Return True if ``tree`` (inline bodies it calls included) has a ``goto``."""
        for t in tree.iter_subtrees():
            if t.data == "goto_stmt":
                return True
            if t.data == "inline_call":
                name = next(str(c) for c in t.children if isinstance(c, Token)
                            and c.type == "INAME")
                if name in self.inlines and name not in self.inline_stack:
                    self.inline_stack.append(name)
                    try:
                        if self.jumps_in(self.inlines[name][1]):
                            return True
                    finally:
                        self.inline_stack.pop()
        return False

    def dstep_graph(self, st: Tree, s: int, e: int) -> None:
        """Lower a ``d_step`` with gotos as one edge that runs its control flow graph.

        The body is lowered like any sequence (gotos and labels included) into
        locations of its own; the edge's guard is the executability of the body's
        first statements and its effect a loop over a block-local program counter that
        takes, at each location, the first executable edge (SPIN: d_step is
        deterministic) until the end; no executable edge is "block in d_step".
        """
        pb = self.pb
        assert pb is not None
        span = self.span(st)
        first_edge, first_goto, first_loc = len(pb.edges), len(pb.gotos), len(pb.locs)
        labels_before = {k: len(v) for k, v in pb.labels.items()}
        entry, done = pb.new_loc(), pb.new_loc()
        pb.in_dstep = True
        try:
            with self.block_scope():
                self.sequence(_subtrees(st)[0], entry, done, shared=False)
        finally:
            pb.in_dstep = False
        for src, label, lspan, _as_edge, _text, path in pb.gotos[first_goto:]:
            inside = pb.labels.get(label, [])[labels_before.get(label, 0):]
            if not inside:
                raise SemanticError.at(lspan, f"a goto out of a d_step (to '{label}')")
            pb.alias(src, _label_target(inside, path), lspan)
        del pb.gotos[first_goto:]
        for label in list(pb.labels):  # a label inside a d_step cannot be a goto target
            pb.labels[label] = pb.labels[label][:labels_before.get(label, 0)]
            if not pb.labels[label]:
                del pb.labels[label]
        for k in range(first_loc, len(pb.locs)):  # nor a remote reference's (unreachable)
            pb.locs[k].labels.clear()
        body = pb.edges[first_edge:]
        del pb.edges[first_edge:]
        at = {id(x): pb.find(x.source) for x in body}
        start, end = pb.find(entry), pb.find(done)
        first = [x for x in body if at[id(x)] == start]
        if not first:
            raise self.unsupported(st, "a d_step that starts with a jump")
        pc = Var(f"_dpc{len(pb.locs)}", "block", span)
        branches: list[tuple[Expr, tuple[Stmt, ...]]] = []
        for x in body:
            if any(_mentions_timeout(g) for g in (x.guard,)):
                raise self.unsupported(st, "timeout inside d_step")
            here = Binary("==", pc, Const(at[id(x)]), span)
            if isinstance(x.guard, ElseGuard):
                others = [o for o in body if o is not x and at[id(o)] == at[id(x)]]
                cond = here if not others else \
                    Binary("&&", here, Unary("!", self.executable(others, st), span), span)
            else:
                cond = Binary("&&", here, self.executable([x], st), span)
            moves = ((x.comm,) if x.comm is not None else ()) + x.effect
            branches.append((cond, moves + (Assign(pc, Const(pb.find(x.target)), span),)))
        stuck = (AssertStmt(Const(0), f"block in d_step seq: {self.text(st)}", span),)
        guard = None if any(isinstance(x.guard, ElseGuard) for x in first) \
            else self.executable(first, st)  # an else makes the first statement executable
        edge = _Edge(s, e, guard, text=self.text(st), span=span)
        edge.effect = (LocalVar(pc.name, IntType(0, len(pb.locs), Overflow.WRAP, "int"),
                                Const(start), span),
                       While(Binary("!=", pc, Const(end), span),
                             (If(tuple(branches), stuck, span),), span))
        pb.add_edge(edge)

    def fresh_flag(self) -> str:
        """Return a new name for a d_step loop's block-local break flag."""
        self.flags += 1
        return f"_break{self.flags}"

    def flat_steps(self, seq: Tree) -> list[Tree]:
        """Return the statements of a d_step sequence, blocks and atomics flattened,
        declarations registered (their initialisers become assignments)."""
        pb = self.pb
        assert pb is not None
        out: list[Tree] = []
        for step in _subtrees(seq):
            if step.data in ("one_decl", "unsigned_decl"):
                for node, effect, _text in self.declare(step, pb):
                    out.append(Tree("_late_assign", [node, effect], step.meta))
                continue
            if step.data == "xu_decl":
                self.channel_assertions(step)
                continue
            pb.stmt_seen = True
            if step.data in ("block", "atomic_stmt", "dstep_stmt"):
                out.extend(self.flat_steps(_subtrees(step)[0]))
            elif step.data == "labeled":
                out.append(step.children[1])
            elif step.data == "labeled_skip":
                out.append(_labeled_skip(step).children[1])
            elif step.data == "inline_call":
                out.append(step)
            else:
                out.append(step)
        return out

    def option_guard(self, q: Tree) -> tuple[Expr | None, list[Tree], bool]:
        """Return (guard, remaining steps, is_else) of a d_step option."""
        steps = self.flat_steps(q)
        if not steps:
            return Const(1), [], False
        first = steps[0]
        kind = first.data
        if kind == "else_stmt":
            return None, steps[1:], True
        if kind == "expr_stmt" and not (isinstance(first.children[0], Tree)
                                        and first.children[0].data == "run_expr"):
            g = self.expr(first.children[0])
            if _mentions_timeout(g):
                raise self.unsupported(first, "timeout inside d_step")
            return g, steps[1:], False
        if kind in ("receive", "random_receive"):
            r = self.receive(first)
            return ChanPoll(r.channel, r.args, r.random, r.span), steps, False
        if kind in ("send", "sorted_send"):
            snd = self.send(first)
            return ChanQuery("nfull", snd.channel, snd.span), steps, False
        if kind in ("if_stmt", "do_stmt"):
            return self.options_guard(first), steps, False
        return Const(1), steps, False

    def options_guard(self, st: Tree) -> Expr | None:
        opts = [c for c in st.children if isinstance(c, Tree) and c.data == "options"][0]
        parts = []
        pb = self.pb
        assert pb is not None
        for q in _subtrees(opts):
            g, _rest, is_else = self.option_guard(q)
            if is_else:
                return None
            assert g is not None
            parts.append(g)
        out = parts[0]
        for p in parts[1:]:
            out = Binary("||", out, p)
        return out

    def dstep_effects(self, steps: list[Tree], brk: Var | None) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for i, st in enumerate(steps):
            kind = st.data
            span = self.span(st)
            if kind == "_late_assign":
                out.extend(st.children[1])
                continue
            if kind == "break_stmt":
                if brk is None:
                    raise self.error(st, "'break' outside a do loop")
                out.append(Assign(brk, Const(1), span))
                return tuple(out)  # the rest of this sequence is dead
            if kind == "goto_stmt":
                raise self.unsupported(st, "goto inside d_step")
            if kind == "else_stmt":
                raise self.error(st, "'else' must be the first statement of an option")
            if kind in ("if_stmt", "do_stmt"):
                inner_brk = brk
                if kind == "do_stmt":
                    inner_brk = Var(self.fresh_flag(), "block", span)
                branches: list[tuple[Expr, tuple[Stmt, ...]]] = []
                otherwise: tuple[Stmt, ...] | None = None
                opts = [c for c in st.children if isinstance(c, Tree) and c.data == "options"][0]
                for q in _subtrees(opts):
                    g, rest, is_else = self.option_guard(q)
                    body = self.dstep_effects(rest, inner_brk)
                    if is_else:
                        otherwise = body
                    else:
                        assert g is not None
                        branches.append((g, body))
                if otherwise is None:
                    otherwise = (AssertStmt(Const(0), "block in d_step seq (no option enabled)",
                                            span),)
                stmt: Stmt = If(tuple(branches), otherwise, span)
                if kind == "do_stmt":
                    assert inner_brk is not None
                    out.append(LocalVar(inner_brk.name, BOOL_T, Const(0), span))
                    out.append(While(Unary("!", inner_brk), (stmt,), span))
                else:
                    out.append(stmt)
                if brk is not None and _may_break(st):
                    rest_code = self.dstep_effects(steps[i + 1:], brk)
                    if rest_code:
                        out.append(If(((Unary("!", brk), rest_code),), (), span))
                    return tuple(out)
                continue
            if kind == "for_range":
                kids = _children(st)
                var = self.lvalue(kids[1])
                lo, hi = self.expr(kids[2]), self.expr(kids[4])
                inner_brk = Var(self.fresh_flag(), "block", span)
                body = self.dstep_effects(self.flat_steps(kids[5]), inner_brk)
                out.append(Assign(var, lo, span))
                out.append(LocalVar(inner_brk.name, BOOL_T, Const(0), span))
                out.append(While(
                    Binary("&&", Unary("!", inner_brk), Binary("<=", var, hi)),
                    (If(((Unary("!", inner_brk), body),), ()),
                     If(((Unary("!", inner_brk), (Assign(var, Binary("+", var, Const(1))),)),), ())),
                    span))
                continue
            if kind in ("select_stmt", "for_in", "unless"):
                raise self.unsupported(st, f"{kind.split('_')[0]} inside d_step")
            if kind == "inline_call":
                name_tok = next(c for c in st.children if isinstance(c, Token) and c.type == "INAME")
                params, body_tree, _ = self.inlines[str(name_tok)]
                args = [c for c in st.children[1:] if isinstance(c, Tree)]
                if len(args) != len(params):
                    raise self.error(st, f"inline {name_tok} takes {len(params)} argument(s), "
                                     f"{len(args)} given")
                self.inline_env.append(dict(zip(params, args, strict=True)))
                try:
                    with self.block_scope():
                        out.extend(self.dstep_effects(self.flat_steps(_subtrees(body_tree)[0]),
                                                      brk))
                finally:
                    self.inline_env.pop()
                continue
            if kind == "expr_stmt" and not (isinstance(st.children[0], Tree)
                                            and st.children[0].data in ("run_expr",
                                                                        "set_priority")):
                g = self.expr(st.children[0])
                if isinstance(g, Const) and g.value not in (0, False):
                    continue
                out.append(AssertStmt(g, f"block in d_step seq: {self.text(st)}", span))
                continue
            edge = self.simple(st, 0, 0)
            if edge.comm is not None:
                out.append(edge.comm)
            out.extend(edge.effect)
        return tuple(out)

    # ------------------------------------------------------------------ channels

    def capacity_of(self, chan: Expr) -> int | None:
        sym = self.chan_sym(chan)
        return None if sym is None else sym.capacity

    def chan_sym(self, chan: Expr) -> _Sym | None:
        if isinstance(chan, Conditional):
            chan = chan.then
        if isinstance(chan, Var) and chan.scope == "local" and chan.name.endswith("]") \
                and self.pb is not None:
            root = chan.name[: chan.name.index("[")]
            for sym in self.pb.symbols.values():
                if sym.kind == "chanarray" and sym.name == root:
                    return sym
        base = chan
        while isinstance(base, Index):
            base = base.base
        if not isinstance(base, Var):
            return None
        table = self.pb.symbols if (self.pb is not None and base.scope == "local") else self.symbols
        sym = table.get(base.name)
        return None if sym is not None and sym.reassigned else sym

    def send(self, st: Tree) -> Send:
        chan = self.chan_ref(st.children[0])
        args_tree = st.children[2]
        args = self.send_values(_subtrees(args_tree))
        # Fewer values than fields: SPIN accepts the model, and pan reports "too few
        # parameters in send stmnt" when the send executes (the engine does the same).
        self.check_arity(chan, len(args), st, fewer_allowed=True)
        return Send(chan, args, st.data == "sorted_send", self.span(st))

    def receive(self, st: Tree) -> Receive:
        chan = self.chan_ref(st.children[0])
        args_tree = [c for c in st.children if isinstance(c, Tree)
                     and c.data == "recv_args"][0]
        args = self.fit_receive(chan, self.recv_args(args_tree), st)
        random = st.data in ("random_receive", "random_peek_receive")
        peek = st.data in ("peek_receive", "random_peek_receive")
        return Receive(chan, args, random, peek, self.span(st))

    def fit_receive(self, chan: Expr, args: tuple[RecvArg, ...], st: Tree,
                    poll: bool = False) -> tuple[RecvArg, ...]:
        """Return a receive's (or poll's) arguments fitted to the channel's fields.

        SPIN accepts any number (pan.c ``qrecv``): a receive with fewer arguments
        takes the message and reports "missing pars in receive" (a peek ``?<>`` takes
        nothing and reports nothing), one with more reads
        past the last field and reports "too many fields in recv" (``receive_fault``
        adds that error to the step; the missing fields are wildcards, the extra
        ones dropped). A poll tests only the fields it names; a constant past the
        last field would make evaluating it an error, which is refused by name."""
        sym = self.chan_sym(chan)
        if sym is None or sym.fields is None:
            return args
        k = len(sym.fields)
        if len(args) <= k:
            wildcard = RecvBind(None, args[-1].span if args else None)
            return args + (wildcard,) * (k - len(args))
        if any(isinstance(a, RecvMatch) for a in args[k:]):
            raise self.unsupported(
                st, f"a {'poll' if poll else 'receive'} that compares a value past the last "
                f"field of channel '{sym.name}' ({k} field{'s' if k != 1 else ''}; pan "
                "reports 'too many fields in recv' when it evaluates it)")
        return args[:k]

    def receive_fault(self, st: Tree) -> tuple[Stmt, ...]:
        """Return the run-time error pan reports when a receive whose argument count
        differs from its channel's fields executes (see ``fit_receive``), or ()."""
        chan = self.chan_ref(st.children[0])
        sym = self.chan_sym(chan)
        if sym is None or sym.fields is None:
            return ()
        args_tree = next(c for c in st.children if isinstance(c, Tree) and c.data == "recv_args")
        n = len(self.recv_args(args_tree))
        peek = st.data in ("peek_receive", "random_peek_receive")
        if n == len(sym.fields) or (peek and n < len(sym.fields)):
            return ()  # a peek leaves the message, pan checks the count only on removal
        what = "missing pars in receive" if n < len(sym.fields) else "too many fields in recv"
        return (AssertStmt(Const(0), f"{what}: {self.text(st)}", self.span(st)),)

    def recv_args(self, tree: Tree) -> tuple[RecvArg, ...]:
        out: list[RecvArg] = []
        for a in _subtrees(tree):
            span = self.span(a)
            if a.data == "recv_eval":
                out.append(RecvMatch(self.expr(_subtrees(a)[0]), span))
            elif a.data == "neg_const":
                out.append(RecvMatch(Const(-int(a.children[1])), span))
            elif a.data == "varref":
                fields = _subtrees(a)
                head = str(fields[0].children[0])
                if len(fields) == 1 and head == "_" and fields[0].children[1] is None:
                    out.append(RecvBind(None, span))
                    continue
                cells = self.record_cells(a)
                if cells is not None:
                    out.extend(RecvBind(c, span) for c in cells[1])
                    continue
                e = self.expr(a)
                if isinstance(e, Const):
                    out.append(RecvMatch(e, span))
                else:
                    out.append(RecvBind(self.lvalue(a), span))
            else:
                out.append(RecvMatch(self.expr(a), span))
        return tuple(out)

    def check_arity(self, chan: Expr, n: int, st: Tree, fewer_allowed: bool = False) -> None:
        sym = self.chan_sym(chan)
        if sym is None or sym.fields is None:
            return
        k = len(sym.fields)
        if n > k or (n < k and not fewer_allowed):
            plural = "field" if k == 1 else "fields"
            raise self.error(st, f"channel '{sym.name}' has {k} {plural}, the statement uses {n}")

    def chan_ref(self, tree: Tree) -> Expr:
        e = self.expr(tree)
        t = self.type_of(e)
        if t is not None and not isinstance(t, ChanType):
            raise self.error(tree, f"'{self.text(tree)}' is not a channel")
        return e

    def type_of(self, e: Expr) -> Type | None:
        if isinstance(e, Index):
            t = self.type_of(e.base)
            return t.element if isinstance(t, ArrayType) else None
        if isinstance(e, Conditional):
            return self.type_of(e.then)
        if isinstance(e, Var) and self.pb is not None and e.scope == "local" and any(
                c.name == e.name for c in self.pb.channels):
            return ChanType()
        if isinstance(e, Var):
            table = self.pb.symbols if (self.pb is not None and e.scope == "local") else self.symbols
            sym = table.get(e.name)
            if sym is not None:
                if sym.kind == "chan":
                    return ChanType()
                return sym.type
            for v in self.globals if e.scope == "global" else (self.pb.locals if self.pb else []):
                if v.name == e.name:
                    return v.type
        return None

    # ------------------------------------------------------------------ run

    def run_stmt(self, tree: Tree, target: Expr | None) -> Run:
        kids = _children(tree)
        name_tok = kids[1]
        name = str(name_tok)
        arg_trees = [c for c in kids[2:] if isinstance(c, Tree)]
        priority: Expr | None = None
        if any(isinstance(c, Token) and c.type == "PRIORITY" for c in kids):
            # SPIN: a number after 'priority'; 0 means the default (1), as in pan.
            prio_tree = arg_trees.pop()
            value = self.const_int(prio_tree, "the priority of a run")
            if not 0 <= value <= 255:
                raise self.error(prio_tree, f"bad priority {value} in run {name}, valid "
                                 "range: 1..255")
            priority = Const(value, self.span(prio_tree)) if value else None
        args = self.send_values(arg_trees)  # records: fields
        if name not in self.proctypes:
            raise self.error(name_tok, f"unknown proctype '{name}'")
        nparams = len(self.param_names(name))
        if nparams != len(args):
            raise self.error(tree, f"proctype {name} takes {nparams} argument(s), {len(args)} given")
        return Run(name, args, target, self.span(tree), priority)

    def own_priority_target(self, st: Tree) -> Expr | None:
        """Return ``_pid`` if the statement assigns ``_priority`` (the process's own
        priority, pan's ``_priority`` field), else None."""
        ref = st.children[0]
        if not (isinstance(ref, Tree) and ref.data == "varref"):
            return None
        fields = _subtrees(ref)
        if len(fields) != 1 or str(fields[0].children[0]) != "_priority":
            return None
        if fields[0].children[1] is not None:
            raise self.error(ref, "'_priority' is not an array")
        if self.pb is None or self.pb is self.never_builder:
            raise self.error(ref, "'_priority' outside a proctype")
        return Builtin("_pid", self.span(ref))

    def set_priority(self, tree: Tree) -> SetPriority:
        """Return the statement ``set_priority(pid, value)`` (pan checks 1..255)."""
        pid_tree, value_tree = _subtrees(tree)
        return SetPriority(self.expr(pid_tree), self.expr(value_tree), True, self.span(tree))

    def param_names(self, proctype: str) -> list[str]:
        if proctype not in self.proc_params:
            u = self.proctypes[proctype]
            names: list[str] = []
            for c in _children(u):
                if isinstance(c, Tree) and c.data == "param_list":
                    for pd in _subtrees(c):
                        for nm, _t, rec, *_rest in self.decl_items(pd):
                            if rec is not None and rec in self.typedefs:
                                names.extend(f"{nm}.{leaf[0]}" for leaf in self.leaves(rec))
                            else:
                                names.append(nm)
            self.proc_params[proctype] = names
        return self.proc_params[proctype]

    # ------------------------------------------------------------------ expressions

    def lookup(self, name: str) -> _Sym | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if self.pb is not None and name in self.pb.symbols:
            return self.pb.symbols[name]
        return self.symbols.get(name)

    def lvalue(self, tree: Tree) -> Expr:
        e = self.expr(tree)
        if isinstance(e, Const):
            raise self.error(tree, f"cannot assign to constant '{self.text(tree)}'")
        if isinstance(e, Builtin) or not isinstance(e, (Var, Index, RemoteVar)):
            raise self.error(tree, f"cannot assign to '{self.text(tree)}'")
        sym = self.lookup(e.name) if isinstance(e, Var) else None
        if sym is not None and sym.kind == "chan" and not sym.reassigned:
            raise self.error(tree, f"cannot assign to channel '{e.name}'")
        return e

    def substitute(self, tree: Tree) -> Tree | None:
        """Return the inline argument replacing a varref's head name, or None."""
        if not self.inline_env:
            return None
        fields = _subtrees(tree)
        head = str(fields[0].children[0])
        for env in reversed(self.inline_env):
            if head in env:
                actual = env[head]
                if len(fields) == 1 and fields[0].children[1] is None:
                    return actual
                if not (isinstance(actual, Tree) and actual.data == "varref"):
                    raise self.error(tree, f"inline parameter '{head}' is used as a variable but "
                                     f"the argument is '{self.text(actual)}'")
                afields = list(_subtrees(actual))
                idx = fields[0].children[1]
                if idx is not None:
                    last = afields[-1]
                    if last.children[1] is not None:
                        raise self.error(tree, f"cannot index the inline argument '{self.text(actual)}'")
                    afields[-1] = Tree("field", [last.children[0], self.substitute_all(idx)],
                                       last.meta)
                rest = [self.substitute_indices(f) for f in fields[1:]]
                return Tree("varref", afields + rest, tree.meta)
            break
        return None

    def substitute_indices(self, f: Tree) -> Tree:
        """Return a ``field`` whose index has the inline's parameters substituted."""
        idx = f.children[1]
        if idx is None:
            return f
        return Tree("field", [f.children[0], self.substitute_all(idx)], f.meta)

    def substitute_all(self, tree: Tree | Token) -> Tree | Token:
        """Return ``tree`` with every parameter of the innermost inline replaced by its
        argument. The part of a varref that follows a substituted parameter
        (``p.f[i]`` for argument ``a``: ``a.f[i]``) is lowered outside the inline's
        parameter scope, so its indices must not mention the parameters any more."""
        if not isinstance(tree, Tree):
            return tree
        if tree.data == "varref":
            sub = self.substitute(tree)
            if sub is not None:
                return sub
            return Tree("varref", [self.substitute_indices(f) for f in _subtrees(tree)],
                        tree.meta)
        return Tree(tree.data, [self.substitute_all(c) for c in tree.children], tree.meta)

    def varref(self, tree: Tree) -> Expr:
        sub = self.substitute(tree)
        if sub is not None:
            # The argument is lowered outside the inline's own parameter scope.
            env = self.inline_env.pop()
            try:
                return self.expr(sub)
            finally:
                self.inline_env.append(env)
        fields = _subtrees(tree)
        head_tok = fields[0].children[0]
        head = str(head_tok)
        idx_tree = fields[0].children[1]
        span = self.span(tree)
        if head in _BUILTINS and len(fields) == 1 and idx_tree is None:
            if head == "_pid" and self.pb is not None and "_pid" in self.pb.symbols:
                return Var("_pid", "local", span)  # see _receives_into_pid
            return Builtin(head, span)
        if head == "_priority" and len(fields) == 1 and idx_tree is None:
            if self.pb is None or self.pb is self.never_builder:
                raise self.error(head_tok, "'_priority' outside a proctype")
            return GetPriority(Builtin("_pid", span), span)
        sym = self.lookup(head)
        if sym is None:
            raise self.error(head_tok, f"undeclared variable '{head}'")
        if sym.kind == "const":
            if len(fields) > 1 or idx_tree is not None:
                raise self.error(tree, f"'{head}' is an mtype constant")
            return Const(sym.value, span)
        if sym.kind == "record":
            path, indices, record = self.record_path(sym, fields, head_tok)
            if record is not None:
                raise self.error(
                    tree, f"incomplete structure reference '{self.text(tree)}': a whole "
                    "record can only be sent or received")
            e: Expr = Var(".".join(path), sym.scope, span)
            for ix in indices:
                e = Index(e, ix, span)
            return e
        if len(fields) > 1:
            raise self.error(fields[1], f"'{head}' is not a record")
        if sym.kind == "chan":
            if idx_tree is not None:
                raise self.error(tree, f"channel '{head}' is not an array")
            return Var(sym.name, sym.scope, span)
        if sym.kind == "chanarray":
            if idx_tree is None:
                raise self.error(tree, f"'{head}' is an array of channels: an index is needed")
            assert sym.length is not None
            index = self.expr(idx_tree)
            k = _fold(index)
            if k is not None:
                if not 0 <= k < sym.length:
                    raise self.error(idx_tree, f"index {k} out of range for '{head}'")
                return Var(f"{sym.name}[{k}]", sym.scope, span)
            # Out of range: channel id 0, which the engine reports as an invalid channel.
            out: Expr = Const(0, span)
            for k in reversed(range(sym.length)):
                out = Conditional(Binary("==", index, Const(k), span),
                                  Var(f"{sym.name}[{k}]", sym.scope, span), out, span)
            return out
        e = Var(sym.name, sym.scope, span)
        if idx_tree is not None:
            if not isinstance(sym.type, ArrayType):
                raise self.error(tree, f"'{head}' is not an array")
            e = Index(e, self.expr(idx_tree), span)
        return e

    def expr(self, tree: Tree | Token) -> Expr:
        if isinstance(tree, Token):  # pragma: no cover - grammar wraps tokens
            raise self.error(tree, f"unexpected token {tree}")
        kind = tree.data
        span = self.span(tree)
        if kind == "varref":
            return self.varref(tree)
        if kind == "number":
            return Const(int(tree.children[0]), span)
        if kind == "charlit":
            raw = str(tree.children[0])[1:-1]
            value = {"\\n": 10, "\\t": 9, "\\r": 13, "\\f": 12}.get(raw)
            if value is None:
                value = ord(raw[-1])
            return Const(value, span)
        if kind in ("true", "skip"):
            return Const(1, span)
        if kind == "false":
            return Const(0, span)
        if kind == "binary":
            left, op, right = tree.children
            return Binary(_BINOPS[op.type], self.expr(left), self.expr(right), span)
        if kind == "unop":
            op, operand = tree.children
            if op.type == "BANG" and isinstance(operand, Tree) and operand.data == "chan_pred":
                raise ParseError.at(
                    span, "full/empty/nfull/nempty cannot be negated in SPIN",
                    "use nfull/nempty/full/empty instead")
            inner = self.expr(operand)
            symbol = {"BANG": "!", "TILDE": "~", "MINUS": "-"}[op.type]
            if symbol == "-" and isinstance(inner, Const):
                return Const(-int(inner.value), span)
            return Unary(symbol, inner, span)
        if kind == "cond":
            c, _arrow, a, b = tree.children
            return Conditional(self.expr(c), self.expr(a), self.expr(b), span)
        if kind == "chan_len":
            return ChanQuery("len", self.chan_ref(_subtrees(tree)[0]), span)
        if kind == "chan_pred":
            op = str(tree.children[0])
            return ChanQuery(op, self.chan_ref(_subtrees(tree)[0]), span)
        if kind in ("poll", "random_poll"):
            chan = self.chan_ref(tree.children[0])
            args = self.fit_receive(chan, self.recv_args(tree.children[2]), tree, poll=True)
            return ChanPoll(chan, args, kind == "random_poll", span)
        if kind == "run_expr":
            raise self.error(tree, "'run' may only be used as a statement or as x = run P(...)")
        if kind == "timeout":
            return Builtin("timeout", span)
        if kind == "np":
            return Builtin("np_", span)
        if kind in ("remote_label", "remote_label_single"):
            kids = _children(tree)
            proctype = str(kids[0])
            pid = self.expr(kids[1]) if kind == "remote_label" else None
            label = str(kids[-1])
            self.remote_checks.append((proctype, "label", label, self.span(kids[-1])))
            return RemoteLabel(proctype, pid, label, span)
        if kind in ("remote_var", "remote_var_single"):
            kids = _children(tree)
            proctype = str(kids[0])
            pid = self.expr(kids[1]) if kind == "remote_var" else None
            return self.remote_var(proctype, pid, kids[-1], span)
        if kind == "enabled":
            self.enabled_spans.append(span)
            return Enabled(self.expr(_subtrees(tree)[0]), span)
        if kind == "get_priority":
            return GetPriority(self.expr(_subtrees(tree)[0]), span)
        if kind == "set_priority":
            raise self.error(tree, "set_priority(pid, p) is a statement, not a value")
        if kind == "pc_value":
            raise self.unsupported(tree, f"{kind}()")
        if kind in _LTL_NODES:
            raise self.error(tree, "temporal operators are only allowed in ltl formulas")
        raise self.error(tree, f"unexpected expression {kind}")  # pragma: no cover

    def record_path(self, sym: _Sym, fields: list[Tree], head_tok: Token
                    ) -> tuple[list[str], list[Expr], str | None]:
        """Return (IR name parts, indices, record type still selected or None)."""
        path = [sym.name]
        indices: list[Expr] = []
        idx_tree = fields[0].children[1]
        if idx_tree is not None:
            indices.append(self.expr(idx_tree))
        elif sym.length is not None:
            raise self.error(head_tok, f"'{head_tok}' is an array of records: an index is needed")
        record = sym.record
        for f in fields[1:]:
            fname = str(f.children[0])
            if record is None:
                raise self.error(f, f"'{'.'.join(path)}' has no field '{fname}'")
            spec = next((x for x in self.typedefs[record] if x.name == fname), None)
            if spec is None:
                raise self.error(f, f"type {record} has no field '{fname}'")
            path.append(fname)
            if f.children[1] is not None:
                if spec.length is None:
                    raise self.error(f, f"field '{fname}' is not an array")
                indices.append(self.expr(f.children[1]))
            elif spec.length is not None and spec.record is not None:
                raise self.error(f, f"field '{fname}' is an array of records: an index is needed")
            record = spec.record
        return path, indices, record

    def record_cells(self, tree: Tree) -> tuple[str, list[Expr]] | None:
        """Return (record type, one lvalue per scalar cell in field order) if ``tree``
        names a whole record, else None."""
        if not (isinstance(tree, Tree) and tree.data == "varref"):
            return None
        sub = self.substitute(tree)
        if sub is not None:
            env = self.inline_env.pop()
            try:
                return self.record_cells(sub)
            finally:
                self.inline_env.append(env)
        fields = _subtrees(tree)
        head_tok = fields[0].children[0]
        sym = self.lookup(str(head_tok))
        if sym is None or sym.kind != "record":
            return None
        path, indices, record = self.record_path(sym, fields, head_tok)
        if record is None:
            return None
        span = self.span(tree)
        cells: list[Expr] = []
        for suffix, _t, dims, _init in self.leaves(record):
            base: Expr = Var(".".join(path) + "." + suffix, sym.scope, span)
            for ix in indices:
                base = Index(base, ix, span)
            for combo in _index_tuples(dims):
                e = base
                for i in combo:
                    e = Index(e, Const(i), span)
                cells.append(e)
        return record, cells

    def send_values(self, trees: list[Tree]) -> tuple[Expr, ...]:
        out: list[Expr] = []
        for t in trees:
            cells = self.record_cells(t)
            if cells is not None:
                out.extend(cells[1])
            else:
                out.append(self.expr(t))
        return tuple(out)

    def remote_var(self, proctype: str, pid: Expr | None, ref: Tree, span: Span | None) -> Expr:
        fields = _subtrees(ref)
        name = str(fields[0].children[0])
        u = self.proctypes.get(proctype)
        if u is None:
            raise self.error(ref, f"unknown proctype '{proctype}'")
        declared = self.declared_locals(proctype)
        if name not in declared:
            raise self.error(ref, f"proctype {proctype} has no local variable '{name}'")
        if len(fields) > 1:
            raise self.unsupported(ref, "a remote reference to a record field")
        e: Expr = RemoteVar(proctype, pid, name, span)
        if fields[0].children[1] is not None:
            e = Index(e, self.expr(fields[0].children[1]), span)
        return e

    def declared_locals(self, proctype: str) -> set[str]:
        """Return the names of the locals and parameters declared in a proctype."""
        u = self.proctypes[proctype]
        names = set(self.param_names(proctype))
        for t in u.iter_subtrees():
            if t.data in ("one_decl", "unsigned_decl"):
                kids = _children(t)
                for c in kids:
                    if isinstance(c, Tree) and c.data in ("ivar", "uvar"):
                        names.add(str(c.children[0]))
        return names


# ---------------------------------------------------------------------------------
# Helpers


def _fold(e: Expr) -> int | None:
    if isinstance(e, Const):
        return int(e.value)
    if isinstance(e, Unary):
        v = _fold(e.operand)
        if v is None:
            return None
        return {"-": -v, "!": int(not v), "~": ~v}[e.op]
    if isinstance(e, Binary):
        a, b = _fold(e.left), _fold(e.right)
        if a is None or b is None:
            return None
        try:
            return {
                "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                "/": lambda: int(a / b), "%": lambda: a - b * int(a / b),
                "<<": lambda: a << b, ">>": lambda: a >> b, "&": lambda: a & b,
                "|": lambda: a | b, "^": lambda: a ^ b, "&&": lambda: int(bool(a and b)),
                "||": lambda: int(bool(a or b)), "==": lambda: int(a == b),
                "!=": lambda: int(a != b), "<": lambda: int(a < b), "<=": lambda: int(a <= b),
                ">": lambda: int(a > b), ">=": lambda: int(a >= b),
            }[e.op]()
        except (ZeroDivisionError, KeyError, ValueError):
            return None
    return None


def _index_tuples(dims: Sequence[int]) -> list[tuple[int, ...]]:
    """Return every index tuple of an array with these dimensions, row-major."""
    out: list[tuple[int, ...]] = [()]
    for n in dims:
        out = [t + (i,) for t in out for i in range(n)]
    return out


def _cell_assigns(var: Variable, span: Span | None) -> tuple[Stmt, ...]:
    """Return assignments setting every cell of a local to its initial value."""
    dims: list[int] = []
    t = var.type
    while isinstance(t, ArrayType):
        dims.append(t.length)
        t = t.element
    if not dims:
        value = var.init if var.init is not None and not isinstance(var.init, tuple) else Const(0)
        return (Assign(Var(var.name, "local", span), value, span),)
    cells = var.init if isinstance(var.init, tuple) else None
    out: list[Stmt] = []
    count = 1
    for n in dims:
        count *= n
    for k in range(count):
        idx: list[int] = []
        rest = k
        for n in reversed(dims):
            idx.append(rest % n)
            rest //= n
        idx.reverse()
        target: Expr = Var(var.name, "local", span)
        for i in idx:
            target = Index(target, Const(i), span)
        value = cells[k] if cells is not None and k < len(cells) else Const(0)
        out.append(Assign(target, value, span))
    return tuple(out)


def _expr_text(e: Expr) -> str:
    v = _fold(e)
    if v is not None:
        return str(v)
    if isinstance(e, Var):
        return e.name
    return "..."


def _mentions_timeout(e: Expr | None) -> bool:
    if e is None:
        return False
    if isinstance(e, Builtin):
        return e.name == "timeout"
    if isinstance(e, Binary):
        return _mentions_timeout(e.left) or _mentions_timeout(e.right)
    if isinstance(e, Unary):
        return _mentions_timeout(e.operand)
    return False


def _label_target(found: list[tuple[tuple[int, ...], int]], path: tuple[int, ...]) -> int:
    """Return the location a ``goto`` in block scope ``path`` jumps to (SPIN's
    ``get_labspec``): the label of the same block, else of the innermost enclosing
    block, else the one declared last."""
    enclosing = [(p, loc) for p, loc in found if path[: len(p)] == p]
    if enclosing:
        return max(enclosing, key=lambda item: len(item[0]))[1]
    return found[-1][1]


def _may_match_alike(a: tuple[Expr | None, ...], b: tuple[Expr | None, ...]) -> bool:
    """Return True if two trace steps' field patterns can match the same message
    (a pattern that is not a constant, like ``eval(x)``, is taken to differ)."""
    for x, y in zip(a, b, strict=False):
        if x is not None and y is not None:
            fx, fy = _fold(x), _fold(y)
            if fx is None or fy is None or fx != fy:
                return False
    return True


@dataclass
class _EventTrace:
    """A lowered trace/notrace (``_Lowering.event_trace``) and its instrumentation."""

    event: Var
    steps: tuple[tuple[int, int, str, int, tuple[Expr | None, ...]], ...]
    end: int
    dead: int
    negated: bool
    span: Span | None
    scratch: int = 0

    def monitored(self, kind: str) -> set[int]:
        return {cid for _s, _t, k, cid, _f in self.steps if k == kind}

    def instrument(self, proc: Process, lowering: _Lowering) -> Process:
        """Return ``proc`` with a trace step after each of its sends and receives."""
        edges = []
        for edge in proc.edges:
            comm, before = edge.comm, ()
            if isinstance(comm, Send):
                before = self.step("s", comm.channel, comm.args, lowering)
            elif isinstance(comm, Receive) and not comm.peek:
                comm, values = self.bound(comm, lowering)
                before = self.step("r", comm.channel, values, lowering)
            effect = tuple(before) + self.walk(edge.effect, lowering)
            edges.append(replace(edge, comm=comm, effect=effect))
        return replace(proc, edges=tuple(edges))

    def walk(self, stmts: tuple[Stmt, ...], lowering: _Lowering) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for st in stmts:
            if isinstance(st, Send):
                out.append(st)
                out.extend(self.step("s", st.channel, st.args, lowering))
            elif isinstance(st, Receive) and not st.peek:
                st, values = self.bound(st, lowering)
                out.append(st)
                out.extend(self.step("r", st.channel, values, lowering))
            elif isinstance(st, If):
                out.append(If(tuple((g, self.walk(b, lowering)) for g, b in st.branches),
                              self.walk(st.otherwise, lowering), st.span))
            elif isinstance(st, While):
                out.append(While(st.cond, self.walk(st.body, lowering), st.span))
            else:
                out.append(st)
        return tuple(out)

    def bound(self, comm: Receive, lowering: _Lowering) -> tuple[Receive, tuple[Expr, ...]]:
        """Return the receive with ``_`` bound to hidden scratch variables (when its
        channel may be traced) and the values of the message's fields after it."""
        if not self.may_touch("r", comm.channel, lowering):
            return comm, ()
        args: list[RecvArg] = []
        values: list[Expr] = []
        for k, a in enumerate(comm.args):
            if isinstance(a, RecvMatch):
                args.append(a)
                values.append(a.value)
            elif a.target is None:
                name = f"_trace_field{k}"
                if not any(v.name == name for v in lowering.globals):
                    lowering.globals.append(Variable(name, INT, None, True, self.span))
                target = Var(name, "global", a.span)
                args.append(RecvBind(target, a.span))
                values.append(target)
            else:
                args.append(a)
                values.append(a.target)
        return replace(comm, args=tuple(args)), tuple(values)

    def may_touch(self, kind: str, chan: Expr, lowering: _Lowering) -> bool:
        cid = lowering.static_channel_id(chan)
        return bool(self.monitored(kind)) and (cid is None or cid in self.monitored(kind))

    def step(self, kind: str, chan: Expr, values: tuple[Expr, ...],
             lowering: _Lowering) -> tuple[Stmt, ...]:
        """Return the statements that move the trace on operation ``kind`` of ``chan``
        carrying ``values`` (nothing when ``chan`` is never traced for ``kind``)."""
        if not self.may_touch(kind, chan, lowering):
            return ()
        span = self.span
        cid = lowering.static_channel_id(chan)
        ids = sorted(self.monitored(kind))
        branches: list[tuple[Expr, tuple[Stmt, ...]]] = []
        for source, target, k, tid, fields in self.steps:
            if k != kind or (cid is not None and cid != tid):
                continue
            cond: Expr = Binary("==", self.event, Const(source), span)
            if cid is None:
                cond = Binary("&&", cond, Binary("==", chan, Const(tid), span), span)
            for value, want in zip(values, fields, strict=False):
                if want is not None:
                    cond = Binary("&&", cond, Binary("==", value, want, span), span)
            if any(want is not None for want in fields[len(values):]):
                continue  # compares a field the operation does not carry: no match
            body: tuple[Stmt, ...] = (Assign(self.event, Const(target), span),)
            if self.negated and target == self.end:
                body += (AssertStmt(Const(0), "event_trace error (all events matched)", span),)
            branches.append((cond, body))
        miss: tuple[Stmt, ...]
        if self.negated:
            miss = (Assign(self.event, Const(self.dead), span),)
        else:
            miss = (AssertStmt(Const(0), "event_trace error (no matching event)", span),)
        if cid is None:
            traced: Expr = Binary("==", chan, Const(ids[0]), span)
            for other in ids[1:]:
                traced = Binary("||", traced, Binary("==", chan, Const(other), span), span)
            miss = (If(((traced, miss),), (), span),)
        if not branches:
            return miss
        return (If(tuple(branches), miss, span),)


def _assigned_names(body: Tree) -> set[str]:
    """Return the names ``body`` assigns to or receives into (first field only)."""
    names: set[str] = set()
    for t in body.iter_subtrees():
        targets: list[Tree] = []
        if t.data in ("assign", "incr", "decr") and isinstance(t.children[0], Tree):
            targets.append(t.children[0])
        elif t.data == "recv_args":
            targets.extend(a for a in _subtrees(t) if a.data == "varref")
        for ref in targets:
            if ref.data == "varref":
                names.add(str(_subtrees(ref)[0].children[0]))
    return names


def _receives_into_pid(body: Tree) -> bool:
    """Return True if a receive in ``body`` binds ``_pid`` (``c?x(_pid)``)."""
    for t in body.iter_subtrees():
        if t.data == "recv_args":
            for a in _subtrees(t):
                if a.data == "varref" and len(_subtrees(a)) == 1 \
                        and str(a.children[0].children[0]) == "_pid":
                    return True
    return False


def _starts_with_jump(tree: Tree) -> bool:
    """Return True if the first statement of ``tree`` is a ``break`` or ``goto``."""
    while tree.data in ("block", "labeled"):
        if tree.data == "labeled":
            tree = tree.children[1]
            continue
        first = _first_step(tree.children[0])
        if first is None:
            return False
        tree = first
    return tree.data in ("break_stmt", "goto_stmt")


def _as_block(tree: Tree) -> Tree:
    """Return ``tree`` as a block (so a leading jump is lowered as an edge)."""
    if tree.data == "block":
        return tree
    return Tree("block", [Tree("sequence", [tree], tree.meta)], tree.meta)


def _labeled_skip(st: Tree) -> Tree:
    """Return ``L: skip`` for the ``L:`` that closes a block (spin.y: ``NAME ':'``)."""
    label = st.children[0]
    skip = Tree("skip", [Token.new_borrow_pos("SKIP", "skip", label)], st.meta)
    return Tree("labeled", [label, Tree("expr_stmt", [skip], st.meta)], st.meta)


def _first_step(seq: Tree) -> Tree | None:
    for s in _subtrees(seq):
        if s.data in ("one_decl", "unsigned_decl", "xu_decl"):
            continue
        return s
    return None


def _first_step_kind(seq: Tree) -> str | None:
    s = _first_step(seq)
    return None if s is None else s.data


def _may_break(tree: Tree) -> bool:
    """Return True if a ``break`` in ``tree`` leaves a loop enclosing ``tree``."""
    loops = ("do_stmt", "for_range", "for_in")
    if tree.data in loops:
        return False
    stack = [tree]
    while stack:
        t = stack.pop()
        if t.data == "break_stmt":
            return True
        stack.extend(c for c in _subtrees(t) if c.data not in loops)
    return False


_PRIORITY_NODES = frozenset({"priority", "get_priority", "set_priority"})


def _uses_priorities(tree: Tree) -> bool:
    """Return True if the model uses process priorities anywhere (SPIN then defines
    HAS_PRIORITY and schedules by priority): ``priority`` on a proctype, ``init`` or
    ``run``, ``get_priority``, ``set_priority`` or ``_priority``."""
    for t in tree.iter_subtrees():
        if t.data in _PRIORITY_NODES:
            return True
        if t.data == "run_expr" and any(isinstance(c, Token) and c.type == "PRIORITY"
                                        for c in t.children):
            return True
        if t.data == "field" and str(t.children[0]) == "_priority":
            return True
    return False


def _label_cycle_properties(processes: list[Process], count: int) -> list[Property]:
    """Return the non-progress-cycle property (when some proctype has a ``progress``
    label; SPIN's ``pan -l``) and the acceptance-cycle property (when some proctype
    has an ``accept`` label; ``pan -a`` without a claim), numbered after ``count``."""
    out: list[Property] = []
    locations = [loc for p in processes for loc in p.locations]
    if any(loc.progress for loc in locations):
        out.append(Property("non-progress-cycles", PropertyKind.NON_PROGRESS,
                            "non-progress cycles", number=count + len(out) + 1))
    if any(loc.accept for loc in locations):
        out.append(Property("acceptance-cycles", PropertyKind.ACCEPTANCE,
                            "acceptance cycles", number=count + len(out) + 1))
    return out


def lower_program(tree: Tree, pre: Preprocessed, path: str) -> TransitionSystem:
    """Return the transition system of a parsed model (see the module docstring)."""
    return _Lowering(pre, path).run(tree)
