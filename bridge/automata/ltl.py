"""LTL formulas of the IR handed to Spot: AP binding and translation of the negation.

Every atom of the IR formula (a state predicate ``LtlState`` or an event ``LtlEvent``)
becomes an AP named ``p0``, ``p1``, ... in order of first occurrence; ``AtomBinding``
keeps the map back to the IR atoms. The negated formula is translated by
``spot.translate`` into a transition-based generalized Büchi automaton (TGBA); a
state-based Büchi automaton is used instead only when it is strictly smaller (paper 000
section 3: "we negate it and translate it into an equivalent Büchi automaton").
"""

from __future__ import annotations

from dataclasses import dataclass

from bridge.automata.buchi import Buchi, buchi_from_spot
from bridge.diagnostics import ConfigurationError
from bridge.ir.property import (
    Ltl,
    LtlBinary,
    LtlConst,
    LtlEvent,
    LtlState,
    LtlUnary,
)

Atom = LtlState | LtlEvent

_SPOT_BINARY = {"&&": "&", "||": "|", "->": "->", "<->": "<->", "U": "U", "R": "R", "W": "W"}
_SPOT_UNARY = {"!": "!", "G": "G", "F": "F", "X": "X"}


@dataclass(frozen=True)
class AtomBinding:
    """The APs of a formula: ``atoms[i]`` is bound to AP ``p<i>``."""

    atoms: tuple[Atom, ...]

    @property
    def ap_names(self) -> tuple[str, ...]:
        """Return ``("p0", "p1", ...)``."""
        return tuple(f"p{i}" for i in range(len(self.atoms)))

    def index_of(self, atom: Atom) -> int:
        """Return ``i`` such that ``atom`` (a node of the bound formula) is AP ``p<i>``."""
        key = _atom_key(atom)
        return next(i for i, a in enumerate(self.atoms) if _atom_key(a) == key)

    def describe(self) -> list[str]:
        """Return ``p0 = text`` lines (for traces and ``--json``)."""
        out = []
        for i, atom in enumerate(self.atoms):
            text = atom.text if isinstance(atom, LtlState) else f"event {atom.name}"
            out.append(f"p{i} = {text}")
        return out


def _atom_key(atom: Atom) -> tuple[str, object]:
    if isinstance(atom, LtlEvent):
        return ("event", atom.name)
    # Same text means same predicate within one formula; fall back to the expression
    # itself for hand-built atoms without text.
    return ("state", atom.text or atom.expr)


def bind_atoms(formula: Ltl) -> tuple[str, AtomBinding]:
    """Return the formula in Spot syntax over ``p0..pN`` and the binding of its atoms.

    Iterative (formulas built by programs can be deep).
    """
    keys: dict[tuple[str, object], int] = {}
    atoms: list[Atom] = []
    # Post-order evaluation with an explicit stack: (node, visited_children?)
    out: list[str] = []
    stack: list[tuple[Ltl, bool]] = [(formula, False)]
    while stack:
        node, done = stack.pop()
        if isinstance(node, LtlConst):
            out.append("1" if node.value else "0")
        elif isinstance(node, (LtlState, LtlEvent)):
            key = _atom_key(node)
            if key not in keys:
                keys[key] = len(atoms)
                atoms.append(node)
            out.append(f"p{keys[key]}")
        elif isinstance(node, LtlUnary):
            if node.op not in _SPOT_UNARY:
                raise ConfigurationError(f"unknown LTL operator {node.op!r}")
            if done:
                operand = out.pop()
                out.append(f"{_SPOT_UNARY[node.op]}({operand})")
            else:
                stack.append((node, True))
                stack.append((node.operand, False))
        elif isinstance(node, LtlBinary):
            if node.op not in _SPOT_BINARY:
                raise ConfigurationError(f"unknown LTL operator {node.op!r}")
            if done:
                right = out.pop()
                left = out.pop()
                out.append(f"({left}) {_SPOT_BINARY[node.op]} ({right})")
            else:
                stack.append((node, True))
                stack.append((node.right, False))
                stack.append((node.left, False))
        else:  # pragma: no cover - the Ltl union is closed
            raise ConfigurationError(f"not an LTL node: {node!r}")
    assert len(out) == 1
    return out[0], AtomBinding(tuple(atoms))


@dataclass(frozen=True)
class NegatedAutomaton:
    """The automaton of ``!formula`` with its AP binding and the Spot text translated."""

    buchi: Buchi
    binding: AtomBinding
    spot_text: str
    kind: str  # "TGBA" or "BA"


def translate_formula(formula: Ltl, *, negate: bool = True, level: str = "high") -> NegatedAutomaton:
    """Return the Büchi automaton of ``!formula`` (or of ``formula`` if not ``negate``).

    Translates with ``spot.translate(f, 'TGBA', 'small', level)`` and, for comparison,
    ``'BA'``; keeps the TGBA unless the BA has strictly fewer states (generalized
    acceptance costs nothing in the SCC search: an SCC is accepting when its edges meet
    every set, DESIGN.md section 4).
    """
    import spot

    if level not in ("low", "medium", "high"):
        raise ConfigurationError(f"unknown optimisation level {level!r}; allowed: low, medium, high")
    text, binding = bind_atoms(formula)
    f = spot.formula(text)
    if negate:
        f = spot.formula.Not(f)
    tgba = spot.translate(f, "TGBA", "small", level)
    chosen, kind = tgba, "TGBA"
    if tgba.num_sets() > 1:
        ba = spot.translate(f, "BA", "small", level)
        if ba.num_states() < tgba.num_states():
            chosen, kind = ba, "BA"
    buchi = buchi_from_spot(chosen, binding.ap_names)
    return NegatedAutomaton(buchi, binding, str(f), kind)
