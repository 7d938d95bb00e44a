"""A frozen, pure-Python view of a Spot transition-based generalized Büchi automaton.

The fair SCC search never talks to Spot: it sees a ``Buchi`` whose edges carry a
compiled condition over atomic propositions and a bit mask of acceptance sets (DESIGN.md
section 4; STYLE.md section 2, "data kept apart from algorithms", as in Spot's own
``twa_graph``). A *letter* is an ``int`` bit mask over the automaton's APs: bit ``i`` is
set when AP ``p<i>`` holds. Acceptance is generalized Büchi on edges: a run is accepting
when it takes, infinitely often, an edge of every acceptance set (``num_sets == 0``: every
infinite run is accepting). State-based automata (Spot's ``BA``) fit the same shape,
because Spot stores a state's acceptance on each of its outgoing edges.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

# A condition is a decision diagram over AP indices, compiled from Spot's BDD:
#   True / False, or (ap_index, if_true, if_false).
Condition = bool | tuple[int, "Condition", "Condition"]


def evaluate_condition(condition: Condition, letter: int) -> bool:
    """Return whether ``condition`` holds for ``letter`` (bit ``i`` = AP ``i`` true)."""
    node = condition
    while not isinstance(node, bool):
        ap, high, low = node
        node = high if (letter >> ap) & 1 else low
    return node


def format_condition(condition: Condition, ap_names: Sequence[str]) -> str:
    """Return a readable Boolean formula for ``condition`` (``p0 & !p1 | ...``)."""
    paths: list[str] = []
    stack: list[tuple[Condition, tuple[str, ...]]] = [(condition, ())]
    while stack:
        node, lits = stack.pop()
        if node is True:
            paths.append(" & ".join(lits) if lits else "1")
        elif node is False:
            continue
        else:
            ap, high, low = node
            stack.append((low, lits + (f"!{ap_names[ap]}",)))
            stack.append((high, lits + (ap_names[ap],)))
    if not paths:
        return "0"
    return " | ".join(paths)


@dataclass(frozen=True, slots=True)
class BuchiEdge:
    """An edge ``source -condition-> target`` in acceptance sets ``acceptance`` (mask)."""

    source: int
    target: int
    condition: Condition
    acceptance: int


@dataclass(frozen=True)
class Buchi:
    """A transition-based generalized Büchi automaton over letters (AP bit masks).

    ``edges[q]`` lists the edges leaving state ``q``; ``initial`` is the initial state;
    ``num_sets`` the number of acceptance sets (``all_sets`` is their full mask).
    ``ap_names`` are the AP names (``p0``.. in order of their bit). ``successors`` caches
    the enabled edges per (state, letter), so each condition is walked once per letter.
    """

    num_states: int
    initial: int
    edges: tuple[tuple[BuchiEdge, ...], ...]
    num_sets: int
    ap_names: tuple[str, ...]
    acceptance_text: str = ""
    _cache: dict[int, tuple[tuple[int, int], ...]] = field(
        default_factory=dict, compare=False, repr=False
    )

    @property
    def all_sets(self) -> int:
        """Return the mask with every acceptance set."""
        return (1 << self.num_sets) - 1

    @property
    def num_edges(self) -> int:
        """Return the number of edges."""
        return sum(len(out) for out in self.edges)

    def successors(self, state: int, letter: int) -> tuple[tuple[int, int], ...]:
        """Return ``(target, acceptance mask)`` of every edge of ``state`` enabled by
        ``letter`` (cached)."""
        key = letter * self.num_states + state
        hit = self._cache.get(key)
        if hit is None:
            hit = tuple(
                (e.target, e.acceptance)
                for e in self.edges[state]
                if evaluate_condition(e.condition, letter)
            )
            self._cache[key] = hit
        return hit

    def describe(self) -> str:
        """Return a HOA-like listing (for debugging and ``bridge show``)."""
        lines = [
            f"States: {self.num_states}  Start: {self.initial}  "
            f"Acceptance: {self.num_sets} {self.acceptance_text}",
            f"AP: {' '.join(self.ap_names)}",
        ]
        for q, out in enumerate(self.edges):
            lines.append(f"State {q}")
            for e in out:
                sets = [str(i) for i in range(self.num_sets) if (e.acceptance >> i) & 1]
                acc = f" {{{' '.join(sets)}}}" if sets else ""
                lines.append(f"  [{format_condition(e.condition, self.ap_names)}] {e.target}{acc}")
        return "\n".join(lines)


def buchi_from_spot(aut: object, ap_names: Sequence[str]) -> Buchi:
    """Return the frozen view of Spot automaton ``aut`` whose APs are named ``ap_names``.

    Preconditions: ``aut`` has generalized Büchi (or trivially true) acceptance and a
    single, non-universal initial state; every AP of ``aut`` is in ``ap_names`` (an AP
    of ``ap_names`` missing from ``aut`` is simply never read). BDD conditions are
    compiled into pure-Python decision diagrams by walking the BDD nodes (Spot's BuDDy
    ``bdd_var``/``bdd_high``/``bdd_low``).
    """
    import buddy  # imported lazily: only the translation needs Spot

    acc = aut.acc()  # type: ignore[attr-defined]
    if not (acc.is_t() or acc.is_generalized_buchi()):
        raise ValueError(f"expected generalized Büchi acceptance, got {acc}")
    bdict = aut.get_dict()  # type: ignore[attr-defined]
    var_to_ap: dict[int, int] = {}
    for ap in aut.ap():  # type: ignore[attr-defined]
        name = ap.ap_name()
        if name not in ap_names:
            raise ValueError(f"automaton AP {name} is not bound to an atom")
        var_to_ap[bdict.varnum(ap)] = list(ap_names).index(name)

    memo: dict[int, Condition] = {}

    def compile_bdd(root: object) -> Condition:
        # Iterative post-order walk over the BDD (no recursion on deep BDDs).
        stack = [root]
        while stack:
            b = stack[-1]
            bid = b.id()  # type: ignore[attr-defined]
            if bid in memo:
                stack.pop()
                continue
            if b == buddy.bddtrue:
                memo[bid] = True
                stack.pop()
                continue
            if b == buddy.bddfalse:
                memo[bid] = False
                stack.pop()
                continue
            hi = buddy.bdd_high(b)
            lo = buddy.bdd_low(b)
            pending = [c for c in (hi, lo) if c.id() not in memo]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            memo[bid] = (var_to_ap[buddy.bdd_var(b)], memo[hi.id()], memo[lo.id()])
        return memo[root.id()]  # type: ignore[attr-defined]

    n = aut.num_states()  # type: ignore[attr-defined]
    edges: list[tuple[BuchiEdge, ...]] = []
    for q in range(n):
        out = []
        for e in aut.out(q):  # type: ignore[attr-defined]
            mask = 0
            for s in e.acc.sets():
                mask |= 1 << s
            out.append(BuchiEdge(q, e.dst, compile_bdd(e.cond), mask))
        edges.append(tuple(out))
    init = aut.get_init_state_number()  # type: ignore[attr-defined]
    return Buchi(
        num_states=n,
        initial=init,
        edges=tuple(edges),
        num_sets=aut.num_sets(),  # type: ignore[attr-defined]
        ap_names=tuple(ap_names),
        acceptance_text=str(acc.get_acceptance()),
    )


def universal_buchi(ap_names: Sequence[str] = ()) -> Buchi:
    """Return the one-state automaton accepting every infinite word (no acceptance
    sets): its product with a system is the system itself, which turns the LTL search
    into the plain feasibility check of paper 000 section 3."""
    return Buchi(
        num_states=1,
        initial=0,
        edges=((BuchiEdge(0, 0, True, 0),),),
        num_sets=0,
        ap_names=tuple(ap_names),
        acceptance_text="t",
    )
