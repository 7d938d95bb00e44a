"""Process counter abstraction with process-level weak/strong fairness (paper 002 sections
3-5, Definitions 6-8, Lemmas 1-5, Theorems 1-2, Figures 3-4).

A *family* is a set of instances whose process graphs are identical once their identity
is erased (parameters folded by the front-end, event components dropped: ``become.3``
and ``become.7`` are the same local step). An abstract state records the globals, the
local state of every instance outside a family, and, per family local state (location
and locals), *how many* instances are there (Def. 6). With a cutoff ``K``, a count or a
*process-counter variable* (a global only ever changed by ``x = x + 1``/``x = x - 1``,
paper 002 Example 2) above ``K`` becomes ``ω`` (Def. 8): ``ω + 1 = ω``,
``ω - 1 ∈ {ω, K}``, and a comparison that ``ω`` leaves open is *unknown*. With a finite
family, counts that would need more members than it has are dropped
(``CounterSpace._within_population``). Edges run as generated Python on states without
``ω`` (``_compile.py``) and through the interpreter (``_interp.py``) otherwise.

Fairness is process-level (002 Defs. 4-5). For a strongly connected subgraph ``scg`` of
the product with the Büchi automaton of ``!phi``: ``always(scg)`` / ``once(scg)`` are the
local states (and non-family instances) enabled in every / some state of ``scg``,
``leave(scg)`` those a transition of ``scg`` leaves. Weak fairness: an accepting MSCC
with ``always ⊆ leave`` (Lemma 3, Fig. 3). Strong fairness: ``once ⊆ leave``, else the
bad states (enabling something never left) are pruned and the rest re-decomposed
(Lemma 4, Fig. 4). Enabledness for these sets is *must*-enabledness (a guard that is
true for every concretisation): Lemma 5 needs "abstractly enabled ⇒ some concrete
process enabled", which an ``ω``-undecided guard does not give; transitions themselves
use *may*-enabledness (both outcomes of an undecided guard are explored), so the
abstract system simulates every concrete one.

Verdicts: with exact counts (no ``ω`` ever reached) the abstraction is exact (Theorem
1): holds and violated are both conclusive. With ``ω``: "holds" is sound (Theorem 2); a
counterexample is reported as violated only if its lasso never meets ``ω`` or an
undecided guard; otherwise, for a finite number of processes, the check is repeated
with exact counts, and for an unbounded number the model's own size (its declared
instances) is checked with exact counts: its violation is one of the unbounded family,
which includes that size; if it does not violate, the verdict is ``unknown``
(inconclusive) with the reason.

Atoms are read as by the native checker (bridge/fairness/product.py): state atoms on the
target state of a step, event atoms on the step (an ``init`` pseudo-step first; the
stutter step of a state without transitions carries no event). An abstract transition is
one local step of a family member or of another instance, and an event atom holds on it
iff the step's event name equals the atom's name. Families erase event components
(``become.3`` ~ ``become.7``): such a step is known only as ``become.*``, so an atom
``become.<c>`` is refused (``check_event_atoms``); ``become`` itself never equals a name
with components and is decided. Components that are the same constant for every member
(``ack.0``) are kept.

The Büchi automaton comes from Spot directly (``spot.translate``); the fairness room's
prune interface is event/process-instance based and cannot express must- versus
may-enabledness of local states, so Figures 3 and 4 are implemented here.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

from bridge.diagnostics import ConfigurationError, ModelRuntimeError
from bridge.ir import (
    TransitionSystem,
)
from bridge.ir.property import (
    Fairness,
    Ltl,
    LtlEvent,
    Property,
)
from bridge.ir.verdict import Outcome, Statistics, Verdict
from bridge.reductions._counter_model import (
    SUPPORTED_FAIRNESS,
    CounterModel,
    analyse_counter_model,
    check_event_atoms,
)
from bridge.reductions._counter_product import _Inconclusive, _Limit, _Product, _translate
from bridge.reductions._counter_search import _concretise, _fair_subgraph, _lasso_exact
from bridge.reductions._counter_space import CounterSpace
from bridge.semantics.collector import rare_full_collections


@dataclass
class CounterResult:
    """What ``check_counter_abstraction`` found (kept for tests and benchmarks)."""

    outcome: Outcome
    reason: str
    abstract_states: int
    product_states: int
    exact_space: bool
    lasso_exact: bool | None = None
    notes: list[str] = field(default_factory=list)


def _population(model: CounterModel) -> int:
    return max(len(f.members) for f in model.families)


def check_counter_abstraction(
    system: TransitionSystem,
    prop: Property | Ltl,
    fairness: Fairness = Fairness.NONE,
    cutoff: int | None = None,
    *,
    unbounded: bool = False,
    max_states: int | None = 2_000_000,
    timeout: float | None = None,
) -> Verdict:
    """Return the verdict of an LTL property under process-level fairness, checked on the
    process counter abstraction of ``system`` (paper 002; see the module docstring).

    ``cutoff``: counts above it become ``ω`` (None: exact counts). ``unbounded``: the
    families have an unbounded number of members (needs a cutoff). The verdict's notes
    say whether the result is exact, sound-with-ω, or inconclusive.
    """
    with rare_full_collections():
        result = run_counter_abstraction(
            system, prop, fairness, cutoff, unbounded=unbounded, max_states=max_states,
            timeout=timeout,
        )
    formula = prop.formula if isinstance(prop, Property) else prop
    name = prop.name if isinstance(prop, Property) else str(formula)
    stats = Statistics(
        states=result.product_states,
        extra=(("abstract_states", result.abstract_states), ("cutoff", cutoff),
               ("unbounded", unbounded)),
    )
    return Verdict(
        model=system.name, property=name, outcome=result.outcome, reason=result.reason,
        fairness=fairness.value, statistics=stats, notes=tuple(result.notes),
    )


def run_counter_abstraction(
    system: TransitionSystem,
    prop: Property | Ltl,
    fairness: Fairness = Fairness.NONE,
    cutoff: int | None = None,
    *,
    unbounded: bool = False,
    max_states: int | None = 2_000_000,
    timeout: float | None = None,
    early: bool = True,
) -> CounterResult:
    """Return the detailed result behind ``check_counter_abstraction`` (``early``: report
    a fair part before its component is complete; with a cutoff only when the part is
    a real run; see ``_early_search``)."""
    if fairness not in SUPPORTED_FAIRNESS:
        raise ConfigurationError(
            f"counter abstraction supports fairness none, process-weak, process-strong "
            f"(paper 002 Defs. 4-5), not {fairness.value}"
        )
    formula = prop.formula if isinstance(prop, Property) else prop
    if formula is None:
        raise ConfigurationError("counter abstraction checks LTL properties only")
    model = analyse_counter_model(system, formula)
    aut, atoms = _translate(formula)
    check_event_atoms(model, [a for a in atoms if isinstance(a, LtlEvent)])
    deadline = None if timeout is None else time.monotonic() + timeout
    notes = [
        f"counter abstraction: {len(f.members)} identical instances of {f.name}" for f in model.families
    ] + model.notes
    if model.counter_vars and cutoff is not None:
        notes.append("process-counter variables: " + ", ".join(sorted(model.counter_vars)))

    def attempt(k: int | None) -> CounterResult:
        space = CounterSpace(model, k, unbounded)
        product = _Product(space, aut, atoms, deadline, max_states)
        n_abs = lambda: len(space.__dict__.get("_cache", {}))  # noqa: E731
        try:
            found = _fair_subgraph(product, fairness, early)
            result = judge(space, product, k, found, not product.reported_early)
            if result is None:
                # With a cutoff, the early part could not be shown a real run: judge the
                # components as the complete search does (the verdict of before; the
                # product's edges are kept, so the explored part is not recomputed).
                found = _fair_subgraph(product, fairness, False)
                result = judge(space, product, k, found, True)
        except _Inconclusive as why:
            return CounterResult(Outcome.UNKNOWN, f"inconclusive: {why}", n_abs(),
                                 len(product.nodes), False)
        except _Limit as what:
            return CounterResult(Outcome.UNKNOWN, f"resource limit reached ({what})",
                                 n_abs(), len(product.nodes), False)
        except ModelRuntimeError as error:
            return CounterResult(Outcome.UNKNOWN, f"model error in the abstraction: {error}",
                                 n_abs(), len(product.nodes), False)
        assert result is not None
        return result

    def judge(space: CounterSpace, product: _Product, k: int | None,
              found: tuple[list[int], frozenset[int]] | None, complete: bool
              ) -> CounterResult | None:
        """Return the result of the attempt with cutoff ``k`` that found ``found``, or
        None when ``found`` is a part reported early (not ``complete``: not a whole
        component judged by Figs. 3-4) that cannot be shown a real run (then the
        complete search decides)."""
        exact_space = not space.saw_omega and not space.saw_unknown
        n_abs = len(space.__dict__.get("_cache", {}))
        if found is None:
            how = "exact counts" if exact_space else f"sound abstraction with cutoff {k} (ω)"
            return CounterResult(Outcome.HOLDS, f"no fair accepting cycle ({how})", n_abs,
                                 len(product.nodes), exact_space)
        comp, banned = found
        lasso_exact = exact_space or _lasso_exact(
            product, comp, banned, product.initial(space.initial_state())
        )
        if lasso_exact:
            return CounterResult(Outcome.VIOLATED, "fair accepting cycle (exact abstract run)", n_abs,
                                 len(product.nodes), exact_space, True)
        if fairness is Fairness.NONE and not unbounded:
            try:
                if _concretise(model, product, comp, banned, deadline, max_states):
                    return CounterResult(
                        Outcome.VIOLATED,
                        f"accepting cycle, replayed with exact counts for {_population(model)} processes",
                        n_abs, len(product.nodes), exact_space, True,
                    )
            except (_Limit, _Inconclusive):
                pass
        if not complete:
            return None
        return CounterResult(
            Outcome.UNKNOWN,
            f"inconclusive: the abstract counterexample passes through ω (cutoff {k}) and may be spurious",
            n_abs, len(product.nodes), exact_space, False,
        )

    result = attempt(cutoff)
    if result.outcome is Outcome.UNKNOWN and cutoff is not None and not unbounded \
            and result.reason.startswith("inconclusive"):
        notes.append(result.reason + f"; rechecked with exact counts ({_population(model)} processes)")
        result = attempt(None)
    elif result.outcome is Outcome.UNKNOWN and unbounded and result.reason.startswith("inconclusive"):
        # A violation by the model's own size is a violation by the unbounded family
        # (it includes that size): check it with exact counts, a real run if found.
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        exact = run_counter_abstraction(system, prop, fairness, None, max_states=max_states,
                                        timeout=remaining, early=early)
        if exact.outcome is Outcome.VIOLATED:
            notes.append(result.reason + f"; the model's own size ({_population(model)} "
                         "processes) violates the property with exact counts, so the "
                         "unbounded family does too")
            result = dataclasses.replace(exact, notes=[])
    result.notes = notes + result.notes
    if result.outcome is Outcome.HOLDS and not result.exact_space:
        result.notes.append(
            "holds for every concrete run: the ω abstraction only adds runs (paper 002 Theorem 2)"
        )
    return result
