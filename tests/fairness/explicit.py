"""Test doubles for the fairness room: explicit labelled transition systems and helpers.

``ExplicitLts`` implements the ``StateSpace`` protocol from a dict, so the fair SCC
search can be tested on small graphs written by hand (paper 000 Figs. 2-6) without any
front-end or the semantics engine. State atoms are names of state labels; event atoms
match ``Step.event``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bridge.automata.buchi import Buchi, universal_buchi
from bridge.automata.ltl import translate_formula
from bridge.fairness.conditions import FairnessCondition, make_condition
from bridge.fairness.emptiness import FairLasso, find_fair_lasso
from bridge.fairness.product import INIT_EVENT, Product
from bridge.ir.expr import Const
from bridge.ir.model import FairnessMark
from bridge.ir.property import (
    Fairness,
    Ltl,
    LtlBinary,
    LtlEvent,
    LtlState,
    LtlUnary,
)
from bridge.semantics.successors import StateVector, Step

# A transition: (action, target) or (action, target, processes) or
# (action, target, processes, tau)
Transition = tuple[Any, ...]


@dataclass
class ExplicitLts:
    """An LTS from a dict ``{state: [(action, target[, processes[, tau]]), ...]}``.

    States are ints; ``labels[state]`` the state atoms true there; ``initial`` the
    initial state. A tau transition has no event. Each action is its own event name.
    """

    transitions: Mapping[int, Sequence[Transition]]
    initial: int = 0
    labels: Mapping[int, Iterable[str]] = field(default_factory=dict)

    def steps_of(self, s: int) -> list[tuple[Step, int]]:
        out = []
        for t in self.transitions.get(s, ()):
            action, target = t[0], t[1]
            procs = tuple(t[2]) if len(t) > 2 else ()
            tau = bool(t[3]) if len(t) > 3 else False
            out.append((Step(event=None if tau else str(action), action=action, processes=procs, tau=tau), target))
        return out

    # StateSpace protocol
    def initial_states(self) -> Sequence[StateVector]:
        return [(self.initial,)]

    def successors(self, state: StateVector) -> Sequence[tuple[Step, StateVector]]:
        return [(step, (t,)) for step, t in self.steps_of(state[0])]

    def is_terminal(self, state: StateVector) -> bool:
        return not self.transitions.get(state[0])

    def is_valid_end(self, state: StateVector) -> bool:
        return not self.transitions.get(state[0])

    def valuation(self, state: StateVector) -> dict[str, Any]:
        return {"state": state[0]}

    def action_name(self, action: Hashable) -> str:
        return str(action)

    @property
    def states(self) -> set[int]:
        out = {self.initial}
        for s, ts in self.transitions.items():
            out.add(s)
            out.update(t[1] for t in ts)
        return out


def atom(name: str) -> LtlState:
    """Return the state atom ``name`` (true where ``name`` is a label)."""
    return LtlState(Const(True), name)


def ev(name: str) -> LtlEvent:
    """Return the event atom ``name``."""
    return LtlEvent(name)


def G(f: Ltl) -> Ltl:
    return LtlUnary("G", f)


def F(f: Ltl) -> Ltl:
    return LtlUnary("F", f)


def Not(f: Ltl) -> Ltl:
    return LtlUnary("!", f)


def And(a: Ltl, b: Ltl) -> Ltl:
    return LtlBinary("&&", a, b)


def letters_for(lts: ExplicitLts, atoms: Sequence[LtlState | LtlEvent]):
    """Return (state_letter, event_letter) functions for the atom binding."""
    state_bits = {a.text: i for i, a in enumerate(atoms) if isinstance(a, LtlState)}
    event_bits = {a.name: i for i, a in enumerate(atoms) if isinstance(a, LtlEvent)}

    def state_letter(state: StateVector) -> int:
        bits = 0
        for name in lts.labels.get(state[0], ()):
            i = state_bits.get(name)
            if i is not None:
                bits |= 1 << i
        return bits

    def event_letter(event: str | None) -> int:
        i = event_bits.get(event) if event is not None else None
        return 0 if i is None else 1 << i

    return state_letter, event_letter


def event_units(product: Product) -> Any:
    """Return the annotation-unit function: a step engages the unit of its event."""

    def units(k: int) -> frozenset[Hashable]:
        step = product.steps[k]
        return frozenset() if step.event is None else frozenset({step.event})

    return units


def build(
    lts: ExplicitLts,
    fairness: Fairness = Fairness.NONE,
    formula: Ltl | None = None,
    marks: Mapping[str, FairnessMark] | None = None,
    buchi: Buchi | None = None,
) -> tuple[Product, FairnessCondition]:
    """Return the product of ``lts`` with the automaton of ``!formula`` (or with the
    universal automaton: plain feasibility) and the fairness condition."""
    if buchi is None:
        if formula is None:
            buchi = universal_buchi()
            atoms: tuple = ()
        else:
            neg = translate_formula(formula)
            buchi = neg.buchi
            atoms = neg.binding.atoms
    else:
        atoms = ()
    sl, el = letters_for(lts, atoms)
    product = Product(lts, buchi, sl, el)
    cond = make_condition(product, fairness, dict(marks) if marks else None, event_units(product))
    return product, cond


def feasible(lts: ExplicitLts, fairness: Fairness = Fairness.NONE, marks=None) -> FairLasso | None:
    """Return a fair lasso of ``lts`` (paper 000 section 3 feasibility), or None."""
    product, cond = build(lts, fairness, marks=marks)
    return find_fair_lasso(product, cond)


def violated(lts: ExplicitLts, formula: Ltl, fairness: Fairness = Fairness.NONE, marks=None) -> bool:
    """Return True if some fair run of ``lts`` violates ``formula``."""
    product, cond = build(lts, fairness, formula, marks)
    return find_fair_lasso(product, cond) is not None


__all__ = ["INIT_EVENT", "ExplicitLts", "atom", "ev", "G", "F", "Not", "And", "build", "feasible", "violated"]
