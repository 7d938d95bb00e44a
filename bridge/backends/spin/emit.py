"""Emit Promela from the IR: ``emit_promela`` returns an ``EmittedModel`` (text + map).

DESIGN.md section 5; paper 000 section 1 (formula F1: fairness as premises); paper 003
section 3 (each action its own process, so that SPIN's process-level weak fairness,
``pan -a -f``, is event-level weak fairness). Two emission styles:

* **structured** (plain encoding of systems without CSP barriers): one proctype per
  process, written like hand-written Promela (``layout.py``: inlined sequences, ``if``
  at branching locations, ``atomic { ... }`` blocks, ``goto`` elsewhere) so that SPIN
  stores the same states as for the original model; the never claim, ``provided``
  clauses and process-local channel arrays are written back too. Initial instances
  are ``active`` proctypes declared in instance order, so SPIN's pids are the IR's
  instance ids; an instance with arguments gets its own copy ``P_i`` whose parameters
  are locals holding the arguments.
* **explicit-pc** (CSP# models, and every encoding with fairness): every control
  location is a global ``pc_<i>``, locals are globals, and each *option* (one step of
  the system: a local edge, a CSP barrier taken by every participant, or a rendezvous
  pair) is one ``d_step { condition -> effects; pc updates }``. Every option's
  condition is thus a state predicate, which is what "enabled" must be in an LTL
  premise. The options live in one scheduler proctype (``plain``, ``premise``) or one
  proctype per action (``action-process``). Promela models keep their own rules
  there: each ``run`` wakes a fixed instance slot (``slots.py``), a finished instance
  dies by an option of its own (youngest first, while its ``provided`` clause holds),
  and atomic sequences follow Promela's exclusivity (``_promela_atomicity``).

Encodings: ``plain`` (no fairness); ``premise``: each LTL property becomes
``(P_1 && ... && P_n) -> phi`` with one conjunct per action: weak
``<>[] en_a -> []<> ex_a``, strong local ``[]<> en_a -> []<> ex_a``, process-level per
instance; ``ex_a`` is ``last == a`` where the global ``last`` holds the action just
taken (paper 000 Table 1 shows why this does not scale: the automaton of F1 grows
exponentially in n); ``action-process``: one proctype per action, for ``pan -a -f``.

State/event LTL follows the native engine (``fairness/product.py``): an event atom holds
in the state its step reached, ``init`` in the initial state. When a property has event
atoms, a deadlocked state first takes one extra step ``last = 0`` (the native idle step
has no event), so ``[]<> e`` cannot hold by a stale ``last``.

Strong global fairness (paper 000 Def. 4) is over steps ``(s, e, s')``, so its premise
needs the explicit state graph, which the caller computes (backends never import the
engine) and passes as an ``ExplicitGraph``: every reachable state as a full valuation
and every step as (source, the ``(instance, edge index)`` pairs taken, target). Each
state ``k`` becomes ``#define st_k`` (its valuation), each option's ``d_step`` first sets
the bookkeeping global ``stp`` to the id of the graph step it is taking (a conditional
over the ``st_k`` of its sources), and the premise has one conjunct per source state,
``[]<> st_k -> ([]<> tk_j1 && []<> tk_j2 ...)`` with ``tk_j`` = ``stp == j``: the
conjunction of the per-step conjuncts ``[]<> st_k -> []<> tk_j`` of the issue, grouped
(equivalent, fewer Streett pairs). Spot's translation of these Streett pairs grows
exponentially (7 pairs: 15 s; 12: over 120 s, measured), so the ``bottom-scc`` form
gives the equivalent premise "the run ends in a bottom SCC ``B`` and sweeps all of its
steps infinitely often" (one disjunct per bottom SCC, a sweep counter ``sw_b`` per
``B`` in the model). Only for small graphs (``STRONG_GLOBAL_MAX_STEPS``).

Known limits (rejected with ``UnsupportedError`` naming the construct): strong global
fairness without an explicit graph, above ``STRONG_GLOBAL_MAX_STEPS`` steps, and in the
action-process encoding; in explicit-pc: a ``run`` that may execute more than once or
in an order fixed only at run time (``slots.py``), process-local channels, ``_last``,
``np_``, channel variables, ``timeout`` together with event atoms; in both: ``X`` in ltl blocks (SPIN is
built without it; use a Spot never claim). Under ``action-process`` every tau edge is
its own weakly fair process, which the native engine does not require (stated in
``notes``). Dynamic event names (components that depend on the state) are allowed only
where no event id is needed.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import jinja2

from bridge._resources import template_dir
from bridge.backends.spin.layout import BodyWriter
from bridge.backends.spin.promela_text import (
    Declared,
    ExprWriter,
    Scope,
    array_element,
    block_locals,
    declaration,
    declare_type,
    fold,
    global_name,
    has_statement,
    sanitize,
)
from bridge.backends.spin.run import SpinOptions
from bridge.backends.spin.slots import plan_slots
from bridge.backends.spin.trail import LineInfo, SourceMap
from bridge.diagnostics import ConfigurationError, Span, UnsupportedError
from bridge.ir.expr import (
    Binary,
    Builtin,
    ElseGuard,
    Expr,
    Receive,
    RecvBind,
    RecvMatch,
    RemoteLabel,
    RemoteVar,
    Run,
    Send,
    Stmt,
    Var,
    iter_subexpressions,
)
from bridge.ir.model import (
    Channel,
    Composition,
    Edge,
    FairnessMark,
    Instance,
    InstanceRef,
    Interleave,
    Parallel,
    Process,
    SourceLanguage,
    TransitionSystem,
)
from bridge.ir.property import (
    Fairness,
    Ltl,
    LtlBinary,
    LtlConst,
    LtlEvent,
    LtlState,
    LtlUnary,
    Property,
    PropertyKind,
)
from bridge.ir.types import ArrayType, IntType, Type

ENCODINGS = ("plain", "premise", "action-process")
STYLES = ("auto", "structured", "explicit-pc")
INIT_EVENT = "init"
_INIT_ID = 1
STRONG_GLOBAL_MAX_STEPS = 200  # per-step form: one Streett pair per source state
STRONG_GLOBAL_BOTTOM_SCC_MAX_STEPS = 20000  # bottom-scc form: bookkeeping grows, not the claim
STRONG_GLOBAL_FORMS = ("per-step", "bottom-scc")
SPIN_MAX_PROCESSES = 255  # pan: "too many processes" beyond (promela-spin.md section 6)


@dataclass(frozen=True, slots=True)
class ExplicitState:
    """One reachable system state as a full valuation (strong global premise).

    ``globals``: ``(name, values)`` for every non-hidden global variable, arrays
    flattened row-major (one value for a scalar); ``locations``: the control location id
    of each instance (instance order); ``locals``: per instance, ``(name, values)`` of
    its locals and parameters. Channel contents are not representable (rejected).
    """

    globals: tuple[tuple[str, tuple[int, ...]], ...]
    locations: tuple[int, ...]
    locals: tuple[tuple[tuple[str, tuple[int, ...]], ...], ...] = ()


@dataclass(frozen=True, slots=True)
class ExplicitStep:
    """One step ``(s, e, s')`` of the explicit state graph (paper 000 Def. 4):
    ``source``/``target`` index ``ExplicitGraph.states``; ``edges``: the
    ``(instance id, edge index)`` pairs it takes (its identity, as ``Step.edges``)."""

    source: int
    edges: tuple[tuple[int, int], ...]
    target: int


@dataclass(frozen=True, slots=True)
class ExplicitGraph:
    """The reachable state graph of a system, as plain data for the strong global
    premise (computed by the caller, e.g. ``bridge.compare.explicit_graph_for``).
    Stutter steps of deadlocked states are left out (their conjunct is always true)."""

    states: tuple[ExplicitState, ...]
    steps: tuple[ExplicitStep, ...]


@dataclass(frozen=True, slots=True)
class EmittedProperty:
    """How one IR property is checked on the emitted model.

    ``check``: ``ltl`` (an ltl block ``ltl_name``; pan ``-a -N ltl_name``), ``safety``
    (assertions and invalid end states, no claim), ``deadlock`` (invalid end states),
    ``never`` (the model's own never claim, named ``ltl_name``; structured style only),
    ``non-progress`` (the model's progress labels, kept by the structured style: pan
    ``-l``, compiled with ``-DNP``) and ``acceptance`` (its accept labels: pan ``-a``
    compiled with ``-DNOCLAIM``; structured style only).
    ``spin_formula``: the formula of the ltl block (over ``#define`` names);
    ``spot_formula``: the same in Spot syntax over the same names (for a Spot-built
    never claim, ``spin -a -N``); ``negated``: the block checks the negation of a
    reachability property (``reaches c`` holds iff the block is *violated*).
    """

    name: str
    number: int
    check: str
    ltl_name: str | None = None
    spin_formula: str | None = None
    spot_formula: str | None = None
    premises: int = 0
    negated: bool = False


@dataclass(frozen=True)
class EmittedModel:
    """Promela text and what is needed to run it and read its trails back."""

    text: str
    source_map: SourceMap
    encoding: str
    style: str
    fairness: Fairness
    properties: tuple[EmittedProperty, ...]
    actions: tuple[str, ...] = ()
    processes: int = 0
    notes: tuple[str, ...] = ()

    def find_property(self, name_or_number: str | int) -> EmittedProperty:
        """Return the emitted property by IR name or 1-based number (KeyError if none)."""
        for p in self.properties:
            if p.name == name_or_number or p.number == name_or_number:
                return p
        raise KeyError(name_or_number)

    def spin_options(
        self, prop: EmittedProperty, timeout: float = 60.0, memory_mb: int = 1024
    ) -> SpinOptions:
        """Return the ``SpinOptions`` that check ``prop`` on this model.

        ``action-process`` runs ``-a -f`` (SPIN's weak fairness); POR is off
        (``-DNOREDUCE``) in every encoding so that state counts compare.
        """
        defines = ("NOREDUCE",)
        if prop.check in ("non-progress", "acceptance"):
            # SPIN's own cycle checks of the labels: pan -l (-DNP) or pan -a without
            # any claim (-DNOCLAIM), with -f when the model asks for SPIN's fairness.
            progress = prop.check == "non-progress"
            return SpinOptions(
                timeout=timeout,
                memory_mb=memory_mb,
                acceptance=not progress,
                non_progress=progress,
                defines=defines + (() if progress else ("NOCLAIM",)),
                max_depth=1_000_000,
                processes=self.processes,
            )
        if prop.check == "never":
            # the model's own claim, by name (pan -a: acceptance cycles and the claim
            # reaching its end)
            return SpinOptions(
                timeout=timeout,
                memory_mb=memory_mb,
                acceptance=True,
                ltl=prop.ltl_name,
                defines=defines,
                max_depth=1_000_000,
                processes=self.processes,
            )
        if prop.check == "ltl":
            weak = self.encoding == "action-process" and self.fairness is Fairness.WEAK
            return SpinOptions(
                timeout=timeout,
                memory_mb=memory_mb,
                acceptance=True,
                weak_fairness=weak,
                ltl=prop.ltl_name if len(self.ltl_names) > 1 else None,
                defines=defines,
                max_depth=1_000_000,
                processes=self.processes,
            )
        return SpinOptions(
            timeout=timeout,
            memory_mb=memory_mb,
            ignore_end_states=False,
            defines=defines,
            max_depth=1_000_000,
            processes=self.processes,
        )

    @property
    def ltl_names(self) -> tuple[str, ...]:
        """Return the names of the ltl blocks in the text."""
        return tuple(p.ltl_name for p in self.properties if p.ltl_name and p.check == "ltl")


# ---------------------------------------------------------------------------------
# Entry point


def emit_promela(
    system: TransitionSystem,
    encoding: str = "plain",
    fairness: Fairness = Fairness.NONE,
    property: Property | None = None,  # noqa: A002 - the brief's name
    style: str = "auto",
    annotations: Sequence[tuple[FairnessMark, str]] = (),
    ltl_blocks: bool = True,
    explicit_graph: ExplicitGraph | None = None,
    strong_global_form: str = "per-step",
) -> EmittedModel:
    """Return the Promela text of ``system`` under ``encoding``, with its source map.

    ``property``: emit only this property (default: every property of the system).
    ``fairness``: the notion the premise / action-process encodings build in (plain
    ignores it: SPIN then checks without fairness, or with ``-f`` process fairness on
    the structured style). ``annotations``: per-event ``wf``/``sf``/``f`` marks, each a
    premise (paper 000 section 4). ``ltl_blocks=False`` leaves the ltl blocks out (to
    check with a never claim file instead) but keeps their atoms' ``#define``s.
    ``explicit_graph``: the reachable state graph of ``system``, needed (and used only)
    by the premise encoding under strong global fairness (paper 000 Def. 4; at most
    ``STRONG_GLOBAL_MAX_STEPS`` steps). ``strong_global_form``: ``per-step`` (the
    conjunct of each step, grouped by source state: a Streett pair per state) or
    ``bottom-scc`` (the equivalent premise: the run ends in a bottom SCC of the graph
    and sweeps all of its steps infinitely often, counted by ``sw_b`` bookkeeping; see
    ``_Explicit._bottom_scc_premise``).
    Output is deterministic (golden-tested).
    """
    if encoding not in ENCODINGS:
        raise ConfigurationError(f"unknown encoding {encoding!r}; allowed: {', '.join(ENCODINGS)}")
    if style not in STYLES:
        raise ConfigurationError(f"unknown style {style!r}; allowed: {', '.join(STYLES)}")
    if not isinstance(fairness, Fairness):
        raise ConfigurationError(f"fairness must be a Fairness, got {fairness!r}")
    if strong_global_form not in STRONG_GLOBAL_FORMS:
        raise ConfigurationError(
            f"unknown strong global form {strong_global_form!r}; allowed: "
            f"{', '.join(STRONG_GLOBAL_FORMS)}"
        )
    properties = (property,) if property is not None else system.properties
    if system.end_condition is not None and any(
            p.kind is PropertyKind.SAFETY for p in properties):
        raise UnsupportedError.at(
            system.end_condition.span if hasattr(system.end_condition, "span") else None,
            "the end-state rule of a Promela trace/notrace (pan: 'event_trace not "
            "completed') cannot be written back; translate the ltl properties only")
    for process in system.processes:
        for edge in process.edges:
            if edge.atomic:
                raise UnsupportedError.at(
                    edge.span, "unsupported construct: 'atomic' in an operand of '|||' "
                    "inside a process (its steps have priority over the whole system's "
                    "and the other operands'): not written to Promela")
    if encoding == "action-process" and fairness is Fairness.STRONG_GLOBAL:
        raise UnsupportedError.at(
            None,
            "strong global fairness has no action-process encoding: it is over steps "
            "(s, e, s') (paper 000 Def. 4); use the premise encoding with an explicit graph",
        )
    if encoding == "premise" and fairness is Fairness.STRONG_GLOBAL:
        if explicit_graph is None:
            raise UnsupportedError.at(
                None,
                "strong global fairness is over steps (s, e, s') and its premise needs the "
                "explicit state graph (paper 000 Def. 4): pass explicit_graph",
            )
        limit = strong_global_limit(strong_global_form)
        if len(explicit_graph.steps) > limit:
            raise UnsupportedError.at(
                None,
                f"the strong global premise ({strong_global_form} form) grows with the "
                f"steps: {len(explicit_graph.steps)} steps is more than the limit of "
                f"{limit}; use the native checker",
            )
    if encoding == "action-process" and fairness not in (Fairness.WEAK, Fairness.NONE):
        raise UnsupportedError.at(
            None,
            f"the action-process encoding gives event-level weak fairness only (pan -f), "
            f"not {fairness.value}",
        )
    if style == "auto":
        has_events = any(_events_in(_formula_of(p)) for p in properties)
        explicit = encoding != "plain" or has_events or _needs_explicit(system)
        style = "explicit-pc" if explicit else "structured"
    if style == "structured" and encoding != "plain":
        raise ConfigurationError(f"the {encoding} encoding needs the explicit-pc style")
    if style == "structured":
        return _Structured(system, properties, ltl_blocks).emit()
    never = next((p for p in properties if p.kind is PropertyKind.NEVER), None)
    if never is not None:
        raise UnsupportedError.at(
            never.span, "a never claim is written back only by the structured style "
            "(plain encoding); the fairness encodings are for ltl properties",
        )
    cycles = [p for p in properties if p.kind in _LABEL_CYCLES]
    if cycles and property is not None:
        raise UnsupportedError.at(
            cycles[0].span, f"{cycles[0].text} (pan -l / -a on the model's labels) are "
            "checked on the structured style only (plain encoding): the explicit-pc style "
            "does not keep progress and accept labels")
    # Every property: the label cycles are left out (they keep their own check).
    properties = tuple(p for p in properties if p.kind not in _LABEL_CYCLES)
    graph = explicit_graph if fairness is Fairness.STRONG_GLOBAL else None
    return _Explicit(
        system,
        properties,
        encoding,
        fairness,
        tuple(annotations),
        ltl_blocks,
        graph,
        strong_global_form,
    ).emit()


def strong_global_limit(form: str) -> int:
    """Return the most steps an explicit graph may have for the strong global premise in
    ``form`` (``per-step``: one conjunct per step; ``bottom-scc``: the claim stays small,
    the ``stp`` bookkeeping grows linearly)."""
    if form == "bottom-scc":
        return STRONG_GLOBAL_BOTTOM_SCC_MAX_STEPS
    return STRONG_GLOBAL_MAX_STEPS


_LABEL_CYCLES = (PropertyKind.NON_PROGRESS, PropertyKind.ACCEPTANCE)


def _needs_explicit(system: TransitionSystem) -> bool:
    """Return True if the system synchronises on CSP barriers (a Parallel node), or has
    atomic locations and is not a Promela model: the structured style writes Promela's
    ``atomic``, whose rule (only the last mover holds control, regained only by moving)
    is not the IR/CSP# rule (every instance at an atomic location with a step has
    priority; semantics/statespace.py); the explicit-pc style implements both."""
    if system.language is not SourceLanguage.PROMELA and any(
        loc.atomic for p in system.processes for loc in p.locations
    ):
        return True
    stack: list[Composition] = [system.composition] if system.composition else []
    while stack:
        node = stack.pop()
        if isinstance(node, Parallel):
            return True
        if isinstance(node, Interleave):
            stack.extend(node.children)
    return False


# ---------------------------------------------------------------------------------
# Shared helpers


_TAG = re.compile(r"\s*/\*@(\d+)\*/")


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render_template(name: str, infos: list[LineInfo], **context: object) -> tuple[str, dict]:
    """Return the rendered template with line tags removed, and line -> LineInfo."""
    text = _environment().get_template(name).render(**context)
    lines = text.split("\n")
    mapping: dict[int, LineInfo] = {}
    for number, line in enumerate(lines, start=1):
        m = _TAG.search(line)
        if m:
            mapping[number] = infos[int(m.group(1))]
            lines[number - 1] = _TAG.sub("", line)
    return "\n".join(lines), mapping


def _instance_label(system: TransitionSystem, i: int) -> str:
    inst = system.instances[i]
    return inst.name or f"{inst.process}({i})"


class _Formulas:
    """LTL of the IR -> (Promela ltl text, Spot text) over ``#define``d atoms."""

    def __init__(self, atom: Callable[[LtlState | LtlEvent], str]) -> None:
        self.atom = atom

    def both(self, f: Ltl) -> tuple[str, str]:
        if isinstance(f, LtlConst):
            return ("true", "1") if f.value else ("false", "0")
        if isinstance(f, LtlState | LtlEvent):
            name = self.atom(f)
            return name, name
        if isinstance(f, LtlUnary):
            a, b = self.both(f.operand)
            if f.op == "X":
                raise UnsupportedError.at(
                    f.span, "SPIN 6.5.2 ltl blocks have no X (next) operator: use a never claim"
                )
            spin_op = {"!": "!", "G": "[]", "F": "<>"}[f.op]
            return f"({spin_op}({a}))", f"({f.op}({b}))"
        if isinstance(f, LtlBinary):
            (la, lb), (ra, rb) = self.both(f.left), self.both(f.right)
            spot_op = {"&&": "&", "||": "|"}.get(f.op, f.op)
            if f.op == "W":
                return f"(([]({la})) || (({la}) U ({ra})))", f"(({lb}) W ({rb}))"
            if f.op == "R":
                return f"(({la}) V ({ra}))", f"(({lb}) R ({rb}))"
            return f"(({la}) {f.op} ({ra}))", f"(({lb}) {spot_op} ({rb}))"
        raise UnsupportedError.at(None, f"formula node {type(f).__name__}")


def _events_in(f: Ltl | None) -> list[LtlEvent]:
    out: list[LtlEvent] = []
    stack: list[Ltl] = [f] if f is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, LtlEvent):
            out.append(node)
        elif isinstance(node, LtlUnary):
            stack.append(node.operand)
        elif isinstance(node, LtlBinary):
            stack += [node.left, node.right]
    return out


def _formula_of(p: Property) -> Ltl | None:
    return p.formula if p.kind is PropertyKind.LTL else None


def _ltl_property(p: Property) -> tuple[str, Ltl | None, bool]:
    """Return (check kind, formula to put in an ltl block, negated?) for property ``p``."""
    if p.kind is PropertyKind.LTL:
        return "ltl", p.formula, False
    if p.kind is PropertyKind.INVARIANT and p.condition is not None:
        return "ltl", LtlUnary("G", LtlState(p.condition, "invariant")), False
    if p.kind is PropertyKind.REACHES and p.condition is not None:
        if p.optimise is not None:
            raise UnsupportedError.at(p.span, "'reaches ... with min/max' has no SPIN form")
        return "ltl", LtlUnary("G", LtlUnary("!", LtlState(p.condition, "target"))), True
    if p.kind is PropertyKind.SAFETY:
        return "safety", None, False
    if p.kind is PropertyKind.DEADLOCK_FREE:
        return "deadlock", None, False
    if p.kind is PropertyKind.NEVER:
        return "never", None, False
    if p.kind is PropertyKind.NON_PROGRESS:
        return "non-progress", None, False
    if p.kind is PropertyKind.ACCEPTANCE:
        return "acceptance", None, False
    if p.kind is PropertyKind.REFINES:
        raise UnsupportedError.at(p.span, "refinement checking 'refines' has no SPIN check "
                                          "(SPIN checks no refinement between processes)")
    raise UnsupportedError.at(p.span, f"property kind '{p.kind.value}' has no SPIN check")


# ---------------------------------------------------------------------------------
# Structured style


class _Structured:
    """One proctype per process; locations are labelled ``if``s (see module doc)."""

    def __init__(
        self, system: TransitionSystem, properties: Sequence[Property], ltl_blocks: bool
    ) -> None:
        self.system = system
        self.properties = properties
        self.ltl_blocks = ltl_blocks
        self.infos: list[LineInfo] = []
        self.globals_: dict[str, Type] = {v.name: v.type for v in system.globals}
        self.channels = {c.name: i + 1 for i, c in enumerate(system.channels)}
        self.names: dict[str, str] = {}
        self.provided: Expr | None = None  # the clause of the proctype being written

    def tag(self, info: LineInfo) -> str:
        self.infos.append(info)
        return f"/*@{len(self.infos) - 1}*/"

    def emit(self) -> EmittedModel:
        system = self.system
        global_scope = self._scope(None, "global declarations")
        writer = ExprWriter(global_scope)
        globals_ = [
            self._declare(v.name, v.type, v.init, writer, v.hidden, v.span, global_name)
            for v in system.globals
        ]
        channels = [self._channel(c, writer, global_name(c.name)) for c in system.channels]
        proctypes = self._proctypes()
        claim = self._claim()
        defines, props = self._properties()
        if system.never is not None:
            props = [dataclasses.replace(p, ltl_name=system.never.name) if p.check == "never"
                     else p for p in props]
        text, mapping = render_template(
            "promela_structured.pml.j2",
            self.infos,
            model=system.name,
            source=", ".join(system.source_files),
            globals=globals_,
            channels=channels,
            proctypes=proctypes,
            defines=defines,
            ltl=[(p.ltl_name, p.spin_formula) for p in props if p.ltl_name and p.check == "ltl"]
            if self.ltl_blocks
            else [],
            claim=claim,
        )
        instances = {i: _instance_label(system, i) for i in range(len(system.instances))}
        hidden = frozenset()
        return EmittedModel(
            text,
            SourceMap(mapping, instances, hidden),
            "plain",
            "structured",
            Fairness.NONE,
            tuple(props),
            # initial instances plus one per textual run (a run in a loop may start
            # more: pan then stops with "too many processes", never a wrong verdict)
            processes=len(system.instances) + sum(
                1 for p in system.processes for e in p.edges
                for st in _all_stmts(e.effect) if isinstance(st, Run)),
        )

    def _claim(self) -> dict | None:
        """Return the model's never claim for the template (None if it has none): the
        same body layout as a proctype, over globals and remote references."""
        never = self.system.never
        if never is None:
            return None
        if never.locals or never.channels:
            raise UnsupportedError.at(never.span, "a never claim with local declarations")
        writer = ExprWriter(self._scope(never, "the never claim"))
        name = "" if never.name == "never_0" else sanitize(never.name)
        return {"name": name, "body": self._body(never, writer)}

    # -- declarations -----------------------------------------------------------
    def _declare(
        self,
        name: str,
        t: Type,
        init: Expr | tuple[Expr, ...] | None,
        writer: ExprWriter,
        hidden: bool,
        span: Span | None,
        namer: Callable[[str], str],
    ) -> str:
        declared = declare_type(t, span)
        return declaration(namer(name), declared, _init_text(init, declared, writer), hidden)

    def _channel(self, c, writer: ExprWriter, name: str) -> str:  # noqa: ANN001
        fields = ", ".join(_field_type(t, c.span) for t in c.fields)
        return f"chan {name} = [{c.capacity}] of {{ {fields} }}"

    def _scope(self, process: Process | None, where: str) -> Scope:
        local_types: dict[str, Type] = {}
        if process is not None:
            local_types = {v.name: v.type for v in process.locals}
        system = self.system
        arrays = _channel_arrays(process) if process is not None else {}

        def local(name: str) -> str:
            element = array_element(name)
            if element is not None and element[0] in arrays:
                return f"l_{sanitize(element[0])}[{element[1]}]"
            return "l_" + sanitize(name)

        def channel_array(base: str, length: int) -> str | None:
            return f"l_{sanitize(base)}" if arrays.get(base) == length else None

        def remote_label(e: RemoteLabel) -> str:
            target = system.process(e.proctype)
            pid = "" if e.pid is None else f"[{ExprWriter(scope).expr(e.pid)}]"
            label = self._label_names(target).get(e.label, sanitize(e.label))
            return f"({self._proctype_name(e.proctype, e.pid, e.span)}{pid}@{label})"

        def remote_var(e: RemoteVar, render: Callable[[Expr], str]) -> str:
            pid = "" if e.pid is None else f"[{render(e.pid)}]"
            return f"{self._proctype_name(e.proctype, e.pid, e.span)}{pid}:l_{sanitize(e.name)}"

        scope = Scope(
            self.globals_,
            self.channels,
            local=local if process is not None else None,
            local_type=local_types.get,
            remote_label=remote_label,
            remote_var=remote_var,
            where=where,
            channel_array=channel_array,
        )
        return scope

    def _proctype_name(self, proctype: str, pid: Expr | None, span: Span | None) -> str:
        copies = [
            i
            for i, inst in enumerate(self.system.instances)
            if inst.process == proctype and inst.arguments
        ]
        if not copies:
            return sanitize(proctype)
        value = fold(pid) if pid is not None else (copies[0] if len(copies) == 1 else None)
        if value is None or value not in copies:
            raise UnsupportedError.at(
                span,
                f"remote reference to '{proctype}' with a non-constant pid: its "
                "instances are emitted as separate proctypes",
            )
        return f"{sanitize(proctype)}_{value}"

    def _label_names(self, process: Process) -> dict[str, str]:
        out: dict[str, str] = {}
        for loc in process.locations:
            for label in loc.labels:
                out[label] = sanitize(label)
        return out

    # -- proctypes --------------------------------------------------------------
    def _proctypes(self) -> list[dict]:
        system = self.system
        run_targets = {
            s.proctype
            for p in system.processes
            for e in p.edges
            for s in _all_stmts(e.effect)
            if isinstance(s, Run)
        }
        out: list[dict] = []
        emitted: set[str] = set()
        # Active declarations in instance order, so pids equal instance ids.
        i = 0
        instances = system.instances
        while i < len(instances):
            inst = instances[i]
            process = system.process(inst.process)
            if inst.arguments:
                out.append(self._proctype(process, f"{sanitize(process.name)}_{i}", 1, inst,
                                          inst.priority))
                i += 1
                continue
            j = i
            while (
                j < len(instances)
                and instances[j].process == inst.process
                and not instances[j].arguments
                and instances[j].priority == inst.priority
            ):
                j += 1
            if process.name in emitted:
                raise UnsupportedError.at(
                    inst.span,
                    f"instances of '{process.name}' are not consecutive: SPIN "
                    "numbers active processes in declaration order",
                )
            emitted.add(process.name)
            out.append(self._proctype(process, sanitize(process.name), j - i, None,
                                      inst.priority))
            i = j
        for process in system.processes:
            if process.name in run_targets and process.name not in emitted:
                emitted.add(process.name)
                out.append(self._proctype(process, sanitize(process.name), 0, None))
        return out

    def _proctype(
        self, process: Process, name: str, active: int, instance: Instance | None,
        priority: int = 1,
    ) -> dict:
        scope = self._scope(process, f"process {process.name}")
        writer = ExprWriter(scope)
        local_names = {v.name for v in process.locals}
        params: list[str] = []
        locals_: list[str] = []
        param_types = {v.name: v.type for v in process.locals}
        if instance is None:
            for p in process.parameters:
                t = param_types.get(p)
                base = declare_type(t, process.span).base if t is not None else "int"
                params.append(f"{base} l_{sanitize(p)}")
        else:
            global_writer = ExprWriter(self._scope(None, f"arguments of {name}"))
            for p, arg in zip(process.parameters, instance.arguments, strict=True):
                t = param_types.get(p)
                declared = (
                    declare_type(t, process.span) if t is not None else Declared("int", None, ())
                )
                locals_.append(declaration(f"l_{sanitize(p)}", declared, global_writer.expr(arg)))
        for v in process.locals:
            if v.name in process.parameters:
                continue
            declared = declare_type(v.type, v.span)
            locals_.append(
                declaration(
                    "l_" + sanitize(v.name),
                    declared,
                    _init_text(v.init, declared, writer),
                    v.hidden,
                )
            )
        arrays = _channel_arrays(process)
        for c in process.channels:
            element = array_element(c.name)
            if element is None or element[0] not in arrays:
                locals_.append(self._channel(c, writer, "l_" + sanitize(c.name)))
            elif element[1] == 0:
                array_name = f"l_{sanitize(element[0])}[{arrays[element[0]]}]"
                locals_.append(self._channel(c, writer, array_name))
        blocks: dict[str, Type] = {}
        for e in process.edges:
            for lv in block_locals(e.effect):
                blocks.setdefault(lv.name, lv.type)
        for bname, btype in sorted(blocks.items()):
            locals_.append(declaration("b_" + sanitize(bname), declare_type(btype), None))
        scope.block = {b: "b_" + sanitize(b) for b in blocks}
        scope.block_types = dict(blocks)
        for assertion in process.channel_assertions:
            locals_.append(f"{assertion.kind} {writer.channel(assertion.channel)}")
        del local_names
        # The clause goes on the proctype (it also guards the instance's removal); the
        # conjunct the front-end added to every guard is left out again (_edge).
        self.provided = process.provided
        body = self._body(process, writer)
        self.provided = None
        return {
            "provided": writer.expr(process.provided) if process.provided is not None else "",
            "body": body,
            "name": name,
            "init": process.name in ("init", ":init:"),
            "active": active,
            "params": "; ".join(params),
            "locals": locals_,
            # SPIN: 'priority N' on an active proctype or init (a run gives its own)
            "priority": priority if priority != 1 and (active or instance is not None
                                                      or process.name == ":init:") else None,
        }

    def _location_labels(self, process: Process, lid: int) -> list[str]:
        loc = next(x for x in process.locations if x.id == lid)
        # A label the front-end kept at several locations (one per inline expansion or
        # block, SPIN 6 scopes labels to blocks) is emitted once per location, renamed
        # apart after its first occurrence (the prefix end/progress/accept is kept).
        earlier = {lab for x in process.locations if x.id < lid for lab in x.labels}
        labels = [sanitize(lab) + (f"_L{lid}" if lab in earlier else "") for lab in loc.labels]
        labels.append(f"L{lid}")
        if loc.end and not any(lab.startswith("end") for lab in labels):
            labels.insert(0, f"end_L{lid}")
        if loc.progress and not any(lab.startswith("progress") for lab in labels):
            labels.insert(0, f"progress_L{lid}")
        if loc.accept and not any(lab.startswith("accept") for lab in labels):
            labels.insert(0, f"accept_L{lid}")
        return labels

    def _body(self, process: Process, writer: ExprWriter) -> list[str]:
        """Return the body lines of a process (``layout.py`` has the rules)."""

        def tag(e: Edge, text: str) -> str:
            event = e.event.base if e.event and not e.event.components else e.label
            return self.tag(LineInfo(e.span, event, e.text or text, True))

        return BodyWriter(
            edge_text=lambda e: self._edge(e, writer),
            tag=tag,
            labels=lambda lid: self._location_labels(process, lid),
        ).body(process)

    def _edge(self, e: Edge, writer: ExprWriter) -> str:
        parts: list[str] = []
        guard_text = None
        guard = _without_conjunct(e.guard, self.provided)
        if isinstance(guard, ElseGuard):
            guard_text = "else"
        elif guard is not None:
            guard_text = f"({writer.expr(guard)})"
        comm_text = writer.stmt(e.comm)[0] if e.comm is not None else None
        effects = [line for s in e.effect for line in writer.stmt(s)]
        blocking = has_statement(e.effect, (Send, Receive, Run))
        if comm_text is None and not effects:
            return guard_text or "skip"
        if guard_text is None and comm_text is None and len(effects) == 1 and blocking is None:
            return effects[0]
        if guard_text is None and comm_text is not None and not effects:
            return comm_text
        if comm_text is not None:
            if guard_text is not None and guard_text != "else":
                if self._rendezvous(e.comm):
                    raise UnsupportedError.at(
                        e.span, "a guarded rendezvous cannot be emitted as one Promela step"
                    )
                enable = self._enabling(e.comm, writer)
                guard_text = f"({guard_text} && {enable})"
            parts = [p for p in (guard_text, comm_text) if p] + effects
            head = parts[0] if guard_text != "else" else "else"
            rest = parts[1:]
            return f"atomic {{ {head} -> {'; '.join(rest)} }}" if rest else head
        if guard_text == "else":
            return "else -> " + (
                "atomic { " + "; ".join(effects) + " }"
                if blocking
                else "d_step { " + "; ".join(effects) + " }"
            )
        if blocking is not None:
            head = guard_text or "true"
            return f"atomic {{ {head} -> {'; '.join(effects)} }}"
        if guard_text is None:
            return "d_step { " + "; ".join(effects) + " }"
        return f"d_step {{ {guard_text} -> {'; '.join(effects)} }}"

    def _rendezvous(self, comm: Send | Receive | None) -> bool:
        if comm is None:
            return False
        ch = comm.channel
        if isinstance(ch, Var) and ch.scope == "global" and ch.name in self.channels:
            return self.system.channels[self.channels[ch.name] - 1].capacity == 0
        return True  # unknown at emission time: treat as possibly rendezvous

    def _enabling(self, comm: Send | Receive, writer: ExprWriter) -> str:
        ch = writer.expr(comm.channel)
        if isinstance(comm, Send):
            return f"nfull({ch})"
        mark = "??" if comm.random else "?"
        return f"{ch}{mark}[{writer.recv_args(comm.args, poll=True)}]"

    # -- properties ---------------------------------------------------------------
    def _properties(self) -> tuple[list[str], list[EmittedProperty]]:
        defines: list[str] = []
        atoms: dict[str, str] = {}
        writer = ExprWriter(self._scope(None, "ltl formula"))

        def atom(a: LtlState | LtlEvent) -> str:
            if isinstance(a, LtlEvent):
                raise UnsupportedError.at(
                    a.span, f"event '{a.name}' in a formula needs the explicit-pc style"
                )
            text = writer.expr(a.expr)
            if text not in atoms:
                atoms[text] = f"p_{len(atoms)}"
                defines.append(f"#define {atoms[text]} {text}")
            return atoms[text]

        return defines, _emit_properties(self.properties, _Formulas(atom), ())


def _emit_properties(
    properties: Sequence[Property], formulas: _Formulas, premises: Sequence[tuple[str, str]]
) -> list[EmittedProperty]:
    out: list[EmittedProperty] = []
    for index, p in enumerate(properties):
        check, formula, negated = _ltl_property(p)
        name = f"ltl_{index}_{sanitize(p.name)}"[:60]
        if check != "ltl" or formula is None:
            out.append(EmittedProperty(p.name, p.number, check))
            continue
        spin_phi, spot_phi = formulas.both(formula)
        if premises:
            spin_pre = " && ".join(s for s, _ in premises)
            spot_pre = " & ".join(t for _, t in premises)
            spin_text = f"({spin_pre}) -> ({spin_phi})"
            spot_text = f"({spot_pre}) -> ({spot_phi})"
        else:
            spin_text, spot_text = spin_phi, spot_phi
        out.append(
            EmittedProperty(
                p.name, p.number, "ltl", name, spin_text, spot_text, len(premises), negated
            )
        )
    return out


def _init_text(
    init: Expr | tuple[Expr, ...] | None, declared: Declared, writer: ExprWriter
) -> str | None:
    if init is None:
        return None
    if isinstance(init, tuple):
        values = [writer.expr(v) for v in init]
        if len(set(values)) == 1:
            return values[0]
        return "{" + ", ".join(values) + "}"
    return writer.expr(init)


def _field_type(t: Type, span: Span | None) -> str:
    declared = declare_type(t, span)
    if declared.length is not None or declared.bits is not None:
        raise UnsupportedError.at(span, "array or unsigned message fields cannot be emitted")
    return declared.base


def _channel_arrays(process: Process) -> dict[str, int]:
    """Return the process-local channel arrays of ``process``, base name -> length: the
    channels named ``base[0]`` .. ``base[n-1]``, all of one capacity and message type
    (the Promela front-end's form of ``chan base[n] = ...``), written back as one array
    so that a computed index ``base[i]`` has a Promela form."""
    groups: dict[str, list[Channel]] = {}
    for c in process.channels:
        element = array_element(c.name)
        if element is not None:
            groups.setdefault(element[0], []).append(c)
    out: dict[str, int] = {}
    for base, members in groups.items():
        names = [c.name for c in members]
        if (names == [f"{base}[{k}]" for k in range(len(members))]
                and len({(c.capacity, c.fields) for c in members}) == 1):
            out[base] = len(members)
    return out


def _without_conjunct(guard: Expr | None, conjunct: Expr | None) -> Expr | None:
    """Return ``guard`` without the trailing ``&& conjunct`` the Promela front-end adds
    for a ``provided`` clause (``guard`` itself if it has no such conjunct)."""
    if conjunct is None or guard is None:
        return guard
    if guard == conjunct:
        return None
    if isinstance(guard, Binary) and guard.op == "&&" and guard.right == conjunct:
        return guard.left
    return guard


def _outgoing(process: Process, lid: int) -> list[tuple[int, Edge]]:
    return [(i, e) for i, e in enumerate(process.edges) if e.source == lid]


def _all_stmts(stmts: tuple[Stmt, ...]) -> list[Stmt]:
    from bridge.ir.expr import If, While

    out: list[Stmt] = []
    work = [stmts]
    while work:
        for s in work.pop():
            out.append(s)
            if isinstance(s, If):
                work.extend(b for _, b in s.branches)
                work.append(s.otherwise)
            elif isinstance(s, While):
                work.append(s.body)
    return out


# ---------------------------------------------------------------------------------
# Explicit-pc style


@dataclass
class _Part:
    """One instance's share of an option: its edge, condition conjuncts and body."""

    instance: int
    edge_index: int
    edge: Edge
    conds: list[str]
    body: list[str]


@dataclass
class _Option:
    parts: list[_Part]
    event: str | None
    dynamic_event: bool
    action: str = ""
    cond: str = ""
    raw: str = ""
    body: list[str] = field(default_factory=list)


class _Explicit:
    def __init__(
        self,
        system: TransitionSystem,
        properties: Sequence[Property],
        encoding: str,
        fairness: Fairness,
        annotations: tuple[tuple[FairnessMark, str], ...],
        ltl_blocks: bool,
        graph: ExplicitGraph | None = None,
        strong_global_form: str = "per-step",
    ) -> None:
        self.system = system
        self.graph = graph
        self.strong_global_form = strong_global_form
        self.sweep_vars: list[str] = []
        self.properties = properties
        self.encoding = encoding
        self.fairness = fairness
        self.annotations = annotations
        self.ltl_blocks = ltl_blocks
        self.infos: list[LineInfo] = []
        self.notes: list[str] = []
        self.globals_: dict[str, Type] = {v.name: v.type for v in system.globals}
        self.channels = {c.name: i + 1 for i, c in enumerate(system.channels)}
        self.locals_: dict[tuple[int, str], Type] = {}
        self.blocks: dict[str, Type] = {}
        self.event_mode = (
            system.language is not SourceLanguage.PROMELA
            and any(e.event is not None for p in system.processes for e in p.edges)
            or system.language is SourceLanguage.CSP
        )
        # Instances: the static ones, then one slot per run statement (slots.py).
        extra, self.slots = plan_slots(system)
        self.instances: list[Instance] = [*system.instances, *extra]
        self.static_count = len(system.instances)
        # Promela instances die (a step of their own, youngest first; as the native
        # engine and SPIN): their pc then holds none_pc, as before a slot's run.
        self.mortal = system.language is SourceLanguage.PROMELA
        self.excl: int | None = None  # "no holder" value of excl, when it is declared
        for i, inst in enumerate(self.instances):
            process = system.process(inst.process)
            for v in process.locals:
                self.locals_[(i, v.name)] = v.type
            if process.channels:
                raise UnsupportedError.at(
                    process.channels[0].span,
                    f"process-local channel '{process.channels[0].name}' (explicit-pc style)",
                )
        self._check_supported()

    def tag(self, info: LineInfo) -> str:
        self.infos.append(info)
        return f"/*@{len(self.infos) - 1}*/"

    # -- names --------------------------------------------------------------------
    def local_name(self, i: int, name: str) -> str:
        return f"i{i}_{sanitize(name)}"

    def pc(self, i: int) -> str:
        return f"pc_{i}"

    def _instances_of(self, proctype: str) -> list[int]:
        return [i for i, inst in enumerate(self.instances) if inst.process == proctype]

    def label(self, i: int) -> str:
        """Return the display name of instance ``i`` (static or slot)."""
        return self.instances[i].name or f"{self.instances[i].process}({i})"

    def none_pc(self, i: int) -> int:
        """Return the pc value of instance ``i`` while it is not alive (not yet started
        by its run, or dead): one more than its largest location id."""
        process = self.system.process(self.instances[i].process)
        return 1 + max([loc.id for loc in process.locations] + [0])

    def alive(self, i: int) -> str:
        return f"({self.pc(i)} != {self.none_pc(i)})"

    def pid_text(self, i: int) -> str:
        """Return the pid of instance ``i`` while it lives: the number of live instances
        created before it (live pids are 0..n-1 in creation order; slots.py)."""
        if i < self.static_count or not self.mortal:
            return str(i)
        terms = [self.alive(j) for j in range(i)]
        return "(" + " + ".join(terms) + ")" if terms else "0"

    def scope(self, i: int | None, where: str) -> Scope:
        system = self.system

        def local(name: str) -> str:
            assert i is not None
            return self.local_name(i, name)

        def local_type(name: str) -> Type | None:
            return self.locals_.get((i, name)) if i is not None else None

        def builtin(b: Builtin) -> str:
            if b.name == "_pid" and i is not None:
                return self.pid_text(i)
            if b.name == "timeout":
                return "timeout"
            if b.name == "_nr_pr":
                terms = [self.alive(k) if self.mortal else f"({self._not_terminated(k)})"
                         for k in range(len(self.instances))]
                return "(" + " + ".join(terms) + ")" if terms else "0"
            raise UnsupportedError.at(b.span, f"'{b.name}' in the explicit-pc style")

        def remote_label(e: RemoteLabel) -> str:
            candidates = self._remote_instances(e.proctype, e.pid, e.span, writer)
            terms = []
            for k, cond in candidates:
                process = system.process(self.instances[k].process)
                locs = [loc.id for loc in process.locations if e.label in loc.labels]
                at = " || ".join(f"({self.pc(k)} == {lid})" for lid in locs) or "0"
                terms.append(f"({cond} && ({at}))" if cond != "1" else f"({at})")
            return "(" + " || ".join(terms) + ")" if terms else "0"

        def remote_var(e: RemoteVar, render: Callable[[Expr], str]) -> str:
            candidates = self._remote_instances(e.proctype, e.pid, e.span, writer)
            if len(candidates) == 1 and candidates[0][1] == "1":
                return self.local_name(candidates[0][0], e.name)
            # The candidates' conditions exclude each other (one pid): a sum of products
            # selects the one that holds (0 when none runs, as pan reads it), and unlike
            # (c -> a : b) it is accepted inside SPIN's ltl formulas too.
            return "(" + " + ".join(f"(({cond}) * ({self.local_name(k, e.name)}))"
                                    for k, cond in candidates) + ")"

        scope = Scope(
            self.globals_,
            self.channels,
            local=local if i is not None else None,
            local_type=local_type,
            builtin=builtin,
            remote_label=remote_label,
            remote_var=remote_var,
            where=where,
            run=(lambda r: self._run_text(r, i)) if i is not None else None,
        )
        scope.block = {b: "b_" + sanitize(b) for b in self.blocks}
        scope.block_types = dict(self.blocks)
        writer = ExprWriter(scope)
        return scope

    def _remote_instances(
        self, proctype: str, pid: Expr | None, span: Span | None, writer: ExprWriter
    ) -> list[tuple[int, str]]:
        ids = self._instances_of(proctype)
        if not ids:
            raise UnsupportedError.at(span, f"no instance of process '{proctype}'")
        if pid is None:
            if len(ids) != 1:
                raise UnsupportedError.at(span, f"'{proctype}' has several instances: give a pid")
            return [(ids[0], "1")]
        value = fold(pid)
        if not self.slots:
            if value is not None:
                if value not in ids:
                    raise UnsupportedError.at(
                        span, f"pid {value} is not an instance of '{proctype}'")
                return [(value, "1")]
            pid_text = writer.expr(pid)
            return [(k, f"({pid_text} == {k})") for k in ids]
        # With runs, a pid names whichever live instance has it now.
        pid_text = str(value) if value is not None else writer.expr(pid)
        return [(k, f"({self.alive(k)} && (({pid_text}) == {self.pid_text(k)}))") for k in ids]

    def _run_text(self, run: Run, creator: int) -> list[str]:
        """Return the statements that start the slot of ``run`` (slots.py): its pid to
        the run's target, its parameters and initialised locals, then its pc."""
        slot = self.slots.get(id(run))
        if slot is None or slot.creator != creator:
            raise UnsupportedError.at(run.span, f"'run {run.proctype}' has no instance slot")
        k = slot.instance
        process = self.system.process(run.proctype)
        if len(run.args) != len(process.parameters):
            raise UnsupportedError.at(
                run.span, f"'run {run.proctype}' with {len(run.args)} arguments for "
                f"{len(process.parameters)} parameters")
        mine = ExprWriter(self.scope(creator, f"instance {self.label(creator)}"))
        theirs = ExprWriter(self.scope(k, f"instance {self.label(k)}"))
        lines: list[str] = []
        if run.target is not None:
            lines.append(f"{mine.expr(run.target)} = {self.pid_text(k)}")
        lines += [f"{self.local_name(k, p)} = {mine.expr(a)}"
                  for p, a in zip(process.parameters, run.args, strict=True)]
        for v in process.locals:
            if v.name in process.parameters or v.init is None:
                continue
            if isinstance(v.init, tuple) or isinstance(v.type, ArrayType):
                continue  # declared with its (constant) initial value
            lines.append(f"{self.local_name(k, v.name)} = {theirs.expr(v.init)}")
        lines.append(f"{self.pc(k)} = {process.initial}")
        return lines

    def _not_terminated(self, k: int) -> str:
        process = self.system.process(self.instances[k].process)
        term = [loc.id for loc in process.locations if loc.terminal]
        if not term:
            return "1"
        return " && ".join(f"({self.pc(k)} != {t})" for t in term)

    # -- checks ---------------------------------------------------------------------
    def _check_supported(self) -> None:
        what = None
        if self.system.priority_scheduling:
            what = "process priorities"
        for process in self.system.processes:
            if process.channel_assertions and what is None:
                what = f"the channel assertion '{process.channel_assertions[0].kind}'"
            # A structural search of the frozen IR (its repr shows every node).
            if "Enabled(pid=" in repr(process.edges) and what is None:
                what = "enabled()"
        if what is not None:
            raise UnsupportedError.at(
                self.system.processes[0].span if self.system.processes else None,
                f"{what} (explicit-pc style: the fairness encodings schedule every step "
                "themselves); use the structured style (plain encoding)")
        for process in self.system.processes:
            for e in process.edges:
                for lv in block_locals(e.effect):
                    self.blocks.setdefault(lv.name, lv.type)

    # -- options --------------------------------------------------------------------
    def _event_name(self, i: int, e: Edge) -> tuple[str | None, bool]:
        if e.event is None:
            return None, False
        env = self._params(i)
        values = [fold(c, env) for c in e.event.components]
        if any(v is None for v in values):
            return e.event.base, True
        return ".".join([e.event.base, *(str(v) for v in values)]), False

    def _params(self, i: int) -> dict[str, int]:
        inst = self.instances[i]
        process = self.system.process(inst.process)
        assigned = {
            s.target.name
            for ed in process.edges
            for s in _all_stmts(ed.effect)
            if hasattr(s, "target") and isinstance(getattr(s, "target", None), Var)
        }
        env: dict[str, int] = {}
        for p, arg in zip(process.parameters, inst.arguments, strict=False):
            v = fold(arg)
            if v is not None and p not in assigned:
                env[p] = v
        return env

    def _channel_of(self, comm: Send | Receive) -> tuple[str, int] | None:
        ch = comm.channel
        if isinstance(ch, Var) and ch.scope == "global" and ch.name in self.channels:
            return ch.name, self.system.channels[self.channels[ch.name] - 1].capacity
        return None

    def _part(self, i: int, index: int, e: Edge, writer: ExprWriter, with_comm: bool) -> _Part:
        conds = [f"({self.pc(i)} == {e.source})"]
        if e.guard is not None and not isinstance(e.guard, ElseGuard):
            conds.append(f"({writer.expr(e.guard)})")
        body: list[str] = []
        if e.comm is not None and with_comm:
            ch = writer.expr(e.comm.channel)
            if isinstance(e.comm, Send):
                conds.append(f"nfull({ch})")
            else:
                mark = "??" if e.comm.random else "?"
                conds.append(f"{ch}{mark}[{writer.recv_args(e.comm.args, poll=True)}]")
            body += writer.stmt(e.comm)
        return _Part(i, index, e, conds, body)

    def _finish(self, part: _Part, writer: ExprWriter) -> list[str]:
        body = list(part.body)
        body += [line for s in part.edge.effect for line in writer.stmt(s)]
        if part.edge.target != part.edge.source:
            body.append(f"{self.pc(part.instance)} = {part.edge.target}")
        return body

    def _options(self) -> list[_Option]:
        system = self.system
        writers = [
            ExprWriter(self.scope(i, f"instance {self.label(i)}"))
            for i in range(len(self.instances))
        ]
        local: list[_Option] = []
        by_event: dict[str, list[_Part]] = {}
        sends: dict[str, list[_Part]] = {}
        receives: dict[str, list[_Part]] = {}
        dynamic: dict[int, bool] = {}
        for i, inst in enumerate(self.instances):
            process = system.process(inst.process)
            if self.mortal:
                local += self._deaths(i, process, writers[i])
            for index, e in enumerate(process.edges):
                name, is_dynamic = self._event_name(i, e)
                rendezvous = None
                if e.comm is not None:
                    found = self._channel_of(e.comm)
                    if found is None:
                        raise UnsupportedError.at(
                            e.comm.span or e.span,
                            "a channel operation on a channel variable (explicit-pc style)",
                        )
                    if found[1] == 0:
                        rendezvous = found[0]
                part = self._part(i, index, e, writers[i], rendezvous is None)
                if rendezvous is not None:
                    comm = e.comm
                    if isinstance(comm, Receive) and (comm.random or comm.peek):
                        raise UnsupportedError.at(comm.span, "?? or ?<> on a rendezvous channel")
                    (sends if isinstance(comm, Send) else receives).setdefault(
                        rendezvous, []
                    ).append(part)
                    dynamic[id(part)] = is_dynamic
                elif name is not None and not is_dynamic:
                    by_event.setdefault(name, []).append(part)
                else:
                    if is_dynamic and self._barrier_base(e.event.base if e.event else ""):
                        raise UnsupportedError.at(
                            e.span,
                            f"event '{e.event.base}' has state-dependent components and "
                            "may synchronise: it cannot be matched statically",
                        )
                    local.append(_Option([part], name, is_dynamic))
        options = list(local)
        for name in sorted(by_event):
            for combo in self._combos(system.composition, name, by_event[name]):
                options.append(_Option(list(combo), name, False))
        for ch in sorted(set(sends) | set(receives)):
            for s in sends.get(ch, []):
                for r in receives.get(ch, []):
                    if s.instance == r.instance:
                        continue
                    options.append(self._pair(s, r, writers, dynamic))
        self._hide(options)
        options.sort(key=lambda o: [(p.instance, p.edge_index) for p in o.parts])
        for o in options:
            if not o.body:
                body: list[str] = []
                for p in o.parts:
                    body += self._finish(p, writers[p.instance])
                o.body = body
        return options

    def _csp_atomicity(self, options: list[_Option], defines: list[str]) -> None:
        """Set every option's condition: an instance at an atomic location with an
        enabled option excludes every other instance (the IR/CSP# rule of
        semantics/statespace.py)."""
        exclusive: dict[int, str] = {}
        for i, inst in enumerate(self.instances):
            process = self.system.process(inst.process)
            atomic = {loc.id for loc in process.locations if loc.atomic}
            mine = [o.raw for o in options
                    if any(p.instance == i and p.edge.source in atomic for p in o.parts)]
            if mine:
                exclusive[i] = " || ".join(f"({m})" for m in mine)
        for i in sorted(exclusive):
            defines.append(f"#define ax_{i} ({exclusive[i]})")
        for o in options:
            others = [
                f"!ax_{i}" for i in sorted(exclusive) if all(p.instance != i for p in o.parts)
            ]
            o.cond = " && ".join([f"({o.raw})", *others]) if others else o.raw

    def _promela_atomicity(
        self, options: list[_Option], holders: list[int], defines: list[str]
    ) -> None:
        """Set every option's condition and exclusivity bookkeeping with Promela's rule,
        as the native engine (semantics/state.py, promela-spin.md section 5): the
        global ``excl`` holds the instance whose last step left it inside an atomic
        sequence (else ``none``); while that instance has an enabled option, only its
        options run; once it is blocked anyone may move, and it regains control only by
        moving itself. A rendezvous inside atomic passes control to the receiver."""
        none = len(self.instances)
        for i in holders:
            mine = [o.raw for o in options if any(p.instance == i for p in o.parts)]
            defines.append(f"#define ax_{i} ({' || '.join(f'({m})' for m in mine) or '0'})")
        defines.append("#define hx (" + " || ".join(
            f"((excl == {i}) && ax_{i})" for i in holders) + ")")
        for o in options:
            mine = [f"(excl == {p.instance})" for p in o.parts if p.instance in holders]
            o.cond = f"({o.raw}) && (!hx{''.join(' || ' + m for m in mine)})"
            holder = none
            for p in o.parts:  # sender first, then receiver: the last atomic one wins
                process = self.system.process(self.instances[p.instance].process)
                target = next((x for x in process.locations if x.id == p.edge.target), None)
                if target is not None and target.atomic:
                    holder = p.instance
            o.body.append(f"excl = {holder}")
        self.excl = none

    def _deaths(self, i: int, process: Process, writer: ExprWriter) -> list[_Option]:
        """Return the options in which instance ``i`` dies: from a terminal location,
        while every younger instance is not alive and its provided clause holds (the
        native engine's death step, SPIN's ``-end-``)."""
        out: list[_Option] = []
        younger = [f"({self.pc(j)} == {self.none_pc(j)})" for j in range(i + 1, len(self.instances))]
        provided = [f"({writer.expr(process.provided)})"] if process.provided is not None else []
        for loc in process.locations:
            if not loc.terminal:
                continue
            edge = Edge(loc.id, self.none_pc(i), text="-end-", span=process.span)
            part = _Part(i, -1, edge, [f"({self.pc(i)} == {loc.id})", *younger, *provided], [])
            out.append(_Option([part], None, False))
        return out

    def _pair(self, s: _Part, r: _Part, writers: list[ExprWriter], dynamic: dict) -> _Option:
        send, recv = s.edge.comm, r.edge.comm
        assert isinstance(send, Send) and isinstance(recv, Receive)
        if len(send.args) != len(recv.args):
            raise UnsupportedError.at(recv.span, "send and receive differ in the number of fields")
        values = [writers[s.instance].expr(a) for a in send.args]
        conds = s.conds + r.conds
        binds: list[str] = []
        for k, (value, arg) in enumerate(zip(values, recv.args, strict=True)):
            if isinstance(arg, RecvMatch):
                conds.append(f"({value} == {writers[r.instance].expr(arg.value)})")
            elif isinstance(arg, RecvBind) and arg.target is not None:
                target = writers[r.instance].expr(arg.target)
                if any(target in later for later in values[k + 1 :]):
                    raise UnsupportedError.at(
                        recv.span, "a receive target also read by a later field of the send"
                    )
                binds.append(f"{target} = {value}")
                binds += writers[r.instance].check_after(arg.target)
        body = binds + self._finish(s, writers[s.instance]) + self._finish(r, writers[r.instance])
        ev_s, dyn_s = self._event_name(s.instance, s.edge)
        ev_r, dyn_r = self._event_name(r.instance, r.edge)
        event, dyn = (ev_s, dyn_s) if ev_s is not None else (ev_r, dyn_r)
        option = _Option([s, r], event, dyn)
        option.body = body
        s2 = _Part(s.instance, s.edge_index, s.edge, conds, [])
        option.parts = [s2, r]
        return option

    def _hide(self, options: list[_Option]) -> None:
        """Relabel as tau every option whose event is hidden by a ``Parallel`` node
        (``ir.Parallel.hidden``) that contains all of its instances (a barrier on a
        hidden event is joined at or below that node; a free step is its instance's)."""
        scopes: list[tuple[frozenset[str], frozenset[int]]] = []
        stack: list[Composition] = [self.system.composition] if self.system.composition else []
        while stack:
            node = stack.pop()
            if isinstance(node, InstanceRef):
                continue
            if isinstance(node, Parallel) and node.hidden:
                scopes.append((node.hidden, _instances_under(node)))
            stack.extend(node.children)
        if not scopes:
            return
        for o in options:
            if o.event is None:
                continue
            inside = {p.instance for p in o.parts}
            for hidden, members in scopes:
                if not inside <= members:
                    continue
                if o.dynamic_event and any(
                        n.split(".", 1)[0] == o.event.split(".", 1)[0] for n in hidden):
                    raise UnsupportedError.at(
                        o.parts[0].edge.span, "unsupported construct: hiding an event "
                        "whose components depend on the state")
                if not o.dynamic_event and o.event in hidden:
                    o.event = None
                    break

    def _barrier_base(self, base: str) -> bool:
        for alphabet in self._alphabets():
            for name in alphabet:
                if name == base or name.startswith(base + "."):
                    return True
        return False

    def _alphabets(self) -> list[frozenset[str]]:
        out: list[frozenset[str]] = []
        stack: list[Composition] = [self.system.composition] if self.system.composition else []
        while stack:
            node = stack.pop()
            if isinstance(node, Parallel):
                out.extend(node.alphabets)
                stack.extend(node.children)
            elif isinstance(node, Interleave):
                stack.extend(node.children)
        return out

    def _combos(
        self, node: Composition | None, event: str, parts: list[_Part]
    ) -> list[tuple[_Part, ...]]:
        """Return every way ``event`` can happen below ``node``: an interleaving offers any
        child's way; a Parallel node whose alphabets share ``event`` needs one way of
        every child that has it in its alphabet (the barrier), the others interleave.
        Recursive over the composition tree (its depth is the nesting of operators)."""
        if node is None:
            return [(p,) for p in parts]
        if isinstance(node, InstanceRef):
            return [(p,) for p in parts if p.instance == node.instance]
        if isinstance(node, Interleave):
            return [c for child in node.children for c in self._combos(child, event, parts)]
        having = [k for k, a in enumerate(node.alphabets) if event in a]
        if len(having) < 2:
            return [c for child in node.children for c in self._combos(child, event, parts)]
        product: list[tuple[_Part, ...]] = [()]
        for k in having:
            ways = self._combos(node.children[k], event, parts)
            product = [done + way for done in product for way in ways]
        others = [
            c
            for k, child in enumerate(node.children)
            if k not in having
            for c in self._combos(child, event, parts)
        ]
        return product + others

    # -- emission ---------------------------------------------------------------------
    def emit(self) -> EmittedModel:
        system = self.system
        options = self._options()
        prop_events = [ev for p in self.properties for ev in _events_in(_ltl_property(p)[1])]
        premises_wanted = self.encoding == "premise" and (
            self.fairness is not Fairness.NONE or self.annotations
        )
        track = premises_wanted or bool(prop_events)
        reset = bool(prop_events)
        # Actions and their ids (sorted for determinism; 0 = idle, 1 = init).
        for o in options:
            if self.event_mode:
                o.action = (
                    o.event
                    if o.event is not None and not o.dynamic_event
                    else ("tau:" + "+".join(f"{p.instance}.{p.edge_index}" for p in o.parts))
                )
            else:
                p = o.parts[0]
                o.action = f"{self.label(p.instance)}:{'end' if p.edge_index < 0 else p.edge_index}"
            if track and o.dynamic_event and o.event is not None:
                raise UnsupportedError.at(
                    o.parts[0].edge.span,
                    f"event '{o.event}' has state-dependent components: no static id for 'last'",
                )
        actions = sorted({o.action for o in options})
        action_id = {a: k + 2 for k, a in enumerate(actions)}
        # Conditions: else guards, then atomic exclusivity.
        for o in options:
            o.raw = " && ".join(c for p in o.parts for c in p.conds)
        for o in options:
            for p in o.parts:
                if isinstance(p.edge.guard, ElseGuard):
                    siblings = [
                        q.raw
                        for q in options
                        if q is not o
                        and any(
                            pp.instance == p.instance and pp.edge.source == p.edge.source
                            for pp in q.parts
                        )
                    ]
                    if siblings:
                        o.raw += " && !(" + " || ".join(f"({s})" for s in siblings) + ")"
        defines: list[str] = []
        holders = [i for i, inst in enumerate(self.instances)
                   if any(loc.atomic for loc in system.process(inst.process).locations)]
        if self.mortal and holders:
            self._promela_atomicity(options, holders, defines)
        else:
            self._csp_atomicity(options, defines)
        # Bookkeeping assignments.
        process_bits = self.encoding == "premise" and self.fairness in (
            Fairness.PROCESS_WEAK,
            Fairness.PROCESS_STRONG,
        )
        for o in options:
            if track:
                o.body.append(f"last = {action_id[o.action]}")
            if process_bits:
                moved = {p.instance for p in o.parts}
                o.body += [f"mv_{i} = {int(i in moved)}" for i in range(len(self.instances))]
            o.body += [
                f"b_{sanitize(b)} = 0"
                for b in sorted(self.blocks)
                if any(lv.name == b for p in o.parts for lv in block_locals(p.edge.effect))
            ]
        if reset and any(
            isinstance(x, Builtin) and x.name == "timeout"
            for o in options
            for p in o.parts
            for x in (iter_subexpressions(p.edge.guard) if p.edge.guard else [])
        ):
            raise UnsupportedError.at(None, "'timeout' in a model whose property has event atoms")
        # Properties and premises.
        premise_pairs: list[tuple[str, str]] = []
        if premises_wanted:
            premise_pairs = self._premises(options, actions, action_id, defines)
        atoms: dict[str, str] = {}
        prop_writer = ExprWriter(self.scope(None, "ltl formula"))

        def atom(a: LtlState | LtlEvent) -> str:
            if isinstance(a, LtlEvent):
                if a.name == INIT_EVENT:
                    text = f"(last == {_INIT_ID})"
                else:
                    ids = [action_id[o.action] for o in options if o.event == a.name]
                    ids = sorted(set(ids))
                    text = "(" + " || ".join(f"(last == {k})" for k in ids) + ")" if ids else "0"
            else:
                text = f"({prop_writer.expr(a.expr)})"
            if text not in atoms:
                name = atoms[text] = f"p_{len(atoms)}"
                if self.excl is None:
                    defines.append(f"#define {name} {text}")
                else:
                    # SPIN's claim does not step inside an atomic sequence while its
                    # holder can move (hx), but this scheduler's claim steps after every
                    # d_step: there the atom keeps the value it had in the last state
                    # the claim would read (s_ is set at the start of every step taken
                    # from such a state), so the claim reads that state again: a
                    # stutter, invisible to LTL without X.
                    # (no `c -> a : b`: SPIN's ltl parser reads `->` as implication)
                    defines.append(f"#define {name} ((hx && s_{name}) || (!hx && {text}))")
                    shadows.append((name, text))
            return atoms[text]

        shadows: list[tuple[str, str]] = []
        props = _emit_properties(self.properties, _Formulas(atom), premise_pairs)
        if shadows:
            capture = [f"s_{name} = (hx -> s_{name} : {text})"
                       for name, text in shadows]
            for o in options:
                o.body[:0] = capture
        # Declarations.
        gwriter = ExprWriter(self.scope(None, "global declarations"))
        globals_ = []
        for v in system.globals:
            declared = declare_type(v.type, v.span)
            globals_.append(
                declaration(
                    global_name(v.name), declared, _init_text(v.init, declared, gwriter), v.hidden
                )
            )
        channels = [
            f"chan {global_name(c.name)} = [{c.capacity}] of "
            f"{{ {', '.join(_field_type(t, c.span) for t in c.fields)} }}"
            for c in system.channels
        ]
        instance_vars: list[str] = []
        for i, inst in enumerate(self.instances):
            process = system.process(inst.process)
            w = ExprWriter(self.scope(i, f"instance {self.label(i)}"))
            slot = i >= self.static_count  # started by a run: its values are set then
            start = self.none_pc(i) if slot else process.initial
            instance_vars.append(
                f"{'byte' if self.none_pc(i) < 256 else 'short'} {self.pc(i)} = {start}"
            )
            param_env = {p: a for p, a in zip(process.parameters, inst.arguments, strict=False)}
            if slot:
                param_env = {}
            local_names = {v.name for v in process.locals}
            for p in process.parameters:
                if p in local_names:
                    continue
                arg = param_env.get(p)
                value = fold(arg) if arg is not None else 0
                if value is None:
                    raise UnsupportedError.at(inst.span, f"argument for '{p}' is not a constant")
                instance_vars.append(f"int {self.local_name(i, p)} = {value}")
            for v in process.locals:
                declared = declare_type(v.type, v.span)
                init = v.init
                if v.name in param_env and init is None:
                    init = param_env[v.name]
                init_text = _init_text(init, declared, w)
                if init_text is not None and any(c.isalpha() for c in init_text.replace("{", "")):
                    folded = _fold_init(init, self._params(i))
                    # (a slot's scalar local is set by its run: _run_text)
                    if folded is None and not (slot and not isinstance(init, tuple)):
                        raise UnsupportedError.at(
                            v.span, f"initial value of local '{v.name}' is not a constant"
                        )
                    init_text = folded
                if slot and v.name in process.parameters:
                    init_text = None
                instance_vars.append(
                    declaration(self.local_name(i, v.name), declared, init_text, v.hidden)
                )
        if self.excl is not None:
            instance_vars.append(f"byte excl = {self.excl}")
            instance_vars += [f"bit s_{name}" for name, _text in shadows]
        for b, t in sorted(self.blocks.items()):
            instance_vars.append(declaration("b_" + sanitize(b), declare_type(t), None, True))
        if track:
            instance_vars.append(
                f"byte last = {_INIT_ID}" if len(actions) < 250 else f"short last = {_INIT_ID}"
            )
        if self.graph is not None and premises_wanted:
            instance_vars.append("byte stp = 0")
            instance_vars += self.sweep_vars
        if process_bits:
            instance_vars += [f"bit mv_{i}" for i in range(len(self.instances))]
        # Option texts with line tags.
        all_end = " && ".join(self._at_end(i) for i in range(len(self.instances))) or "1"
        rendered = []
        for o in options:
            first = o.parts[0]
            info = LineInfo(
                first.edge.span,
                o.event if not o.dynamic_event else None,
                " | ".join(p.edge.text for p in o.parts if p.edge.text) or o.action,
                True,
            )
            rendered.append(
                {
                    "action": o.action,
                    "text": f"d_step {{ ({o.cond}) -> {'; '.join(o.body) or 'skip'} }} {self.tag(info)}",
                }
            )
        groups: list[dict] = []
        if self.encoding == "action-process":
            for a in actions:
                groups.append(
                    {
                        "name": "a_" + sanitize(a)[:40] + f"_{action_id[a]}",
                        "action": a,
                        "options": [r["text"] for r in rendered if r["action"] == a],
                    }
                )
            if any(a.startswith("tau:") for a in actions):
                self.notes.append(
                    "action-process: each tau edge is its own process, so pan -f makes tau "
                    "steps weakly fair too (the native engine does not)"
                )
            self.notes.append(
                "pan -f may miss acceptance cycles made only of stuttering in a deadlocked "
                "state (SPIN issue #38; promela-spin.md section 13)"
            )
        processes = len(groups) + (1 if reset and self.encoding == "action-process" else 0)
        if self.encoding != "action-process":
            processes = 1
        if processes > SPIN_MAX_PROCESSES:
            raise UnsupportedError.at(
                None, f"the action-process encoding needs {processes} processes (one per "
                f"action); SPIN runs at most {SPIN_MAX_PROCESSES}")
        text, mapping = render_template(
            "promela_explicit.pml.j2",
            self.infos,
            model=system.name,
            source=", ".join(system.source_files),
            encoding=self.encoding,
            fairness=self.fairness.value,
            actions=[(action_id[a], a) for a in actions],
            globals=globals_,
            channels=channels,
            instance_vars=instance_vars,
            defines=defines,
            scheduler=[r["text"] for r in rendered] if self.encoding != "action-process" else [],
            groups=groups,
            reset=reset,
            all_end=all_end,
            ltl=[(p.ltl_name, p.spin_formula) for p in props if p.ltl_name and p.check == "ltl"]
            if self.ltl_blocks
            else [],
        )
        instances = (
            {0: "scheduler"}
            if self.encoding != "action-process"
            else {k: g["action"] for k, g in enumerate(groups)}
        )
        hidden = frozenset(
            {
                "last",
                "excl",
                "stp",
                "wr",
                *(f"sw_{b}" for b in range(len(self.sweep_vars))),
                *(f"mv_{i}" for i in range(len(self.instances))),
            }
        )
        return EmittedModel(
            text,
            SourceMap(mapping, instances, hidden),
            self.encoding,
            "explicit-pc",
            self.fairness,
            tuple(props),
            tuple(actions),
            processes,
            tuple(self.notes),
        )

    def _at_end(self, i: int) -> str:
        process = self.system.process(self.instances[i].process)
        ends = [loc.id for loc in process.locations if loc.end or loc.terminal]
        if self.mortal:
            ends.append(self.none_pc(i))  # dead, or never started
        if not ends:
            return "0"
        return "(" + " || ".join(f"({self.pc(i)} == {e})" for e in ends) + ")"

    def _premises(
        self,
        options: list[_Option],
        actions: list[str],
        action_id: Mapping[str, int],
        defines: list[str],
    ) -> list[tuple[str, str]]:
        """Return the premise conjuncts (Promela text, Spot text); add their defines."""
        pairs: list[tuple[str, str]] = []

        def enabled(pred: Callable[[_Option], bool]) -> str:
            conds = [f"({o.cond})" for o in options if pred(o)]
            return " || ".join(conds) if conds else "0"

        def conjunct(k: str, kind: str, en: str, ex: str) -> None:
            defines.append(f"#define en_{k} ({en})")
            defines.append(f"#define ex_{k} ({ex})")
            if kind == "weak":
                pairs.append((f"((<>[] en_{k}) -> ([]<> ex_{k}))", f"((FG en_{k}) -> (GF ex_{k}))"))
            elif kind == "strong":
                pairs.append((f"(([]<> en_{k}) -> ([]<> ex_{k}))", f"((GF en_{k}) -> (GF ex_{k}))"))
            else:  # unconditional (annotation f)
                pairs.append((f"([]<> ex_{k})", f"(GF ex_{k})"))

        if self.fairness in (Fairness.WEAK, Fairness.STRONG_LOCAL):
            kind = "weak" if self.fairness is Fairness.WEAK else "strong"
            for a in actions:
                if a.startswith("tau:"):
                    continue  # tau steps are never constrained (Step.tau; fairness/conditions)
                k = str(action_id[a])
                conjunct(k, kind, enabled(lambda o, a=a: o.action == a), f"last == {k}")
        elif self.fairness is Fairness.STRONG_GLOBAL:
            pairs += self._strong_global_premises(options, defines)
        elif self.fairness in (Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG):
            kind = "weak" if self.fairness is Fairness.PROCESS_WEAK else "strong"
            for i in range(len(self.instances)):
                en = enabled(lambda o, i=i: any(p.instance == i for p in o.parts))
                conjunct(f"i{i}", kind, en, f"mv_{i} == 1")
        for mark, event in self.annotations:
            ids = sorted({action_id[o.action] for o in options if o.event == event})
            if not ids:
                raise UnsupportedError.at(None, f"annotated event '{event}' occurs on no edge")
            k = "n" + sanitize(event)
            en = enabled(lambda o, event=event: o.event == event)
            ex = " || ".join(f"(last == {x})" for x in ids)
            if mark in (FairnessMark.WF, FairnessMark.WL):
                conjunct(k, "weak", en, ex)
            elif mark in (FairnessMark.SF, FairnessMark.SL):
                conjunct(k, "strong", en, ex)
            else:
                conjunct(k, "always", en, ex)
        return pairs


    # -- strong global fairness (paper 000 Def. 4) -------------------------------------
    def _state_predicate(self, state: ExplicitState) -> str:
        """Return the Promela condition that holds exactly in ``state`` (its valuation)."""
        system = self.system
        if len(state.locations) != len(system.instances):
            raise UnsupportedError.at(
                None, "explicit graph: a state does not give one location per instance"
            )
        terms = [f"({self.pc(i)} == {loc})" for i, loc in enumerate(state.locations)]

        def values(name: str, t: Type | None, emitted: str, vs: tuple[int, ...]) -> None:
            if t is None:
                raise UnsupportedError.at(
                    None, f"explicit graph: '{name}' is no variable of the emitted model"
                )
            if isinstance(t, ArrayType):
                if isinstance(t.element, ArrayType) or len(vs) != t.length:
                    raise UnsupportedError.at(
                        None, f"explicit graph: array '{name}' (only one-dimensional arrays)"
                    )
                terms.extend(f"({emitted}[{k}] == {v})" for k, v in enumerate(vs))
            elif len(vs) == 1:
                terms.append(f"({emitted} == {vs[0]})")
            else:
                raise UnsupportedError.at(None, f"explicit graph: '{name}' is not a scalar")

        for name, vs in state.globals:
            values(name, self.globals_.get(name), global_name(name), vs)
        for i, locals_ in enumerate(state.locals):
            params = set(system.process(system.instances[i].process).parameters)
            for name, vs in locals_:
                t = self.locals_.get((i, name)) or (IntType() if name in params else None)
                values(name, t, self.local_name(i, name), vs)
        return " && ".join(terms) if terms else "1"

    def _strong_global_premises(
        self, options: list[_Option], defines: list[str]
    ) -> list[tuple[str, str]]:
        """Return the strong global premise conjuncts (paper 000 Def. 4), one per source
        state: ``[]<> st_k -> ([]<> tk_j ...)`` over its steps ``j``; add ``st_k``/``tk_j``
        defines and make each option's d_step set ``stp`` to the step it takes."""
        graph = self.graph
        assert graph is not None
        if self.system.channels:
            raise UnsupportedError.at(
                self.system.channels[0].span,
                f"channel '{self.system.channels[0].name}': the strong global premise "
                "identifies states by their variables and locations only",
            )
        by_edges = {
            tuple(sorted((p.instance, p.edge_index) for p in o.parts)): o for o in options
        }
        seen: dict[tuple[int, tuple[tuple[int, int], ...]], int] = {}
        chains: dict[int, list[tuple[int, int]]] = {}
        per_source: dict[int, list[int]] = {}
        for j, step in enumerate(graph.steps, start=1):
            key = tuple(sorted(step.edges))
            option = by_edges.get(key)
            if option is None:
                raise UnsupportedError.at(
                    None, f"explicit graph: step {key} matches no option of the emitted model"
                )
            other = seen.setdefault((step.source, key), step.target)
            if other != step.target:
                raise UnsupportedError.at(
                    option.parts[0].edge.span,
                    f"option '{option.action}' is not deterministic in state {step.source} "
                    "(two targets): a step cannot be identified by its source and edges",
                )
            chains.setdefault(id(option), []).append((step.source, j))
            per_source.setdefault(step.source, []).append(j)
        used = sorted({k for k in per_source} | {k for c in chains.values() for k, _ in c})
        for k in used:
            if not 0 <= k < len(graph.states):
                raise UnsupportedError.at(None, f"explicit graph: no state {k}")
            defines.append(f"#define st_{k} ({self._state_predicate(graph.states[k])})")
        for o in options:
            text = "0"
            for k, j in reversed(chains.get(id(o), [])):
                text = f"(st_{k} -> {j} : {text})"
            o.body.insert(0, f"stp = {text}")
        for j in range(1, len(graph.steps) + 1):
            defines.append(f"#define tk_{j} (stp == {j})")
        if self.strong_global_form == "bottom-scc":
            return self._bottom_scc_premise(options, chains, per_source, defines)
        pairs: list[tuple[str, str]] = []
        for k in sorted(per_source):
            steps = per_source[k]
            spin_taken = " && ".join(f"([]<> tk_{j})" for j in steps)
            spot_taken = " & ".join(f"(GF tk_{j})" for j in steps)
            pairs.append((f"(([]<> st_{k}) -> ({spin_taken}))", f"((GF st_{k}) -> ({spot_taken}))"))
        return pairs

    def _bottom_scc_premise(
        self,
        options: list[_Option],
        chains: dict[int, list[tuple[int, int]]],
        per_source: dict[int, list[int]],
        defines: list[str],
    ) -> list[tuple[str, str]]:
        """Return the strong global premise as one disjunction over the bottom SCCs ``B``
        of the (complete) graph: ``<>[] in_B && []<> wr_B``, where ``wr_B`` marks a full
        sweep of the steps of ``B`` (a counter ``sw_B`` advances when the step at its
        position is taken; ``wr`` is set on the step that wraps it), ``<>[] in_B``
        alone for a deadlocked ``B``.

        Equivalent to the per-step conjunction on the runs of the graph: the states a
        strongly globally fair run visits infinitely often take every step infinitely
        often, so they are closed under steps and strongly connected, i.e. a bottom SCC,
        and every step of it is taken (so the counter wraps infinitely often);
        conversely such a run visits every source of ``B`` infinitely often and no state
        outside ``B`` (000 Def. 4; 001 Lemma 2). The counter is the degeneralization of
        ``[]<> tk_1 && ... && []<> tk_n`` done in the model: Spot's translation of that
        conjunction grows exponentially in n (1.3 s for n = 12, measured).
        """
        graph = self.graph
        assert graph is not None
        n = len(graph.states)
        succ: list[set[int]] = [set() for _ in range(n)]
        for step in graph.steps:
            succ[step.source].add(step.target)
        reach: list[set[int]] = []
        for k in range(n):
            seen = {k}
            stack = [k]
            while stack:
                u = stack.pop()
                for v in succ[u]:
                    if v not in seen:
                        seen.add(v)
                        stack.append(v)
            reach.append(seen)
        bottoms: list[list[int]] = []
        done: set[int] = set()
        for k in range(n):
            if k in done or not all(k in reach[t] for t in reach[k]):
                continue
            members = sorted(reach[k])
            done.update(members)
            bottoms.append(members)
        defined = {d.split()[1] for d in defines if d.startswith("#define st_")}
        spin_terms: list[str] = []
        spot_terms: list[str] = []
        sweeps: dict[int, tuple[int, list[int]]] = {}  # step -> (bottom, its steps)
        for b, members in enumerate(bottoms):
            for k in members:
                if f"st_{k}" not in defined:
                    defines.append(f"#define st_{k} ({self._state_predicate(graph.states[k])})")
            inside = " || ".join(f"st_{k}" for k in members)
            defines.append(f"#define in_b{b} ({inside})")
            steps = [j for k in members for j in per_source.get(k, [])]
            if not steps:
                spin_terms.append(f"(<>[] in_b{b})")
                spot_terms.append(f"(FG in_b{b})")
                continue
            self.sweep_vars.append(f"byte sw_{b} = 0")
            defines.append(f"#define wr_b{b} (wr == {b + 1})")
            for j in steps:
                sweeps[j] = (b, steps)
            spin_terms.append(f"((<>[] in_b{b}) && ([]<> wr_b{b}))")
            spot_terms.append(f"((FG in_b{b}) & (GF wr_b{b}))")
        if sweeps:
            self.sweep_vars.append("byte wr = 0")
        for o in options:
            if not sweeps:
                break
            updates = ["wr = 0"]
            taken = {j for _k, j in chains.get(id(o), []) if j in sweeps}
            for b in sorted({sweeps[j][0] for j in taken}):
                steps = next(st for bb, st in sweeps.values() if bb == b)
                last = len(steps) - 1
                if steps[last] in taken:
                    wrap = f"((sw_{b} == {last}) && (stp == {steps[last]}))"
                    updates.append(f"wr = ({wrap} -> {b + 1} : wr)")
                advance = f"sw_{b}"
                for p in reversed(range(len(steps))):
                    if steps[p] not in taken:
                        continue
                    nxt = (p + 1) % len(steps)
                    advance = f"(((sw_{b} == {p}) && (stp == {steps[p]})) -> {nxt} : {advance})"
                updates.append(f"sw_{b} = {advance}")
            o.body[1:1] = updates
        return [("(" + " || ".join(spin_terms) + ")", "(" + " | ".join(spot_terms) + ")")]


def _fold_init(init: Expr | tuple[Expr, ...] | None, env: Mapping[str, int]) -> str | None:
    if init is None:
        return None
    if isinstance(init, tuple):
        values = [fold(v, env) for v in init]
        if any(v is None for v in values):
            return None
        return "{" + ", ".join(str(v) for v in values) + "}"
    value = fold(init, env)
    return None if value is None else str(value)


def _instances_under(node: Composition) -> frozenset[int]:
    """Return the instance ids of the composition ``node``."""
    out: set[int] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, InstanceRef):
            out.add(n.instance)
        else:
            stack.extend(n.children)
    return frozenset(out)
