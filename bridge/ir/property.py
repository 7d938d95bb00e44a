"""Properties (assertions) and LTL formulas with fairness assumptions.

LTL is state/event LTL (paper 000 section 2.1; 001 Def. 2): an atom is a state
predicate (an IR expression, possibly a named proposition) or an event name; an event
atom holds on a step whose event matches. Front-ends parse their LTL syntax (SPIN's or
PAT's) into this small AST; ``automata/ltl.py`` hands it to Spot, whose parser and
simplifier do the rest.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bridge.diagnostics import Span
from bridge.ir.expr import Expr

if TYPE_CHECKING:
    from bridge.ir.model import TransitionSystem

# ---------------------------------------------------------------------------------
# Fairness


class Fairness(enum.Enum):
    """Whole-system fairness notions (000 Defs. 2-4; 002 Defs. 4-5)."""

    NONE = "none"
    WEAK = "weak"  # event-level weak fairness (000 Def. 2)
    STRONG_LOCAL = "strong-local"  # event-level strong fairness (000 Def. 3)
    STRONG_GLOBAL = "strong-global"  # over steps (s, e, s') (000 Def. 4)
    PROCESS_WEAK = "process-weak"  # 002 Def. 4; SPIN's weak fairness
    PROCESS_STRONG = "process-strong"  # 002 Def. 5


# ---------------------------------------------------------------------------------
# LTL


@dataclass(frozen=True, slots=True)
class LtlConst:
    value: bool
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class LtlState:
    """A state atom: the expression is evaluated on the current state. ``text`` is how
    the user wrote it (a proposition name or an inline expression)."""

    expr: Expr
    text: str
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class LtlEvent:
    """An event atom: holds on a step whose event name equals ``name`` (``rule1.0.1``,
    ``init`` for the initial pseudo-step)."""

    name: str
    span: Span | None = None


LTL_UNARY = frozenset({"!", "G", "F", "X"})
LTL_BINARY = frozenset({"&&", "||", "->", "<->", "U", "R", "W"})


@dataclass(frozen=True, slots=True)
class LtlUnary:
    op: str  # one of LTL_UNARY
    operand: Ltl
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class LtlBinary:
    op: str  # one of LTL_BINARY
    left: Ltl
    right: Ltl
    span: Span | None = None


Ltl = LtlConst | LtlState | LtlEvent | LtlUnary | LtlBinary


def ltl_nodes(formula: Ltl) -> list[Ltl]:
    """Return the nodes of ``formula`` in pre-order, left operand before right
    (iterative: formulas built by programs can be deep)."""
    out: list[Ltl] = []
    stack: list[Ltl] = [formula]
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, LtlUnary):
            stack.append(node.operand)
        elif isinstance(node, LtlBinary):
            stack += [node.right, node.left]
    return out


# ---------------------------------------------------------------------------------
# Properties


class PropertyKind(enum.Enum):
    DEADLOCK_FREE = "deadlockfree"  # CSP#: no non-terminated state without steps
    NONTERMINATING = "nonterminating"  # CSP#: no state without steps at all
    DIVERGENCE_FREE = "divergencefree"  # CSP#: no infinite tau-only path
    DETERMINISTIC = "deterministic"  # CSP#: no state with two steps on one event
    REACHES = "reaches"  # CSP#: some reachable state satisfies ``condition``
    SAFETY = "safety"  # Promela: assert statements and invalid end states
    INVARIANT = "invariant"  # ``condition`` holds in every reachable state
    LTL = "ltl"
    # Promela ``never { }`` claim (``TransitionSystem.never``): violated when a fair run
    # visits an accept location infinitely often or the claim reaches its closing brace.
    NEVER = "never"
    # Promela ``progress`` labels: violated when a fair infinite run passes no progress
    # location from some point on (SPIN's non-progress cycle, ``pan -l``). A run that
    # ends (deadlock or termination) is not a non-progress cycle: pan's ``np_`` is false
    # on the stutter step.
    NON_PROGRESS = "non-progress"
    # Promela ``accept`` labels in proctypes (no never claim): violated when a fair run
    # visits a state in which some instance is at an accept location infinitely often
    # (SPIN's acceptance cycle, ``pan -a`` without a claim); a run that ends in such a
    # state stutters there, which is a cycle too (pan's "accept stutter").
    ACCEPTANCE = "acceptance"
    # CSP# ``#assert Impl refines [<F>|<FD>] Spec``: the system (Impl) refines the
    # process ``Property.spec`` in the model ``Property.refinement``.
    REFINES = "refines"


class RefinementModel(enum.Enum):
    """The semantic model of a refinement check (cspsharp.md section 6): PAT's
    ``refines`` (traces), ``refines <F>`` (stable failures), ``refines <FD>``
    (failures-divergence)."""

    TRACES = "T"
    FAILURES = "F"
    FAILURES_DIVERGENCE = "FD"


@dataclass(frozen=True, slots=True)
class Property:
    """One assertion of the model.

    ``target``: the CSP# process the assertion is about (``Sys()``); the front-end
    builds the composition for it. ``optimise``: ``("min"|"max", expr)`` for
    ``reaches X with min(e)``. ``formula``/``formula_text`` for LTL. ``fairness``: a
    fairness notion written with the property (None: take the command line's).
    ``spec``/``refinement``: for REFINES, the specification's own system (built from
    the initial valuation, like the target's) and the semantic model.
    """

    name: str
    kind: PropertyKind
    text: str
    target: str | None = None
    condition: Expr | None = None
    optimise: tuple[str, Expr] | None = None
    formula: Ltl | None = None
    fairness: Fairness | None = None
    number: int = 0
    span: Span | None = None
    spec: TransitionSystem | None = None
    refinement: RefinementModel | None = None
