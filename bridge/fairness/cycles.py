"""Check SPIN's non-progress and acceptance cycles under fairness: ``check_label_cycles``.

A Promela model's ``progress`` and ``accept`` labels are assertions of their own (SPIN
checks them with ``pan -l`` and, without a never claim, ``pan -a``). Each is a search
of the product of the state space with a small Büchi automaton over one state
predicate, the same fair accepting-SCC search as LTL and never claims
(``run_fair_search``: paper 000 section 3.2 and Fig. 5), so every fairness notion
and annotation applies (SPIN offers only process-weak fairness, ``-f``):

* **non-progress cycles** (``PropertyKind.NON_PROGRESS``): AP ``p0`` is SPIN's ``np_``,
  "no running instance is at a progress location", read on the state the step
  reaches, and false on the stutter step of a state without steps (pan's ``np_`` is
  false when the claim stutters: a run that ends is not a non-progress cycle; checked
  with ``pan -l`` on a model that deadlocks away from any progress label). The
  automaton accepts the runs that satisfy ``<>[] p0``: ``q0 -1-> q0``, ``q0 -p0-> q1``,
  ``q1 -p0-> q1`` (accepting). Since the stutter step is the only step of its state,
  "false on the stutter step" is "``p0`` is false in a state without steps".
* **acceptance cycles** (``PropertyKind.ACCEPTANCE``): AP ``p0`` is "some running
  instance is at an accept location"; one state, ``q0 -p0-> q0`` accepting and
  ``q0 -!p0-> q0``: the runs that satisfy ``[]<> p0``. A run that ends in such a state
  stutters there and is accepted, as pan reports it ("accept stutter").

As with never claims, the automaton reads the initial state first and then each state
reached (SPIN's order; ``product.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from bridge.automata.buchi import Buchi, BuchiEdge
from bridge.diagnostics import ConfigurationError, ModelRuntimeError
from bridge.fairness.check import FairSearch, LtlOptions, _validate
from bridge.fairness.emptiness import FairLasso
from bridge.fairness.never import check_automaton
from bridge.fairness.product import Product
from bridge.ir.expr import Builtin
from bridge.ir.model import TransitionSystem
from bridge.ir.property import Property, PropertyKind
from bridge.ir.verdict import Verdict
from bridge.semantics.successors import StateSpace, StateVector

LABEL_CYCLE_KINDS = (PropertyKind.NON_PROGRESS, PropertyKind.ACCEPTANCE)


def non_progress_automaton() -> Buchi:
    """Return the automaton of ``<>[] p0`` (``p0``: SPIN's ``np_``, see the module
    docstring): SPIN's built-in non-progress claim, as a transition-based automaton."""
    p0 = (0, True, False)
    return Buchi(
        num_states=2,
        initial=0,
        edges=((BuchiEdge(0, 0, True, 0), BuchiEdge(0, 1, p0, 0)),
               (BuchiEdge(1, 1, p0, 1),)),
        num_sets=1,
        ap_names=("p0",),
        acceptance_text="Inf(0)",
    )


def acceptance_automaton() -> Buchi:
    """Return the automaton of ``[]<> p0`` (``p0``: some instance is at an accept
    location): pan's acceptance cycles of a model without a never claim."""
    return Buchi(
        num_states=1,
        initial=0,
        edges=((BuchiEdge(0, 0, (0, True, False), 1), BuchiEdge(0, 0, (0, False, True), 0)),),
        num_sets=1,
        ap_names=("p0",),
        acceptance_text="Inf(0)",
    )


def _non_progress_letter(space: Any) -> Callable[[StateVector], int]:
    np_ = space.predicate(Builtin("np_"))

    def letter(state: StateVector) -> int:
        if not np_(state):
            return 0
        try:
            has_step = bool(space.successors(state))
        except ModelRuntimeError:
            return 1  # the product meets the error when it expands this state
        return 1 if has_step else 0

    return letter


def _acceptance_letter(space: Any) -> Callable[[StateVector], int]:
    accepting = [frozenset(loc.id for loc in tpl.process.locations if loc.accept)
                 for tpl in space.layout.processes]

    def letter(state: StateVector) -> int:
        rl = space.layout_of(state)
        for t, b in zip(rl.templates, rl.bases, strict=True):
            if state[b] in accepting[t]:
                return 1
        return 0

    return letter


def check_label_cycles(
    system: TransitionSystem,
    prop: Property,
    options: LtlOptions | None = None,
    space: StateSpace | None = None,
    search: Callable[..., FairSearch] | None = None,
) -> Verdict:
    """Return the verdict of a non-progress-cycle or acceptance-cycle property under
    fairness (see the module docstring).

    HOLDS when no fair run has the cycle; VIOLATED with a ``Lasso`` whose loop is the
    cycle (reason ``non-progress cycle``, ``acceptance cycle`` or, for a run that ends
    at an accept location, ``accept stutter``); VIOLATED with a ``Trace`` on a model
    error met during the search; UNKNOWN when ``max_states``/``timeout`` stop it.
    ``space`` must be a compiled state space of ``system`` (its layout is read);
    ``search``: another engine's fair search, as in ``check_ltl`` (the compiled
    engine's, whose ``np_`` and accept predicates are generated C: ``engine_c.LabelAtom``).
    """
    started = time.monotonic()
    if options is None:
        options = LtlOptions()
    _validate(options)
    if prop.kind not in LABEL_CYCLE_KINDS:
        raise ConfigurationError(
            f"check_label_cycles checks non-progress and acceptance cycles; "
            f"{prop.name!r} is {prop.kind.value}")
    from bridge.semantics.statespace import build_state_space

    if space is None:
        space = build_state_space(system)
    if prop.kind is PropertyKind.NON_PROGRESS:
        buchi, letter = non_progress_automaton(), _non_progress_letter(space)
        what = "non-progress cycle"
        atom = "p0 = np_: no process at a progress label, in a state with a step"
    else:
        buchi, letter = acceptance_automaton(), _acceptance_letter(space)
        what = "acceptance cycle"
        atom = "p0 = some process at an accept label"

    def reason(product: Product, found: FairLasso) -> str:
        if all(product.steps[k].stutter for _u, k, _v in found.loop):
            return "accept stutter (the run ends at an accept label)"
        return what

    return check_automaton(system, prop, options, space, buchi, letter,
                           what + " automaton", (atom,), reason, started, search,
                           lambda _product, _node: what)


__all__ = ["LABEL_CYCLE_KINDS", "acceptance_automaton", "check_label_cycles",
           "non_progress_automaton"]
