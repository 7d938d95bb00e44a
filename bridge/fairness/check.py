"""Check an LTL property of a transition system under fairness: ``check_ltl``.

The pipeline of DESIGN.md section 4: translate ``!phi`` with Spot (``automata/ltl.py``),
build the product with the compiled state space on the fly (``product.py``), search it
for a fair accepting SCC (``emptiness.py``, paper 000 Fig. 5 with the prunes of
``conditions.py``), and map a fair lasso back to model steps (``semantics/trace.py``).

Semantics (documented once, here and in the README):
- state/event LTL, PAT's convention: the automaton reads the state reached and the event
  that reached it; the run starts with the pseudo-event ``init`` (``product.py``);
- an event atom ``e`` holds on a step whose event name is exactly ``e`` (no prefix
  matching: ``eat`` does not match ``eat.0``);
- finite runs stutter at their last state; the stutter step has no event;
- actions, processes and steps for fairness as in ``conditions.py``;
- annotations: ``LtlOptions.annotations`` pairs ``(mark, name)``; ``name`` is an event
  name (CSP#) or a statement label (Promela: a step engages ``name`` when its event is
  ``name`` or one of the edges it takes has ``Edge.label == name``). Marks written in the model (``Edge.fairness``) apply too unless
  ``model_annotations`` is False: ``wf``/``sf``/``f`` to every step with the edge's event
  name, ``wl``/``sl`` to the steps that take that very edge (one occurrence).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from bridge.automata.ltl import AtomBinding, NegatedAutomaton, translate_formula
from bridge.diagnostics import ConfigurationError, ModelRuntimeError, UnsupportedError
from bridge.fairness.conditions import (
    AllOf,
    AnnotatedFairness,
    FairnessCondition,
    make_condition,
)
from bridge.fairness.emptiness import FairLasso, SearchStatistics, find_fair_lasso
from bridge.fairness.product import INIT_EVENT, LimitReached, ModelErrorAt, Product
from bridge.ir.model import FairnessMark, TransitionSystem
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
from bridge.ir.verdict import Lasso, Outcome, Statistics, Trace, Verdict
from bridge.semantics.pidshare import shared_pid_marks
from bridge.semantics.successors import StateSpace, StateVector


@dataclass(frozen=True, slots=True)
class LtlOptions:
    """Options of ``check_ltl``.

    ``fairness``: the notion to assume (None: the one written with the property, else
    none). ``annotations``: extra per-event marks ``(FairnessMark, event name or
    label)``. ``model_annotations``: also honour marks written in the model.
    ``max_states``: limit on product states; ``timeout``: seconds. ``progress``: called
    about once a second with ``(product states, transitions, seconds)``.
    ``early_report``: report a fair accepting cycle as soon as the explored part of a
    component contains one (``onthefly.py``); False waits for complete components (the
    same verdicts, possibly much later; for comparisons and tests).
    """

    fairness: Fairness | None = None
    annotations: tuple[tuple[FairnessMark, str], ...] = ()
    max_states: int | None = None
    timeout: float | None = None
    model_annotations: bool = True
    progress: Callable[[int, int, float], None] | None = None
    early_report: bool = True


def _validate(options: LtlOptions) -> None:
    if options.fairness is not None and not isinstance(options.fairness, Fairness):
        allowed = ", ".join(f.value for f in Fairness)
        raise ConfigurationError(f"unknown fairness {options.fairness!r}; allowed: {allowed}")
    for pair in options.annotations:
        if (
            not isinstance(pair, tuple)
            or len(pair) != 2
            or not isinstance(pair[0], FairnessMark)
            or not isinstance(pair[1], str)
        ):
            allowed = ", ".join(m.value for m in FairnessMark)
            raise ConfigurationError(
                f"bad fairness annotation {pair!r}; expected (mark, event) with mark one of {allowed}"
            )
    if options.max_states is not None and options.max_states < 1:
        raise ConfigurationError(f"max_states must be at least 1, not {options.max_states}")
    if options.timeout is not None and options.timeout <= 0:
        raise ConfigurationError(f"timeout must be positive, not {options.timeout}")


class _AnnotationUnits:
    """Which annotation units each step engages, and the mark of each unit.

    Units: ``("event", name)`` for ``wf``/``sf``/``f`` (all steps with that event) and
    ``("edge", instance, edge)`` for ``wl``/``sl`` (the steps taking that edge). Event
    names of marked model edges with computed components (``rule1.i.(i+1)%N``) are learnt
    when a step taking the edge is first met; ``version`` grows when the marks change so
    that cached facts are recomputed.
    """

    def __init__(self, product: Product, cli: tuple[tuple[FairnessMark, str], ...], use_model: bool) -> None:
        self.product = product
        self.marks: dict[Hashable, FairnessMark] = {}
        self.use_model = use_model
        for mark, name in cli:
            unit_mark = {FairnessMark.WL: FairnessMark.WF, FairnessMark.SL: FairnessMark.SF}.get(mark, mark)
            self._set(("event", name), unit_mark)
        self._cache: dict[int, frozenset[Hashable]] = {}
        self._potential: dict[int, frozenset[Hashable]] = {}
        self.version = 0

    def _set(self, unit: Hashable, mark: FairnessMark) -> bool:
        old = self.marks.get(unit)
        # Two marks on one unit: keep the stronger (f > sf > wf).
        rank = {FairnessMark.WF: 0, FairnessMark.WL: 0, FairnessMark.SF: 1, FairnessMark.SL: 1, FairnessMark.F: 2}
        if old is None or rank[mark] > rank[old]:
            self.marks[unit] = mark
            return True
        return False

    def __call__(self, k: int) -> frozenset[Hashable]:
        hit = self._cache.get(k)
        if hit is not None:
            return hit
        p = self.product
        step = p.steps[k]
        units: set[Hashable] = set()
        edge_of = getattr(p.space, "edge", None)
        if step.edges and edge_of is not None:
            for inst, idx in step.edges:
                try:
                    e = edge_of(inst, idx, p.step_source[k])
                except (IndexError, KeyError, TypeError):
                    e = None
                if e is None:
                    continue
                # A Promela event is a labelled statement: the label names the unit.
                if e.label is not None and ("event", e.label) in self.marks:
                    units.add(("event", e.label))
                if self.use_model and e.fairness is not None:
                    unit: Hashable | None = None
                    if e.fairness in (FairnessMark.WL, FairnessMark.SL):
                        unit = ("edge", inst, idx)
                    elif step.event is not None:
                        unit = ("event", step.event)
                    elif e.label is not None:
                        unit = ("event", e.label)
                    if unit is not None:
                        if self._set(unit, e.fairness):
                            self.version += 1
                            self._cache.clear()
                        units.add(unit)
        if step.event is not None and ("event", step.event) in self.marks:
            units.add(("event", step.event))
        for inst, idx in step.edges:
            if ("edge", inst, idx) in self.marks:
                units.add(("edge", inst, idx))
        result = frozenset(units)
        self._cache[k] = result
        return result

    def potential(self, k: int) -> frozenset[Hashable]:
        """Return every unit step ``k`` could engage, marked or not: its event name, the
        labels and the ``("edge", instance, edge)`` of the edges it takes. The units
        ``self(k)`` returns are exactly the marked ones among them, now and after any
        mark learnt later, so facts gathered over these stay valid (early reports).
        Learns the marks of the step's edges first, as ``self(k)`` does."""
        self(k)
        hit = self._potential.get(k)
        if hit is None:
            p = self.product
            step = p.steps[k]
            units: set[Hashable] = set()
            if step.event is not None:
                units.add(("event", step.event))
            edge_of = getattr(p.space, "edge", None)
            for inst, idx in step.edges:
                units.add(("edge", inst, idx))
                if edge_of is None:
                    continue
                try:
                    e = edge_of(inst, idx, p.step_source[k])
                except (IndexError, KeyError, TypeError):
                    e = None
                if e is not None and e.label is not None:
                    units.add(("event", e.label))
            hit = frozenset(units)
            self._potential[k] = hit
        return hit


class _VersionedAnnotations(AnnotatedFairness):
    """``AnnotatedFairness`` whose mark sets follow ``_AnnotationUnits.marks``."""

    def __init__(self, product: Product, units: _AnnotationUnits) -> None:
        super().__init__(product, units.marks, units)
        self._units = units
        self._seen_version = -1

    def _refresh(self) -> None:
        if self._seen_version != self._units.version:
            self._seen_version = self._units.version
            marks = self._units.marks
            self.unconditional = {u for u, m in marks.items() if m is FairnessMark.F}
            self.weak = {u for u, m in marks.items() if m in (FairnessMark.WF, FairnessMark.WL)}
            self.strong = {u for u, m in marks.items() if m in (FairnessMark.SF, FairnessMark.SL)}
            self.needs_all_states = bool(self.weak or self.strong)
            self._enabled.clear()

    def prune(self, g):  # type: ignore[no-untyped-def]
        # Compute the units of every step of the subgraph first: that may learn marks.
        p = self.product
        for n in g.nodes:
            for k, _t in p.system_steps(p.node_sys[n]):
                self._units(k)
            for k in p.enabled_step_ids(p.node_sys[n]):
                self._units(k)
        self._refresh()
        return super().prune(g)

    def required_keys(self, g):  # type: ignore[no-untyped-def]
        self._refresh()
        return super().required_keys(g)

    @property
    def version(self) -> int:
        return self._units.version

    def step_units(self, step: int) -> frozenset[Hashable]:
        return self._units.potential(step)

    def loop_deficits(self, g, states, loop):  # type: ignore[no-untyped-def]
        self._refresh()
        return super().loop_deficits(g, states, loop)


def _model_has_marks(system: TransitionSystem) -> bool:
    return any(e.fairness is not None for proc in system.processes for e in proc.edges)


def _state_letter(space: Any, na: NegatedAutomaton,
                  formula: Ltl | None = None) -> Callable[[StateVector], int]:
    """Return the function giving a state's letter over the formula's state atoms.

    With ``formula``: an atom whose evaluation is a model error (an index out of range)
    is an error only where SPIN's claim would evaluate it. pan evaluates each
    propositional part of the formula as one C expression, left to right and short
    circuit, so ``(i < 3) -> (a[i] == 0)`` never reads ``a[5]`` (checked with pan
    6.5.2; ``[] (a[i] == 0)`` alone is pan's "invalid array index"). Elsewhere the atom
    is false: the propositional parts, and so the formula, do not depend on it there."""
    preds = [(1 << i, space.predicate(atom.expr))
             for i, atom in enumerate(na.binding.atoms) if isinstance(atom, LtlState)]
    plain = predicate_letter(preds)
    if formula is None:
        return plain
    parts = _propositional_parts(formula)

    def letter(state: StateVector) -> int:
        try:
            return plain(state)
        except ModelRuntimeError:
            pass
        bits = 0
        failed: dict[int, ModelRuntimeError] = {}
        for bit, pred in preds:
            try:
                if pred(state):
                    bits |= bit
            except ModelRuntimeError as error:
                failed[bit] = error
        for part in parts:
            _evaluate_short_circuit(part, bits, failed, na.binding)
        return bits

    return letter


def _propositional_parts(formula: Ltl) -> list[Ltl]:
    """Return the maximal subformulas of ``formula`` without temporal operators, left
    to right."""
    temporal = {"G", "F", "X", "U", "R", "W"}

    def is_propositional(node: Ltl) -> bool:
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, LtlUnary):
                if n.op in temporal:
                    return False
                stack.append(n.operand)
            elif isinstance(n, LtlBinary):
                if n.op in temporal:
                    return False
                stack += [n.left, n.right]
        return True

    parts: list[Ltl] = []
    stack: list[Ltl] = [formula]
    while stack:
        node = stack.pop()
        if is_propositional(node):
            parts.append(node)
        elif isinstance(node, LtlUnary):
            stack.append(node.operand)
        elif isinstance(node, LtlBinary):
            stack += [node.right, node.left]
    return parts


def _evaluate_short_circuit(node: Ltl, bits: int, failed: dict[int, ModelRuntimeError],
                            binding: AtomBinding) -> bool | None:
    """Return the value of propositional ``node`` as C evaluates it (None: it depends on
    an event atom); raise the model error of a failed atom that the evaluation reads."""
    if isinstance(node, LtlConst):
        return node.value
    if isinstance(node, LtlEvent):
        return None  # known only on a step: both outcomes are possible
    if isinstance(node, LtlState):
        bit = 1 << binding.index_of(node)
        if bit in failed:
            raise failed[bit]
        return bool(bits & bit)
    if isinstance(node, LtlUnary):  # "!"
        value = _evaluate_short_circuit(node.operand, bits, failed, binding)
        return None if value is None else not value
    assert isinstance(node, LtlBinary)
    left = _evaluate_short_circuit(node.left, bits, failed, binding)
    # SPIN writes a -> b as !a || b: b is not read when a is false.
    if (node.op == "&&" and left is False) or (node.op in ("||", "->") and left is (node.op == "||")):
        return node.op != "&&"
    right = _evaluate_short_circuit(node.right, bits, failed, binding)
    if left is None or right is None:
        return None
    return left == right if node.op == "<->" else right


def predicate_letter(
    preds: list[tuple[int, Callable[[StateVector], bool]]],
) -> Callable[[StateVector], int]:
    """Return the function giving a state's letter: the OR of the bits whose predicate
    holds in it (state atoms of a formula or of a never claim)."""

    def letter(state: StateVector) -> int:
        bits = 0
        for bit, pred in preds:
            if pred(state):
                bits |= bit
        return bits

    return letter


def _event_letter(na: NegatedAutomaton) -> Callable[[str | None], int]:
    bits: dict[str, int] = {}
    for i, atom in enumerate(na.binding.atoms):
        if isinstance(atom, LtlEvent):
            bits[atom.name] = bits.get(atom.name, 0) | (1 << i)

    def letter(event: str | None) -> int:
        if event is None:
            return 0
        return bits.get(event, 0)

    return letter


def build_condition(
    product: Product, fairness: Fairness, options: LtlOptions, system: TransitionSystem | None
) -> FairnessCondition:
    """Return the fairness condition (notion plus annotations) for ``product``."""
    use_model = options.model_annotations and system is not None and _model_has_marks(system)
    if not options.annotations and not use_model:
        return make_condition(product, fairness)
    shared = shared_pid_marks(system) if use_model and system is not None else None
    if shared is not None:
        raise UnsupportedError.at(shared[0], f"fairness marks: {shared[1]}")
    units = _AnnotationUnits(product, options.annotations, use_model)
    ann = _VersionedAnnotations(product, units)
    if fairness is Fairness.NONE:
        return ann
    return AllOf(product, (make_condition(product, fairness), ann))


def _statistics(product: Product | None, na: NegatedAutomaton, stats: SearchStatistics,
                started: float, engine: Statistics | None = None) -> Statistics:
    extra: tuple[tuple[str, Any], ...] = (
        ("automaton", na.kind),
        ("automaton_states", na.buchi.num_states),
        ("automaton_edges", na.buchi.num_edges),
        ("acceptance_sets", na.buchi.num_sets),
        ("sccs", stats.sccs),
        ("nontrivial_sccs", stats.nontrivial_sccs),
        ("subgraphs_checked", stats.subgraphs),
        ("pruned_states", stats.pruned),
        ("early_report", stats.early_report),
    )
    if engine is not None:  # another engine searched: its counts and seconds (without
        # compiling), the automaton's facts
        return dataclasses.replace(engine, extra=tuple(engine.extra) + extra)
    peak = _peak_memory_bytes()
    if product is None:
        return Statistics(seconds=time.monotonic() - started, peak_memory_bytes=peak, extra=extra)
    return Statistics(
        states=product.num_nodes,
        transitions=product.transitions,
        seconds=time.monotonic() - started,
        peak_memory_bytes=peak,
        extra=(("system_states", len(product.sys_states)),) + extra,
    )


def describe_fairness(fairness: Fairness, options: LtlOptions, system: TransitionSystem) -> str:
    """Return the fairness assumed, as a verdict states it: the notion, the command
    line's annotations and whether the model's own annotations apply."""
    name = fairness.value
    if options.annotations:
        name += " + " + ", ".join(f"{m.value}({n})" for m, n in options.annotations)
    if options.model_annotations and _model_has_marks(system):
        name += " + the model's annotations"
    return name


def automaton_statistics(product: Product | None, buchi: Any, automaton: str,
                         stats: SearchStatistics, started: float,
                         engine: Statistics | None = None) -> Statistics:
    """Return the statistics of a search of the product with a hand-made automaton (a
    never claim, SPIN's non-progress or acceptance automaton); ``engine``: the counts
    and seconds of another engine's search, as ``_statistics``."""
    extra: tuple[tuple[str, Any], ...] = (
        ("automaton", automaton),
        ("automaton_states", buchi.num_states),
        ("automaton_edges", buchi.num_edges),
        ("acceptance_sets", buchi.num_sets),
        ("sccs", stats.sccs),
        ("nontrivial_sccs", stats.nontrivial_sccs),
        ("subgraphs_checked", stats.subgraphs),
        ("pruned_states", stats.pruned),
    )
    if engine is not None:
        return dataclasses.replace(engine, extra=tuple(engine.extra) + extra)
    seconds = time.monotonic() - started
    if product is None:
        return Statistics(seconds=seconds, peak_memory_bytes=_peak_memory_bytes(), extra=extra)
    return Statistics(
        states=product.num_nodes,
        transitions=product.transitions,
        seconds=seconds,
        peak_memory_bytes=_peak_memory_bytes(),
        extra=(("system_states", len(product.sys_states)),) + extra,
    )


def _peak_memory_bytes() -> int:
    """Return the peak resident memory of this process (0 where unknown)."""
    try:
        import resource
        import sys

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024
    except (ImportError, OSError):
        return 0


def _lasso(space: Any, product: Product, condition: FairnessCondition, found: FairLasso) -> Lasso:
    from bridge.semantics.trace import make_steps, make_trace

    initial_state = product.sys_states[product.node_sys[found.initial]]
    prefix_path = product.system_path(found.prefix)
    loop_path = product.system_path(found.loop)
    loop_start = product.sys_states[product.node_sys[found.loop_start]]
    return Lasso(
        prefix=make_trace(space, initial_state, prefix_path),
        loop=make_steps(space, loop_start, loop_path),
        witness=condition.witness(found.loop),
    )


def _error_trace(space: Any, product: Product, failure: ModelErrorAt) -> Trace:
    from bridge.semantics.trace import make_trace

    initial, edges = failure.path or product.path_from_initial({failure.node})
    return make_trace(space, product.sys_states[product.node_sys[initial]], product.system_path(edges))


def check_ltl(
    system: TransitionSystem,
    prop: Property,
    options: LtlOptions = LtlOptions(),
    space: StateSpace | None = None,
    search: Callable[..., FairSearch] | None = None,
) -> Verdict:
    """Return the verdict of LTL property ``prop`` on ``system`` under fairness.

    HOLDS when no fair run violates the formula (``Verdict.fairness`` names the notion
    and annotations assumed); VIOLATED with a ``Lasso`` (prefix plus a fair loop, with a
    ``FairnessWitness``) otherwise; VIOLATED with a ``Trace`` when a model error (failed
    assert, index out of range...) is met during the search; UNKNOWN when
    ``max_states`` or ``timeout`` stops the search first. Paper 000 section 3.2 (product
    with the automaton of the negation, Fig. 5 on the product); DESIGN.md section 4.

    ``space``: the state space to search instead of ``build_state_space(system)``, e.g.
    a partial order reduction wrapper built by the caller (``bridge.reductions`` is not
    imported here); fairness is then judged on its ``full_successors`` when it has them.
    It must implement ``predicate`` like ``CompiledStateSpace``.

    ``search``: the fair search to run instead of ``run_fair_search`` (same arguments
    and result), e.g. the compiled engine's (``bridge.api`` wires it); its
    ``FairSearch.statistics``, when set, are the verdict's search statistics.
    """
    started = time.monotonic()
    _validate(options)
    if prop.kind is not PropertyKind.LTL or prop.formula is None:
        raise ConfigurationError(f"check_ltl checks LTL properties; {prop.name!r} is {prop.kind.value}")
    fairness = options.fairness if options.fairness is not None else (prop.fairness or Fairness.NONE)
    from bridge.semantics.statespace import build_state_space

    if space is None:
        space = build_state_space(system)
    na = translate_formula(prop.formula)
    stats = SearchStatistics()
    fair_name = describe_fairness(fairness, options, system)

    def verdict(
        outcome: Outcome,
        reason: str = "",
        product: Product | None = None,
        extra_notes: tuple[str, ...] = (),
        **kw: Any,
    ) -> Verdict:
        notes = tuple(na.binding.describe()) + (f"automaton of the negation: {na.spot_text}",) + extra_notes
        return Verdict(
            model=system.name,
            property=prop.name,
            outcome=outcome,
            reason=reason,
            fairness=fair_name,
            statistics=_statistics(product, na, stats, started, engine_statistics),
            notes=notes,
            **kw,
        )

    engine_statistics: Statistics | None = None
    if options.timeout is not None:
        # the time limit is the whole check's: building the state space and translating
        # the formula (seconds at 10,000 instances) count, as in its statistics (never 0:
        # the C engine reads 0 as no limit)
        options = dataclasses.replace(
            options, timeout=max(1e-3, options.timeout - (time.monotonic() - started)))
    search = (search or run_fair_search)(space, system, na.buchi, _state_letter(space, na, prop.formula),
                                         _event_letter(na), fairness, options, stats)
    engine_statistics = search.statistics
    product, condition, found = search.product, search.condition, search.found
    if search.early is not None:
        outcome, reason, kw = search.early
        return verdict(outcome, reason, product, **kw)
    assert product is not None and condition is not None
    extra_notes = _unused_annotations(product, options, search.annotations_seen) + _unused_event_atoms(
        product, na, search.events_seen)
    if found is None:
        return verdict(Outcome.HOLDS, "", product, extra_notes=extra_notes)
    lasso = _lasso(space, product, condition, found)
    ends = all(product.steps[k].stutter for _u, k, _v in found.loop)
    reason = "acceptance cycle"
    if ends:
        reason = "acceptance cycle (the run ends: its last state stutters)"
    return verdict(Outcome.VIOLATED, reason, product, lasso=lasso, extra_notes=extra_notes)


@dataclass
class FairSearch:
    """What ``run_fair_search`` found: the product, the condition and the fair lasso
    (None: there is none), or ``early``, the verdict (outcome, reason, Verdict keyword
    arguments) of a search stopped by a limit or a model error; ``statistics``: the
    counts of a search run by another engine (the C engine), else None."""

    product: Product | None
    condition: FairnessCondition | None = None
    found: FairLasso | None = None
    early: tuple[Outcome, str, dict[str, Any]] | None = None
    statistics: Statistics | None = None  # set by a search of another engine
    events_seen: frozenset[str] | None = None  # the formula's events it met, likewise
    annotations_seen: frozenset[str] | None = None  # the annotated names it met, likewise
    # a fair part another engine checked as a whole (``early`` says so, its trace ends
    # there): the product node where it starts
    part_start: int | None = None


def run_fair_search(
    space: Any,
    system: TransitionSystem,
    buchi: Any,
    state_letter: Any,
    event_letter: Any,
    fairness: Fairness,
    options: LtlOptions,
    stats: SearchStatistics,
) -> FairSearch:
    """Return the fair accepting lasso search of ``space`` x ``buchi`` (paper 000 Fig. 5),
    shared by LTL properties and Promela never claims.

    A state or time limit gives an ``UNKNOWN`` early verdict; a model error met while
    expanding a state (or in the initial state) a ``VIOLATED`` one with its trace.
    """
    product: Product | None = None
    try:
        product = Product(
            space,
            buchi,
            state_letter,
            event_letter,
            max_states=options.max_states,
            timeout=options.timeout,
            progress=options.progress,
        )
        condition = build_condition(product, fairness, options, system)
        return FairSearch(product, condition,
                          find_fair_lasso(product, condition, stats, options.early_report))
    except LimitReached as limit:
        what = "state limit" if limit.what == "states" else "time limit"
        return FairSearch(product, early=(Outcome.UNKNOWN,
                                          f"{what} reached before a verdict", {}))
    except ModelErrorAt as failure:
        assert product is not None
        err = failure.error
        kind = getattr(err, "kind", "error")
        trace = _error_trace(space, product, failure)
        return FairSearch(product, early=(Outcome.VIOLATED, f"{kind}: {err}", {"trace": trace}))
    except ModelRuntimeError as err:  # in the initial state
        from bridge.semantics.trace import make_trace

        init = space.initial_states()[0]
        trace = make_trace(space, init, [])
        return FairSearch(product, early=(Outcome.VIOLATED, f"{err.kind}: {err}",
                                          {"trace": trace}))


def _unused_event_atoms(product: Product, na: NegatedAutomaton,
                        seen: frozenset[str] | None = None) -> tuple[str, ...]:
    """Return a note per event atom of the formula that no explored step has (most
    likely a misspelt event: the atom is false everywhere); ``seen``: the event names
    another engine's search met, instead of the product's steps."""
    events = set(seen) if seen is not None else {step.event for step in product.steps}
    events.add(INIT_EVENT)
    return tuple(
        f"event {atom.name} of the formula matched no step explored (it is false everywhere)"
        for atom in na.binding.atoms
        if isinstance(atom, LtlEvent) and atom.name not in events
    )


def _unused_annotations(product: Product, options: LtlOptions,
                        seen: frozenset[str] | None = None) -> tuple[str, ...]:
    """Return a note per command-line annotation that names no event or label of any
    step met (most likely a typo: such an annotation constrains nothing); ``seen``: the
    annotated names another engine's search met, instead of the product's steps."""
    if not options.annotations:
        return ()
    if seen is not None:
        return tuple(
            f"annotation {mark.value}({name}) matched no event or statement label of the "
            "explored steps"
            for mark, name in options.annotations if name not in seen)
    names: set[str] = set()
    edge_of = getattr(product.space, "edge", None)
    for k, step in enumerate(product.steps):
        if step.event is not None:
            names.add(step.event)
        if edge_of is not None:
            for inst, idx in step.edges:
                try:
                    e = edge_of(inst, idx, product.step_source[k])
                except (IndexError, KeyError, TypeError):
                    e = None
                if e is not None and e.label is not None:
                    names.add(e.label)
    return tuple(
        f"annotation {mark.value}({name}) matched no event or statement label of the explored steps"
        for mark, name in options.annotations
        if name not in names
    )


__all__ = ["INIT_EVENT", "FairSearch", "LtlOptions", "automaton_statistics", "build_condition",
           "check_ltl", "describe_fairness", "run_fair_search"]
