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
from collections.abc import Callable, Sequence
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
    init: Expr | tuple[Expr, ...] | None = None


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


class _ProcBuilder:
    """Collects locations and edges of one process; ``finish`` returns the Process."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.locs: list[_Loc] = []
        self.edges: list[_Edge] = []
        self.parent: dict[int, int] = {}
        self.labels: dict[str, int] = {}
        self.label_spans: dict[str, Span | None] = {}
        self.gotos: list[tuple[int, str, Span | None, bool, str]] = []
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
        for e in list(self.out_edges(src)):
            origin = e.origin if e.origin is not None else e.source
            self.add_edge(replace(e, source=dst, origin=origin))

    def finish(
        self, terminal: int, span: Span | None, provided: Expr | None, initial: int = 0,
        executable: Callable[[list[_Edge]], Expr] | None = None,
    ) -> Process:
        for src, label, lspan, as_edge, text in self.gotos:
            if label not in self.labels:
                known = ", ".join(sorted(self.labels)) or "none"
                raise SemanticError.at(
                    lspan, f"undefined label '{label}' in {self.name}", f"labels defined: {known}"
                )
            if as_edge:
                self.add_edge(_Edge(src, self.labels[label], None, text=text, span=lspan))
            else:
                self.alias(src, self.labels[label], lspan)
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
                    guard = Unary("!", executable(siblings), e.span)
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
        self.flags = 0
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
                raise self.unsupported(u, "trace/notrace")
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
            never=never,
            priority_scheduling=self.priority_scheduling,
        )

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
                if ftype is not None and isinstance(ftype, ChanType) and finit is not None:
                    raise self.unsupported(tok, "a channel initialiser inside a typedef")
                init = None if finit is None or isinstance(finit, Tree) and finit.data == "ch_init" \
                    else self.initial_value(finit, flen)
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
                    length = self.const_int(c.children[0], "an array size")
                    if length < 1:
                        raise self.error(c, "an array size must be positive")
                elif isinstance(c, Token) and c.type == "ASGN":
                    continue
                else:
                    init = c
            yield str(name_tok), t, rec, length, init, name_tok

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
                    if linit is not None:
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
                                       capacity=capacity, span=span)
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
                        raise self.unsupported(tok, "a record parameter")
                    if pname in pb.symbols:
                        raise self.error(tok, f"parameter '{pname}' declared twice")
                    assert t is not None
                    pb.symbols[pname] = _Sym("var", pname, "local", type=t, span=self.span(tok))
                    pb.parameters.append(pname)
                    pb.locals.append(Variable(pname, t, None, False, self.span(tok)))
        provided = None
        if provided_tree is not None:
            provided = self.expr(_children(provided_tree)[1])
            pb.has_provided = True
        proc = self.build_body(pb, body, provided, self.span(u))
        return proc, count

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
                             lambda edges: self.executable(edges, body))
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
        if kind == "labeled":
            label_tok = st.children[0]
            label = str(label_tok)
            if label in pb.labels:
                raise self.error(label_tok, f"duplicate label '{label}' in {pb.name}")

            def at(h: int) -> None:
                pb.labels[label] = h
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
            self.sequence(st.children[0], s, e, shared=True)
            return
        if kind == "atomic_stmt":
            if pb.in_dstep:
                self.sequence(_subtrees(st)[0], s, e, shared)
                return
            if self.collapse_atomic(st, s, e):
                return
            h = pb.new_loc()
            pb.locs[h].atomic = True
            pb.atomic_depth += 1
            try:
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
            pb.gotos.append((s, str(label_tok), self.span(label_tok), shared, self.text(st)))
            return
        if kind == "inline_call":
            self.inline_call(st, s, e, shared)
            return
        if kind == "else_stmt":
            if not shared:
                raise self.error(st, "'else' must be the first statement of an option")
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

    def for_loop(self, st: Tree, s: int, e: int) -> None:
        pb = self.pb
        assert pb is not None
        kids = _children(st)
        var = self.lvalue(kids[1])
        span = self.span(st)
        if st.data == "for_range":
            lo = self.expr(kids[2])
            hi = self.expr(kids[4])
            body = kids[5]
        else:
            arr = self.expr(kids[3])
            t = self.type_of(arr)
            if not isinstance(t, ArrayType):
                raise self.unsupported(kids[3], "for (x in ...) over a non-array")
            lo, hi = Const(0), Const(t.length - 1)
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
            self.sequence(body, b, c, shared=False)
        finally:
            pb.loops.pop()
        pb.add_edge(_Edge(c, head, None, effect=(Assign(var, Binary("+", var, Const(1)), span),),
                          text=f"{self.text(kids[1])}++", span=span))

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
                self.sequence(main.children[0], s, e, shared=False)
            else:
                self.step(main, s, e, False)
        finally:
            self.unless_depth -= 1
        main_locs = {s} | set(range(first_loc, len(pb.locs)))
        main_edges = pb.edges[first_edge:]
        entry = pb.new_loc()
        self.step(escape, entry, e, False)
        esc_edges = pb.out_edges(entry)
        if pb.find(entry) != entry or not esc_edges:
            raise self.unsupported(escape, "an escape sequence that starts with a jump")
        guard = self.executable(esc_edges, escape)
        for edge in main_edges:
            if edge.source in main_locs and pb.find(edge.source) == edge.source:
                if isinstance(edge.guard, ElseGuard):
                    continue
                neg = Unary("!", guard, edge.span)
                edge.guard = neg if edge.guard is None else Binary("&&", edge.guard, neg, edge.span)
        for loc in sorted(main_locs):
            if pb.find(loc) == loc and loc != pb.find(e):
                for edge in esc_edges:
                    pb.add_edge(replace(edge, source=loc))

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
        self.scopes.append({})
        try:
            # SPIN wraps an inline body in { } (spin -I): a block, see ``step``.
            self.sequence(_subtrees(body)[0], s, e, shared=True)
        finally:
            self.inline_env.pop()
            self.inline_stack.pop()
            self.scopes.pop()

    # ------------------------------------------------------------------ d_step

    def dstep(self, st: Tree, s: int, e: int) -> None:
        pb = self.pb
        assert pb is not None
        seq = _subtrees(st)[0]
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
                    edge.effect = self.dstep_effects(rest, None)
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
                self.scopes.append({})
                try:
                    out.extend(self.dstep_effects(self.flat_steps(_subtrees(body_tree)[0]), brk))
                finally:
                    self.inline_env.pop()
                    self.scopes.pop()
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
        return table.get(base.name)

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
                     and c.data in ("recv_args", "recv_args_call")][0]
        args = self.recv_args(args_tree)
        self.check_arity(chan, len(args), st)
        random = st.data in ("random_receive", "random_peek_receive")
        peek = st.data in ("peek_receive", "random_peek_receive")
        return Receive(chan, args, random, peek, self.span(st))

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
        args = tuple(self.expr(c) for c in arg_trees)
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
                        for nm, *_rest in self.decl_items(pd):
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
        if isinstance(e, Var) and self.lookup(e.name) is not None and \
                self.lookup(e.name).kind == "chan":  # type: ignore[union-attr]
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
                    afields[-1] = Tree("field", [last.children[0], idx], last.meta)
                return Tree("varref", afields + fields[1:], tree.meta)
            break
        return None

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
            args = self.recv_args(tree.children[2])
            self.check_arity(chan, len(args), tree)
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
