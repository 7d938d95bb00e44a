"""Return the IR ``TransitionSystem`` of a parsed Promela model (DESIGN.md section 2).

Each proctype (and ``init``, and the ``never`` claim) becomes a ``Process``: a control
flow graph whose edges are the statements. How SPIN constructs map to the graph
(checked against SPIN 6.5.2 state counts, see tests/differential).
The lowering is split along its concerns: ``declarations.py``, ``statements.py``,
``dstep.py``, ``channels.py`` and ``expressions.py`` are mixins of ``_Lowering``
(this module keeps the program, proctypes, properties and checks); ``builder.py``
builds one proctype's graph; ``eventtrace.py`` lowers ``trace``/``notrace``;
``trees.py`` holds the shared types and tree helpers. The mapping:

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

import os
import re

from lark import Token, Tree

from bridge.diagnostics import ParseError, SemanticError, Span, UnsupportedError
from bridge.frontends.promela.builder import ProcBuilder
from bridge.frontends.promela.channels import Channels
from bridge.frontends.promela.declarations import Declarations
from bridge.frontends.promela.dstep import DSteps
from bridge.frontends.promela.eventtrace import EventTrace
from bridge.frontends.promela.expressions import Expressions
from bridge.frontends.promela.preprocess import Preprocessed
from bridge.frontends.promela.statements import Statements
from bridge.frontends.promela.timeouts import check_timeout_reads
from bridge.frontends.promela.trees import (
    RecordField,
    Symbol,
    assigned_names,
    fold_int,
    may_match_alike,
    receives_into_pid,
    tree_children,
    tree_subtrees,
    uses_priorities,
)
from bridge.ir import (
    INT,
    PID,
    Binary,
    Builtin,
    Channel,
    Const,
    Expr,
    Index,
    Instance,
    IntType,
    Overflow,
    Process,
    Property,
    PropertyKind,
    Proposition,
    Receive,
    RecvMatch,
    Send,
    SourceLanguage,
    TransitionSystem,
    Var,
    Variable,
)

# ---------------------------------------------------------------------------------
# The lowering


class _Lowering(Declarations, Statements, DSteps, Channels, Expressions):
    def __init__(self, pre: Preprocessed, path: str) -> None:
        self.pre = pre
        self.path = path
        self.globals: list[Variable] = []
        self.channels: list[Channel] = []
        self.symbols: dict[str, Symbol] = {}
        self.typedefs: dict[str, list[RecordField]] = {}
        self.inlines: dict[str, tuple[list[str], Tree, Span | None]] = {}
        self.proctypes: dict[str, Tree] = {}
        self.proc_params: dict[str, list[str]] = {}
        self.proc_locals: dict[str, dict[str, Symbol]] = {}
        self.proc_labels: dict[str, set[str]] = {}
        self.mtype_counts: dict[str | None, int] = {}
        self.enums: list[tuple[str, int]] = []
        self.pb: ProcBuilder | None = None
        self.inline_env: list[dict[str, Tree]] = []
        self.inline_stack: list[str] = []
        self.remote_checks: list[tuple[str, str, str, Span | None]] = []
        # Block scopes of inline expansions (SPIN 6 scopes a declaration to its block):
        # a name declared in an inline body is local to that expansion.
        self.scopes: list[dict[str, Symbol]] = []
        self.scope_ids: list[int] = []  # a number per open block (labels' scope paths)
        self.scope_count = 0
        self.flags = 0
        self.end_condition: Expr | None = None  # set by a trace/notrace
        self.unless_depth = 0  # > 0 while lowering the main part of an unless
        # Process priorities (SPIN's HAS_PRIORITY): set before any body is lowered.
        self.priority_scheduling = False
        # Where the model uses enabled() (refused with rendezvous and provided).
        self.enabled_spans: list[Span | None] = []
        self.never_builder: ProcBuilder | None = None
        self.global_assigned: set[str] = set()

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

    def raw_text(self, node: Tree) -> str:
        """Return the preprocessed source text of ``node`` as written."""
        meta = node.meta
        if getattr(meta, "empty", True):
            return ""
        return self.pre.text[meta.start_pos : meta.end_pos]

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
        value = fold_int(e)
        if value is None:
            raise self.error(tree, f"{what} must be a constant")
        return value

    # ------------------------------------------------------------------ entry

    def run(self, tree: Tree) -> TransitionSystem:
        units = tree_subtrees(tree)
        # Pass 1: names of proctypes, inlines, typedefs (usable before declaration).
        for u in units:
            if u.data == "proctype":
                name_tok = next(c for c in u.children if isinstance(c, Token) and c.type == "NAME")
                if name_tok.value in self.proctypes:
                    raise self.error(name_tok, f"proctype '{name_tok.value}' already declared")
                self.proctypes[name_tok.value] = u
        self.priority_scheduling = uses_priorities(tree)
        # Names assigned or received into anywhere (a global channel among them is a
        # variable holding its id; a local of the same name makes this an over-estimate,
        # which costs nothing: the variable then never changes).
        self.global_assigned = assigned_names(tree)
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
        if not instances:
            raise self.no_runnable_process(units)
        for proc in processes:
            check_timeout_reads(proc)
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
            body = tree_subtrees(u)[0]
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

    def no_runnable_process(self, units: list[Tree]) -> SemanticError:
        """Return the error spin -a gives a model that starts no process (no ``active``
        proctype, no ``init``): "no runable process". It points at the first proctype,
        which nothing starts, else at the first declaration."""
        node: Tree | Token | None = None
        for u in units:
            if u.data == "proctype":
                node = next(c for c in u.children if isinstance(c, Token) and c.type == "NAME")
                break
        if node is None and units:
            node = units[0]
        message = ("no runnable process: nothing starts a process (no active proctype, no init) "
                   "(SPIN: 'no runable process')")
        if node is None or self.span(node) is None:
            return SemanticError.at(Span(self.path, 1, 1, 1, 2), message)
        return self.error(node, message)

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
        pb = ProcBuilder(":notrace:" if negated else ":trace:")
        pb.symbols["_"] = Symbol("var", "_", "local", type=INT)  # a wildcard in a trace send
        tproc = self.build_body(pb, tree_subtrees(u)[-1], None, self.span(u))
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
                if a[0] == b[0] and a[2:4] == b[2:4] and may_match_alike(a[4], b[4]):
                    raise self.unsupported(u, "a trace with two steps that can match the same "
                                           "operation (pan: 'non-determinism in event-trace')")
        dead = len(tproc.locations)
        span = self.span(u)
        event = Var("_event", "global", span)
        self.globals.append(Variable("_event", IntType(0, dead, Overflow.WRAP, "byte"),
                                     Const(tproc.initial), False, span))
        trace = EventTrace(event, tuple(steps), end, dead, negated, span)
        # pan's endstate(): a deadlock is valid only with the trace at an end state
        stops = [loc.id for loc in tproc.locations if loc.end] + ([dead] if negated else [])
        condition: Expr = Binary("==", event, Const(stops[0]), span)
        for loc in stops[1:]:
            condition = Binary("||", condition, Binary("==", event, Const(loc), span), span)
        self.end_condition = condition
        return [trace.instrument(p, self) for p in processes]

    def static_channel_id(self, chan: Expr) -> int | None:
        """Return the id of the global channel ``chan`` names, if known statically."""
        if isinstance(chan, Var) and chan.scope == "global" \
                and chan.name not in self.global_assigned:
            for i, c in enumerate(self.channels, start=1):
                if c.name == chan.name:
                    return i
        if isinstance(chan, Index) and isinstance(chan.base, Var) and chan.base.scope == "global" \
                and chan.base.name not in self.global_assigned:
            k = fold_int(chan.index)
            var = next((v for v in self.globals if v.name == chan.base.name), None)
            if var is not None and isinstance(var.init, tuple) and k is not None \
                    and 0 <= k < len(var.init):
                return fold_int(var.init[k])
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
        for c in tree_children(u):
            if isinstance(c, Tree) and c.data == "priority":
                value = self.const_int(tree_children(c)[1], "a process priority")
                if not 1 <= value <= 255:
                    raise self.error(tree_children(c)[1], f"bad process priority {value}, "
                                     "valid range: 1..255")
                return value
        return 1

    # ------------------------------------------------------------------ declarations

    def inline_def(self, u: Tree) -> None:
        kids = u.children
        name = str(kids[1])
        params = [str(c) for c in kids[2:-1] if isinstance(c, Token) and c.type == "NAME"]
        if name in self.inlines:
            raise self.error(kids[1], f"inline '{name}' already declared")
        self.inlines[name] = (params, kids[-1], self.span(u))

    # ------------------------------------------------------------------ processes

    def proctype(self, u: Tree) -> tuple[Process, int]:
        kids = tree_children(u)
        count = 0
        provided_tree = None
        name_tok = None
        params_tree = None
        body = None
        for c in kids:
            if isinstance(c, Tree):
                if c.data == "active":
                    count = 1
                    if len(tree_children(c)) > 1:
                        count = self.const_int(tree_children(c)[1], "the number of active instances")
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
        pb = ProcBuilder(str(name_tok))
        if params_tree is not None:
            for pd in tree_subtrees(params_tree):
                for pname, t, rec, _length, _init, tok in self.decl_items(pd):
                    if rec is not None:
                        self.record_parameter(pb, pname, rec, tok)
                        continue
                    if pname in pb.symbols:
                        raise self.error(tok, f"parameter '{pname}' declared twice")
                    assert t is not None
                    pb.symbols[pname] = Symbol("var", pname, "local", type=t, span=self.span(tok))
                    pb.parameters.append(pname)
                    pb.locals.append(Variable(pname, t, None, False, self.span(tok)))
        pb.assigned = assigned_names(body)
        if receives_into_pid(body):
            # pan keeps _pid in the process's state and a receive into it overwrites
            # it (spin -a accepts; only simulation warns): the process reads a copy.
            pb.symbols["_pid"] = Symbol("var", "_pid", "local", type=PID, span=self.span(u))
            pb.locals.append(Variable("_pid", PID, Builtin("_pid"), False, self.span(u)))
        provided = None
        if provided_tree is not None:
            provided = self.expr(tree_children(provided_tree)[1])
            pb.has_provided = True
        proc = self.build_body(pb, body, provided, self.span(u))
        return proc, count

    def record_parameter(self, pb: ProcBuilder, name: str, record: str, tok: Token) -> None:
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
        pb.symbols[name] = Symbol("record", name, "local", record=record, span=span)
        for suffix, leaf_type, _dims, _init in leaves:
            pb.parameters.append(f"{name}.{suffix}")
            pb.locals.append(Variable(f"{name}.{suffix}", leaf_type, None, False, span))

    def init(self, u: Tree) -> Process:
        self.declared_priority(u)
        pb = ProcBuilder(":init:")
        return self.build_body(pb, tree_subtrees(u)[-1], None, self.span(u))

    def never(self, u: Tree) -> Process:
        kids = tree_children(u)
        name = next((str(c) for c in kids if isinstance(c, Token) and c.type == "NAME"), "never_0")
        pb = ProcBuilder(name)
        self.never_builder = pb
        return self.build_body(pb, tree_subtrees(u)[-1], None, self.span(u))


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
