"""The counter abstraction's fair SCC search (paper 002 Lemmas 3-4, Figures 3-4) and
the concretisation of abstract lassos. Part of ``bridge.reductions.counter``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from bridge.ir.property import (
    Fairness,
)
from bridge.reductions._counter_model import (
    AbstractState,
    CounterModel,
)
from bridge.reductions._counter_product import (
    _Product,
    _tarjan,
)
from bridge.reductions._counter_space import AbstractStep, CounterSpace, _has_omega

# ---------------------------------------------------------------------------------
# Fair SCC search (Figs. 3 and 4)

def _fair_subgraph(product: _Product, fairness: Fairness, early: bool = True
                   ) -> tuple[list[int], frozenset[int]] | None:
    """Return the nodes of a fair accepting strongly connected subgraph and the local
    states whose leaving edges it ignores, or None.

    Besides the prunes of Figs. 3-4, a transition that leaves a family local state that
    no transition of the subgraph enters is dropped and the rest re-decomposed: in a
    concrete loop of finitely many processes every count returns to its value, so a
    local state left in the loop is also entered in it. This removes the spurious
    loops of ω (a count that stays ω while processes keep leaving it), and never a
    transition of the image of a concrete loop.
    """
    roots = product.initial(product.space.initial_state())
    Work = tuple[list[int], frozenset[int]]
    product.reported_early = False

    def internal_edges(comp: Iterable[int], members: set[int], banned: frozenset[int]):
        return [
            (n, t, s, a)
            for n in comp
            for t, s, a in product.edges(n)
            if t in members and not _leaves_banned(s, banned)
        ]

    def decompose(nodes: set[int], banned: frozenset[int]) -> list[Work]:
        def succ(n: int) -> list[int]:
            return [t for t, s, _a in product.edges(n) if t in nodes and not _leaves_banned(s, banned)]

        return [(c, banned) for c in _tarjan(sorted(nodes), succ)]

    # Components are judged as the search completes them (an accepting fair one ends
    # the search: a violation is reported before the whole product is built). With
    # ``early``, a part of a component that is already a fair accepting loop is
    # reported before the component is complete (``_early_search``; with a cutoff the
    # caller checks that the part is a real run).
    # Without ``early`` the same depth-first search (same order) reports complete
    # components only, so the early report never explores more than it.
    for complete, top in _early_search(product, roots, fairness, early):
        if not complete:
            product.reported_early = True
            return top, frozenset()
        found = _fair_part(product, fairness, [(top, frozenset())], internal_edges, decompose)
        if found is not None:
            return found
    return None


def _early_search(product: _Product, roots: list[int], fairness: Fairness, early: bool = True
                  ) -> Iterator[tuple[bool, list[int]]]:
    """Yield ``(True, component)`` for each maximal strongly connected component of the
    product as the depth-first search completes it (Tarjan's order), and, with
    ``early``, ``(False, part)`` (then stop) as soon as the explored edges contain a
    strongly connected part that is already a fair accepting loop.

    The partial components are maintained as in Couvreur's SCC-based emptiness check
    (J.-M. Couvreur, FM 1999; Renault, Duret-Lutz, Kordon and Poitrenaud, LPAR 2013:
    live stack and root stack), as the native checker does (bridge/fairness/
    onthefly.py): each root accumulates, over the part's internal edges, whether one is
    accepting, the units they leave (``leave``), the family local states they enter and
    leave (the drained-state rule of ``_fair_subgraph``), and over the part's states the
    units must-enabled in all of them (``always``) and in some (``once``). A part ``S``
    is reported when it has an accepting internal edge, no drained local state, and
    (weak) ``always(S) ⊆ leave(S)`` or (strong) ``once(S) ⊆ leave(S)`` (002 Lemmas 3-4).

    Why every such report is one the complete search would make (so no verdict
    changes): let ``C`` be the maximal component holding ``S``. Every local state ``S``
    leaves it also enters, so no edge of ``S`` leaves a state drained in ``C`` or in a
    part of ``C`` holding ``S``; ``S``'s states are never bad for the strong prune
    (``enabled ⊆ leave(S) ⊆ leave``); so the decomposition of Figs. 3-4 keeps ``S``
    inside one part ``C'``, with ``always(C') ⊆ always(S) ⊆ leave(S) ⊆ leave(C')``
    (weak), ``once``-states all good (strong), and an accepting edge: ``C'`` is
    reported. With exact counts (no cutoff) every abstract fair lasso is a concrete one
    (002 Theorem 1), so the verdict is the same whichever fair part is found first.
    With a cutoff the caller keeps a reported part only when it is a real run (an
    exact lasso, or replayed with exact counts); otherwise the complete search judges
    the components as before (``run_counter_abstraction``), so no verdict changes.

    The edges of each node are taken in the order of ``_search_order`` (edges that
    close a cycle at once first, then round robin over the units): any order is a
    depth-first search, and a loop in place (LE's idle Guesser, 002 section 6) is then
    reported after a few nodes instead of after the search has gone down every
    process's first step.
    """
    space = product.space
    pos: dict[int, int] = {}  # live position; -1: its component is complete
    live: list[int] = []
    # root entries: [live position, accepting, leave, entered, left, always, once,
    # the step and acceptance of the tree edge into the part's first node]
    rs: list[list[Any]] = []

    def add_edge(entry: list[Any], step: AbstractStep, acc: bool) -> None:
        entry[1] = entry[1] or acc
        entry[2].update(step.leaves)
        entry[3].update(step.enters)
        entry[4].update(i for kind, i in step.leaves if kind == "L")

    def fair(entry: list[Any]) -> bool:
        if not entry[1] or not entry[4] <= entry[3]:
            return False
        if fairness is Fairness.PROCESS_WEAK:
            return entry[5] <= entry[2]
        if fairness is Fairness.PROCESS_STRONG:
            return entry[6] <= entry[2]
        return True

    work: list[tuple[int, Iterator[tuple[int, AbstractStep, bool]]]] = []

    nodes = product.nodes
    # without fairness any accepting cycle will do: a search down one unit's steps
    # closes one soonest; a fair one must engage every unit that stays enabled
    round_robin = fairness is not Fairness.NONE

    def push(w: int, step: AbstractStep | None, acc: bool) -> None:
        edges = product.edges(w)
        here = nodes[w][0]
        enabled = space.must_enabled(here)
        if len(edges) > 1:
            edges = _search_order(edges, pos, nodes, here, round_robin and step is not None
                                  and step.leaves and step.leaves[0] or None)
        pos[w] = len(live)
        live.append(w)
        rs.append([pos[w], False, set(), set(), set(), set(enabled), set(enabled), step, acc])
        work.append((w, iter(edges)))

    for root in roots:
        if root in pos:
            continue
        push(root, None, False)
        while work:
            v, it = work[-1]
            advanced = False
            for t, step, acc in it:
                p = pos.get(t)
                if p is None:
                    push(t, step, acc)
                    advanced = True
                    break
                if p < 0:
                    continue  # its component is complete
                while rs[-1][0] > p:  # merge the parts above t's into t's
                    top = rs.pop()
                    below = rs[-1]
                    below[1] = below[1] or top[1]
                    below[2] |= top[2]
                    below[3] |= top[3]
                    below[4] |= top[4]
                    below[5] &= top[5]
                    below[6] |= top[6]
                    add_edge(below, top[7], top[8])
                add_edge(rs[-1], step, acc)
                if early and fair(rs[-1]):
                    yield False, live[rs[-1][0]:]
                    return
            if advanced:
                continue
            work.pop()
            if rs[-1][0] == pos[v]:
                start = rs.pop()[0]
                comp = live[start:][::-1]
                del live[start:]
                for n in comp:
                    pos[n] = -1
                yield True, comp


def _search_order(edges: list[tuple[int, AbstractStep, bool]], pos: dict[int, int],
                  nodes: list[tuple[AbstractState, int]], here: AbstractState,
                  last: tuple[str, int] | None) -> list[tuple[int, AbstractStep, bool]]:
    """Return ``edges`` (of a node in abstract state ``here``, entered by a step of unit
    ``last``) in the order the depth-first search takes them: edges to live nodes
    first (they close cycles at once), then edges whose target keeps the abstract
    state (a unit looping in place: the next node's own edges close a cycle at once),
    then the rest, round robin when ``last`` is given: the steps of the units after
    ``last`` first (family
    local states by id, then the other instances; as the native checker's
    ``ORDER_ROUND_ROBIN``), else in their original order. A fair loop must engage
    every unit that stays enabled, and a search that goes down one unit's steps first
    meets such loops late (stack N = 10 under process-weak fairness: 233863 product
    states before the report, 3798 round robin)."""
    keyed = []
    last_rank = -1 if last is None else _unit_rank(last)
    for k, e in enumerate(edges):
        t = e[0]
        p = pos.get(t)
        if p is not None and p >= 0:
            group = 0
        elif p is None and nodes[t][0] == here:
            group = 1
        else:
            group = 2
        leaves = e[1].leaves
        turn = (_unit_rank(leaves[0]) - last_rank - 1) % _ROUND if leaves else _ROUND
        keyed.append((group, turn, k))
    keyed.sort()
    return [edges[k] for _g, _t, k in keyed]


_ROUND = 1 << 40  # more than any unit's rank


def _unit_rank(unit: tuple[str, int]) -> int:
    """Return the round-robin rank of a unit: family local states, then instances."""
    kind, i = unit
    return i if kind == "L" else (1 << 30) + i


def _fair_part(product: _Product, fairness: Fairness, pending: list[tuple[list[int], frozenset[int]]],
               internal_edges, decompose) -> tuple[list[int], frozenset[int]] | None:
    """Return a fair accepting part of the components in ``pending`` (Figs. 3-4 and the
    drained-state rule of ``_fair_subgraph``), or None."""
    space = product.space
    while pending:
        comp, banned = pending.pop()
        members = set(comp)
        internal = internal_edges(comp, members, banned)
        if not internal or not any(a for *_x, a in internal):
            continue  # trivial or not accepting (a subgraph of it is not accepting either)
        entered: set[int] = set()
        left: set[int] = set()
        for _n, _t, s, _a in internal:
            entered.update(s.enters)
            left.update(i for kind, i in s.leaves if kind == "L")
        drained = frozenset(left - entered)
        if drained:
            pending.extend(decompose(members, banned | drained))
            continue
        if fairness is Fairness.NONE:
            return comp, banned
        leave: set[tuple[str, int]] = set()
        for _n, _t, s, _a in internal:
            leave.update(s.leaves)
        enabled = {n: space.must_enabled(product.nodes[n][0]) for n in comp}
        if fairness is Fairness.PROCESS_WEAK:
            always = frozenset.intersection(*enabled.values()) if enabled else frozenset()
            if always <= leave:
                return comp, banned
            continue  # Lemma 3: no subgraph of this MSCC is weakly fair
        bad = {n for n in comp if not enabled[n] <= leave}
        if not bad:
            return comp, banned
        rest = members - bad
        if rest:
            pending.extend(decompose(rest, banned))
    return None


def _leaves_banned(step: AbstractStep, banned: frozenset[int]) -> bool:
    return bool(banned) and any(kind == "L" and i in banned for kind, i in step.leaves)


def _lasso_exact(
    product: _Product, comp: list[int], banned: frozenset[int], roots: list[int]
) -> bool:
    """True if the prefix into ``comp`` and every transition inside it are exact."""
    members = set(comp)
    # BFS for a prefix
    parent: dict[int, tuple[int, AbstractStep] | None] = {r: None for r in roots}
    queue = list(roots)
    found = None
    while queue:
        n = queue.pop(0)
        if n in members:
            found = n
            break
        for t, s, _a in product.edges(n):
            if t not in parent:
                parent[t] = (n, s)
                queue.append(t)
    if found is None:
        return False
    n = found
    while parent[n] is not None:
        prev, step = parent[n]  # type: ignore[misc]
        if not step.exact or _has_omega(product.nodes[prev][0]):
            return False
        n = prev
    for m in comp:
        if _has_omega(product.nodes[m][0]):
            return False
        for t, s, _a in product.edges(m):
            if t in members and not s.exact and not _leaves_banned(s, banned):
                return False
    return True


def _abstract_loop(product: _Product, comp: list[int], banned: frozenset[int]) -> list[tuple[int, int, AbstractStep]] | None:
    """Return a cycle of ``comp`` through an accepting edge, as ``(source, target, step)``."""
    members = set(comp)
    adj = {
        n: [(t, s, a) for t, s, a in product.edges(n) if t in members and not _leaves_banned(s, banned)]
        for n in comp
    }
    for n in comp:
        for t, s, a in adj[n]:
            if not a:
                continue
            # BFS from t back to n
            parent: dict[int, tuple[int, AbstractStep] | None] = {t: None}
            queue = [t]
            while queue and n not in parent:
                u = queue.pop(0)
                for v, st, _a in adj[u]:
                    if v not in parent:
                        parent[v] = (u, st)
                        queue.append(v)
            if n not in parent:
                continue
            path: list[tuple[int, int, AbstractStep]] = []
            cur = n
            while parent[cur] is not None:
                u, st = parent[cur]  # type: ignore[misc]
                path.append((u, cur, st))
                cur = u
            path.reverse()
            return [(n, t, s)] + path
    return None


def _concretise(
    model: CounterModel,
    abstract: _Product,
    comp: list[int],
    banned: frozenset[int],
    deadline: float | None,
    max_states: int | None,
) -> bool:
    """Return True if an exact lasso (finitely many processes, exact counts) follows the
    abstract accepting cycle of ``comp``: a depth-first search of the exact product,
    restricted to nodes whose abstraction can reach the cycle, finds an exact node over
    the cycle's first node, from which the cycle is replayed step by step until the
    exact node repeats. Used for fairness none (any accepting cycle is a
    counterexample)."""
    loop = _abstract_loop(abstract, comp, banned)
    if loop is None:
        return False
    entry = loop[0][0]
    # abstract nodes that can reach the entry (backward over explored edges)
    back: dict[int, list[int]] = {}
    for n in list(abstract.out):
        for t, _s, _a in abstract.out[n]:
            back.setdefault(t, []).append(n)
    region = {entry}
    queue = [entry]
    while queue:
        u = queue.pop()
        for v in back.get(u, ()):
            if v not in region:
                region.add(v)
                queue.append(v)
    aspace = abstract.space
    exact = CounterSpace(model, None, False, share=aspace)
    product = _Product(exact, abstract.aut, abstract.atoms, deadline, max_states)

    def alpha(node: int) -> int | None:
        state, q = product.nodes[node]
        return abstract.index.get((aspace.abstract(state), q))

    start = None
    seen: set[int] = set()
    stack = [n for n in product.initial(exact.initial_state()) if alpha(n) in region]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if alpha(n) == entry:
            start = n
            break
        for t, _s, _a in reversed(product.edges(n)):
            if t not in seen and alpha(t) in region:
                stack.append(t)
    if start is None:
        return False
    visits: dict[int, int] = {}
    cur = start
    for _round in range(len(model.families[0].members) + 2):
        if cur in visits:
            return True  # the exact walk repeats: a lasso along accepting cycles
        visits[cur] = _round
        for _src, tgt, step in loop:
            nxt = None
            for t, s, _a in product.edges(cur):
                if s.leaves == step.leaves and s.event == step.event and alpha(t) == tgt:
                    nxt = t
                    break
            if nxt is None:
                return False
            cur = nxt
    return False
