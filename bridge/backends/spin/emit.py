"""Emit Promela from the IR: ``emit_promela`` returns an ``EmittedModel`` (text + map).

DESIGN.md section 5; paper 000 section 1 (formula F1: fairness as premises); paper 003
section 3 (each action its own process, so that SPIN's process-level weak fairness,
``pan -a -f``, is event-level weak fairness). Two emission styles, each in a
module of its own (``structured.py``, ``explicit.py`` with ``premises.py`` for the
fairness premises; ``emitted.py`` holds what they share and return):

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

from collections.abc import Sequence

from bridge.backends.spin.emitted import (
    ENCODINGS,
    STRONG_GLOBAL_BOTTOM_SCC_MAX_STEPS,
    STRONG_GLOBAL_FORMS,
    STRONG_GLOBAL_MAX_STEPS,
    STYLES,
    EmittedModel,
    ExplicitGraph,
    events_in,
    formula_of,
)
from bridge.backends.spin.explicit import ExplicitEmitter
from bridge.backends.spin.structured import StructuredEmitter
from bridge.diagnostics import ConfigurationError, UnsupportedError
from bridge.ir.model import (
    Composition,
    FairnessMark,
    Interleave,
    Parallel,
    SourceLanguage,
    TransitionSystem,
)
from bridge.ir.property import (
    Fairness,
    Property,
    PropertyKind,
)

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
    ``ExplicitEmitter._bottom_scc_premise``).
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
        has_events = any(events_in(formula_of(p)) for p in properties)
        explicit = encoding != "plain" or has_events or _needs_explicit(system)
        style = "explicit-pc" if explicit else "structured"
    if style == "structured" and encoding != "plain":
        raise ConfigurationError(f"the {encoding} encoding needs the explicit-pc style")
    if style == "structured":
        return StructuredEmitter(system, properties, ltl_blocks).emit()
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
    return ExplicitEmitter(
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


