"""Check a Promela ``never { }`` claim under fairness: ``check_never``.

The claim (``TransitionSystem.never``, a ``Process`` kept as parsed) is read as a
state-based Büchi automaton over the model's state and searched with the same product
and fair SCC search as LTL (``product.py``, ``emptiness.py``; paper 000 sections 3-4):

* automaton states are the claim's locations; the initial state is its initial location;
* atomic propositions are the distinct guard expressions of the claim's edges, each
  compiled with ``space.predicate``; an edge without guard is ``true``; an ``else``
  edge (``ElseGuard``) holds when none of its sibling guards does;
* acceptance (one set): the edges leaving a location with an ``accept`` label (SPIN:
  the claim visits an accept state infinitely often; Spot's convention for state-based
  automata puts a state's acceptance on its outgoing edges, as ``automata/never.py``);
* the claim's terminal location (its closing brace) gets an accepting ``true``
  self-loop: a claim that terminates has matched, so every fair continuation of the run
  violates the property (SPIN: "claim terminated" / "never claim violated"). Such a
  verdict says ``never claim terminated`` in its reason;
* a claim with no enabled edge blocks: that run is dropped (no violation).

SPIN's convention, which the product already follows: the claim moves synchronously
with the system and reads the *current* state before each system step, starting with the
initial state. So the claim reads ``s0, s1, s2, ...``, which is exactly the sequence
``product.py`` feeds the automaton (the initial pseudo-step reads ``s0``; the step
``s_i -> s_{i+1}`` reads ``s_{i+1}``). Deadlocked or terminated system states stutter as
for LTL (SPIN's stutter extension). Fairness (notions and annotations) applies exactly
as in ``check_ltl``; without fairness the verdict agrees with ``pan -a``.

* an ``assert(c)`` of the claim (SPIN checks it when the claim takes that step) is the
  edge with ``c`` added to its condition, plus an edge under ``!c`` to a violation state
  with an accepting ``true`` self-loop, reported like the closing brace.

Not supported (rejected with ``UnsupportedError`` naming the construct and its
location): other claim statements with side effects or channel operations (``printf``,
assignments, sends/receives) and claim-local variables.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

from bridge.automata.buchi import Buchi, BuchiEdge, Condition
from bridge.diagnostics import ConfigurationError, UnsupportedError
from bridge.fairness.check import (
    FairSearch,
    LtlOptions,
    _lasso,
    _unused_annotations,
    _validate,
    automaton_statistics,
    describe_fairness,
    predicate_letter,
    run_fair_search,
)
from bridge.fairness.emptiness import FairLasso, SearchStatistics
from bridge.fairness.product import Product
from bridge.ir.expr import AssertStmt, ElseGuard, Expr
from bridge.ir.model import Process, TransitionSystem
from bridge.ir.property import Fairness, Property, PropertyKind
from bridge.ir.verdict import Outcome, Verdict
from bridge.semantics.successors import StateSpace, StateVector


class ClaimAutomaton:
    """The Büchi view of a never claim: ``buchi``, the guard expressions bound to its
    APs (``atoms[i]`` is AP ``i``) and the automaton state of the terminal location
    (None when the claim cannot terminate)."""

    def __init__(self, buchi: Buchi, atoms: tuple[Expr, ...], terminal: tuple[int, ...],
                 failed: int | None = None) -> None:
        self.buchi = buchi
        self.atoms = atoms
        self.terminal = terminal
        self.failed = failed  # the automaton state entered when an assert of the claim fails


def _not_all(aps: list[int]) -> Condition:
    """Return the condition "none of ``aps`` holds" as a decision diagram."""
    node: Condition = True
    for ap in sorted(set(aps), reverse=True):
        node = (ap, False, node)
    return node


def _all(aps: tuple[int, ...]) -> Condition:
    """Return the condition "every one of ``aps`` holds"."""
    node: Condition = True
    for ap in sorted(set(aps), reverse=True):
        node = (ap, node, False)
    return node


def _not_every(aps: tuple[int, ...]) -> Condition:
    """Return the condition "some one of ``aps`` fails"."""
    node: Condition = False
    for ap in sorted(set(aps), reverse=True):
        node = (ap, node, True)
    return node


def _and(a: Condition, b: Condition) -> Condition:
    """Return the conjunction of two conditions (``b`` hung under every true leaf of
    ``a``; evaluation reads the nodes in any order)."""
    if a is True:
        return b
    if a is False:
        return False
    ap, hi, lo = a
    return (ap, _and(hi, b), _and(lo, b))


def claim_automaton(claim: Process) -> ClaimAutomaton:
    """Return the Büchi view of never claim ``claim`` (SPIN never-claim semantics, see
    the module docstring; paper 000 section 3.2 reads the claim as the automaton of the
    negated property). Raises ``UnsupportedError`` for statements with side effects."""
    if claim.locals:
        v = claim.locals[0]
        raise UnsupportedError.at(
            getattr(v, "span", None) or claim.span, f"local variable '{v.name}' in a never claim"
        )
    atoms: list[Expr] = []
    index: dict[Expr, int] = {}
    loc_index = {loc.id: k for k, loc in enumerate(claim.locations)}
    out: list[list[BuchiEdge]] = [[] for _ in claim.locations]
    # an assert of the claim: the edge goes on where its conditions hold, and to a
    # violation state (an accepting true loop, like the closing brace) where one fails
    failed = len(claim.locations)
    asserted: dict[int, tuple[int, ...]] = {}
    for k, e in enumerate(claim.edges):
        if e.comm is None and e.effect and all(isinstance(x, AssertStmt) for x in e.effect):
            for x in e.effect:
                if x.cond not in index:
                    index[x.cond] = len(atoms)
                    atoms.append(x.cond)
            asserted[k] = tuple(index[x.cond] for x in e.effect)
    for k, e in enumerate(claim.edges):
        if (e.comm is not None or e.effect) and k not in asserted:
            what = e.text or "a statement with side effects"
            raise UnsupportedError.at(
                e.span or claim.span,
                f"never claim statement '{what}' has side effects or a channel operation "
                "(only side-effect-free conditions are supported in never claims)",
            )
        if e.guard is not None and not isinstance(e.guard, ElseGuard):
            if e.guard not in index:
                index[e.guard] = len(atoms)
                atoms.append(e.guard)
    for k, e in enumerate(claim.edges):
        src = loc_index[e.source]
        accepting = 1 if claim.locations[src].accept else 0
        if e.guard is None:
            cond: Condition = True
        elif isinstance(e.guard, ElseGuard):
            siblings = [s for s in claim.edges if s.source == e.source and s is not e]
            if any(s.guard is None for s in siblings):
                cond = False
            else:
                cond = _not_all([index[s.guard] for s in siblings if not isinstance(s.guard, ElseGuard)])
        else:
            cond = (index[e.guard], True, False)
        if cond is False:
            continue
        checks = asserted.get(k, ())
        if checks:
            out[src].append(BuchiEdge(src, failed, _and(cond, _not_every(checks)), accepting))
            cond = _and(cond, _all(checks))
        out[src].append(BuchiEdge(src, loc_index[e.target], cond, accepting))
    terminal = tuple(k for k, loc in enumerate(claim.locations) if loc.terminal)
    if asserted:
        out.append([])
        terminal += (failed,)
    for k in terminal:
        out[k] = [BuchiEdge(k, k, True, 1)]
    buchi = Buchi(
        num_states=len(out),
        initial=loc_index[claim.initial],
        edges=tuple(tuple(o) for o in out),
        num_sets=1,
        ap_names=tuple(f"p{i}" for i in range(len(atoms))),
        acceptance_text="Inf(0)",
    )
    return ClaimAutomaton(buchi, tuple(atoms), terminal, failed if asserted else None)


def _state_letter(space: Any, atoms: tuple[Expr, ...]) -> Callable[[StateVector], int]:
    return predicate_letter([(1 << i, space.predicate(a)) for i, a in enumerate(atoms)])


def _no_events(_event: str | None) -> int:
    return 0


def check_never(
    system: TransitionSystem,
    prop: Property,
    options: LtlOptions | None = None,
    space: StateSpace | None = None,
    search: Callable[..., FairSearch] | None = None,
) -> Verdict:
    """Return the verdict of the model's never claim (``prop.kind is NEVER``) under
    fairness.

    HOLDS when no fair run is accepted by the claim; VIOLATED with a ``Lasso`` when a
    fair run visits an accept location infinitely often (reason ``acceptance cycle``) or
    lets the claim reach its closing brace (reason ``never claim terminated``, the loop
    being a fair continuation); VIOLATED with a ``Trace`` on a model error met during
    the search; UNKNOWN when ``max_states``/``timeout`` stop the search. Paper 000
    section 3.2 (product with the automaton of the negation) and Fig. 5 (fair SCCs);
    SPIN's never-claim semantics as in the module docstring. ``space`` and ``search``
    (another engine's fair search: the compiled engine's) as in ``check_ltl``.
    """
    started = time.monotonic()
    if options is None:
        options = LtlOptions()
    _validate(options)
    if prop.kind is not PropertyKind.NEVER:
        raise ConfigurationError(f"check_never checks never claims; {prop.name!r} is {prop.kind.value}")
    if system.never is None:
        raise ConfigurationError(f"model {system.name!r} has no never claim")
    claim = claim_automaton(system.never)
    from bridge.semantics.statespace import build_state_space

    if space is None:
        space = build_state_space(system)

    def part(product: Product, node: int) -> str:
        if product.node_q[node] == claim.failed:
            return "assertion of the never claim violated"
        if product.node_q[node] in claim.terminal:
            return "never claim terminated (the claim reached its closing brace)"
        return "acceptance cycle"

    def reason(product: Product, found: FairLasso) -> str:
        if all(product.steps[k].stutter for _u, k, _v in found.loop) \
                and product.node_q[found.loop_start] not in claim.terminal:
            return "acceptance cycle (the run ends: its last state stutters)"
        return part(product, found.loop_start)

    notes = ("never claim read with SPIN's convention: it reads each state before the "
             "system step, starting with the initial state",)
    return check_automaton(system, prop, options, space, claim.buchi,
                           _state_letter(space, claim.atoms), "never claim", notes, reason,
                           started, search, part)


def check_automaton(
    system: TransitionSystem,
    prop: Property,
    options: LtlOptions,
    space: Any,
    buchi: Buchi,
    state_letter: Callable[[StateVector], int],
    automaton: str,
    notes: tuple[str, ...],
    reason: Callable[[Product, FairLasso], str],
    started: float,
    search: Callable[..., FairSearch] | None = None,
    part_reason: Callable[[Product, int], str] | None = None,
) -> Verdict:
    """Return the verdict of the fair search of ``space`` x ``buchi`` (an automaton over
    state letters only, written by hand: a never claim, SPIN's non-progress or
    acceptance automaton), under the fairness of ``options`` or ``prop``.

    HOLDS without a fair accepting lasso; VIOLATED with the lasso (``reason`` says
    why) or with the trace of a model error; UNKNOWN at a limit (paper 000 Fig. 5 by
    ``run_fair_search``). ``automaton`` names the automaton in the statistics,
    ``notes`` open the verdict's notes. ``search``: the fair search to run instead of
    ``run_fair_search`` (``check_ltl``'s contract: the compiled engine's, whose
    statistics are the verdict's). ``part_reason``: what a fair part starting at a
    product node shows, for a part the compiled engine checked as a whole (a strong
    globally fair part too large to print a loop, ``api._compiled._certified_part``): its reason
    names the part "acceptance cycle", replaced by this.
    """
    fairness = options.fairness if options.fairness is not None else (prop.fairness or Fairness.NONE)
    stats = SearchStatistics()
    fair_name = describe_fairness(fairness, options, system)

    engine: Any = None

    def verdict(outcome: Outcome, why: str = "", product: Product | None = None,
                extra_notes: tuple[str, ...] = (), **kw: Any) -> Verdict:
        st = automaton_statistics(product, buchi, automaton, stats, started, engine)
        return Verdict(model=system.name, property=prop.name, outcome=outcome, reason=why,
                       fairness=fair_name, statistics=st, notes=notes + extra_notes, **kw)

    if options.timeout is not None:  # the whole check's, as check_ltl (never 0)
        options = dataclasses.replace(
            options, timeout=max(1e-3, options.timeout - (time.monotonic() - started)))
    found_by = (search or run_fair_search)(space, system, buchi, state_letter, _no_events,
                                           fairness, options, stats)
    engine = found_by.statistics
    product, condition, found = found_by.product, found_by.condition, found_by.found
    if found_by.early is not None:
        outcome, why, kw = found_by.early
        head = "acceptance cycle"
        if found_by.part_start is not None and part_reason is not None \
                and product is not None and why.startswith(head + ":"):
            why = part_reason(product, found_by.part_start) + why[len(head):]
        return verdict(outcome, why, product, **kw)
    assert product is not None and condition is not None
    unused = _unused_annotations(product, options, found_by.annotations_seen)
    if found is None:
        return verdict(Outcome.HOLDS, "", product, extra_notes=unused)
    lasso = _lasso(space, product, condition, found)
    return verdict(Outcome.VIOLATED, reason(product, found), product, lasso=lasso,
                   extra_notes=unused)


__all__ = ["ClaimAutomaton", "check_automaton", "check_never", "claim_automaton"]
