"""The counter abstraction's product with Spot's Büchi automaton, read like the native
checker's (bridge/fairness/product.py). Part of ``bridge.reductions.counter``."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from bridge.diagnostics import UnsupportedError
from bridge.ir.property import (
    Ltl,
    LtlBinary,
    LtlConst,
    LtlEvent,
    LtlState,
    LtlUnary,
)
from bridge.reductions._counter_model import (
    INIT_EVENT,
    AbstractState,
)
from bridge.reductions._counter_space import AbstractStep, CounterSpace, _has_omega
from bridge.reductions._graph import iter_sccs
from bridge.reductions._interp import UNKNOWN, evaluate

# ---------------------------------------------------------------------------------
# LTL: Spot automaton, atoms over abstract states


Atom = LtlState | LtlEvent


def _atom_key(atom: Atom) -> object:
    """What makes two atoms one proposition: a state atom's expression, an event's name."""
    return atom.expr if isinstance(atom, LtlState) else atom.name


def _spot_text(formula: Ltl, atoms: list[Atom]) -> str:
    if isinstance(formula, LtlConst):
        return "1" if formula.value else "0"
    if isinstance(formula, (LtlState, LtlEvent)):
        for i, a in enumerate(atoms):
            if type(a) is type(formula) and _atom_key(a) == _atom_key(formula):
                return f"p{i}"
        atoms.append(formula)
        return f"p{len(atoms) - 1}"
    if isinstance(formula, LtlUnary):
        return f"{formula.op}({_spot_text(formula.operand, atoms)})"
    if isinstance(formula, LtlBinary):
        op = {"&&": "&", "||": "|"}.get(formula.op, formula.op)
        return f"({_spot_text(formula.left, atoms)}) {op} ({_spot_text(formula.right, atoms)})"
    raise UnsupportedError.at(None, f"LTL node {type(formula).__name__}")


@dataclass
class _Automaton:
    initial: int
    edges: list[list[tuple[int, frozenset[int], bool]]]  # (dst, letters, accepting)
    accept_all: bool


def _translate(formula: Ltl) -> tuple[_Automaton, list[Atom]]:
    """Return the Büchi automaton of ``!formula`` (Spot) over letters that are bit sets
    of ``atoms`` (state and event atoms, bit ``i`` for ``atoms[i]``)."""
    import spot
    from spot import buddy  # type: ignore[attr-defined]

    atoms: list[Atom] = []
    text = _spot_text(formula, atoms)
    aut = spot.translate(spot.formula.Not(spot.formula(text)), "BA", "small", "high")
    n = len(atoms)
    ids = [aut.register_ap(f"p{i}") for i in range(n)]
    letters = []
    for letter in range(1 << n):
        m = buddy.bddtrue
        for i, v in enumerate(ids):
            m = m & (buddy.bdd_ithvar(v) if letter >> i & 1 else buddy.bdd_nithvar(v))
        letters.append(m)
    accept_all = aut.acc().is_t()
    edges: list[list[tuple[int, frozenset[int], bool]]] = [[] for _ in range(aut.num_states())]
    for s in range(aut.num_states()):
        for e in aut.out(s):
            ok = frozenset(
                letter for letter in range(1 << n) if (letters[letter] & e.cond) != buddy.bddfalse
            )
            acc = accept_all or bool(list(e.acc.sets()))
            edges[s].append((e.dst, ok, bool(acc)))
    return _Automaton(aut.get_init_state_number(), edges, accept_all), atoms



class _Inconclusive(Exception):
    pass


class _Limit(Exception):
    pass


def _tarjan(nodes: Iterable[int], succ) -> list[list[int]]:
    """Return the SCCs of the subgraph reachable from ``nodes`` (iterative Tarjan)."""
    return list(iter_sccs(nodes, succ))


class _Product:
    """The product of the abstract system with the automaton, read like the native
    checker's (bridge/fairness/product.py): on a transition the automaton reads the state
    atoms of the target and the event atoms of the step; the run starts with the ``init``
    pseudo-step into the initial state; a stutter step (no transition) has no event."""

    def __init__(self, space: CounterSpace, aut: _Automaton, atoms: list[Atom],
                 deadline: float | None, max_states: int | None) -> None:
        self.space = space
        self.aut = aut
        self.atoms = atoms
        self._event_bits: dict[str, int] = {}
        for i, atom in enumerate(atoms):
            if isinstance(atom, LtlEvent):
                self._event_bits[atom.name] = self._event_bits.get(atom.name, 0) | (1 << i)
        self.deadline = deadline
        self.max_states = max_states
        self.nodes: list[tuple[AbstractState, int]] = []
        self.index: dict[tuple[AbstractState, int], int] = {}
        self.out: dict[int, list[tuple[int, AbstractStep, bool]]] = {}
        # whether the last ``_fair_subgraph`` answer was a part reported early
        self.reported_early = False
        self._letters: dict[tuple, int] = {}  # per globals: state atoms read only them

    def letter(self, state: AbstractState) -> int:
        hit = self._letters.get(state[0])
        if hit is None:
            env = self.space._env(state, {})
            hit = 0
            for i, atom in enumerate(self.atoms):
                if not isinstance(atom, LtlState):
                    continue
                v = evaluate(atom.expr, env)
                if v is UNKNOWN:
                    raise _Inconclusive(f"atom '{atom.text}' is undecided in a state with ω")
                if v:
                    hit |= 1 << i
            self._letters[state[0]] = hit
        return hit

    def node(self, state: AbstractState, q: int) -> int:
        key = (state, q)
        n = self.index.get(key)
        if n is None:
            n = len(self.nodes)
            if self.max_states is not None and n >= self.max_states:
                raise _Limit("states")
            if self.deadline is not None and (n & 1023) == 0 and time.monotonic() > self.deadline:
                raise _Limit("time")
            self.index[key] = n
            self.nodes.append(key)
        return n

    def event_letter(self, event: str | None) -> int:
        """Return the bits of the event atoms that hold on a step with ``event`` (exact
        name equality; ``base.*`` names an erased event, which the atoms that could
        match were refused for by ``check_event_atoms``)."""
        return 0 if event is None else self._event_bits.get(event, 0)

    def initial(self, state: AbstractState) -> list[int]:
        letter = self.letter(state) | self.event_letter(INIT_EVENT)
        return [self.node(state, dst) for dst, ok, _a in self.aut.edges[self.aut.initial] if letter in ok]

    def edges(self, n: int) -> list[tuple[int, AbstractStep, bool]]:
        hit = self.out.get(n)
        if hit is not None:
            return hit
        state, q = self.nodes[n]
        succ = self.space.successors(state)
        if not succ:
            succ = [(AbstractStep((), None, not _has_omega(state)), state)]  # stutter
        elif not self.space.must_enabled(state):
            # every transition hangs on an ω-undecided guard: some concrete state of this
            # one may have none and stutter (no event), so the abstraction keeps that run
            succ = [*succ, (AbstractStep((), None, False), state)]
        res = []
        for step, target in succ:
            letter = self.letter(target) | self.event_letter(step.event)
            for dst, ok, acc in self.aut.edges[q]:
                if letter in ok:
                    res.append((self.node(target, dst), step, acc))
        self.out[n] = res
        return res
