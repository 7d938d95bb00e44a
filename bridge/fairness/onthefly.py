"""The on-the-fly emptiness check: report a fair accepting cycle as soon as the explored
edges contain one (DESIGN.md sections 4 and 7).

Algorithm. A depth-first search of the product that maintains the partial strongly
connected components of the explored graph, as in Couvreur's SCC-based emptiness check
for generalized Büchi automata (J.-M. Couvreur, "On-the-fly verification of linear
temporal logic", FM'99) in the form of Renault, Duret-Lutz, Kordon and Poitrenaud
("Three SCC-based emptiness checks for generalized Büchi automata", LPAR 2013: the
Tarjan-based live stack and root stack; their union-find variant and Bloemen, Laarman
and van de Pol, "Multi-core on-the-fly SCC decomposition", PPoPP 2016, merge the same
partial components with a union-find structure) and Spot's ``couvreur99`` / ``ec``
implementations. On top of the acceptance marks, each partial component accumulates
what the fairness notion needs (paper 000 Figs. 7-9, 11; 002 section 4), so that a part
that is already a *fair* accepting loop is reported before its component is complete.
When no early report fires, the complete component is judged by the Fig. 5 recursion
(``components.search_component``) exactly as before, so no verdict depends on it.

Data (flat arrays; node ids are dense ints from the product):

* ``pos[n]``: ``UNSEEN`` (-1), ``DEAD`` (-2: its component is complete), or the
  position of ``n`` in ``live``. ``live``: the nodes of unfinished components, in
  visiting order (Tarjan's stack). ``pos[n] >= 0`` is also what the product's partial
  order reduction reads as "on the stack" (the proviso C3).
* DFS stack, one frame per node on the DFS path: ``dfs_node``, ``dfs_step`` (the step
  of the tree edge that reached it, -1 for an initial node: the frames spell a path
  from an initial node, used as the counterexample's prefix and as the trace to a model
  error), ``dfs_base`` (where the node's pending edges start on the edge stack) and,
  for strong global fairness,
  ``dfs_sat`` (bit ``j`` set: the node's ``j``-th distinct system step is taken by an
  edge inside its part).
* Edge stack: the pending edges of the frames, as ``e_dst``, ``e_step``, ``e_acc`` and
  (strong global) ``e_sys``, the edge's system-step index. A frame's pending edges lie
  above ``dfs_base`` of its frame and below the next frame's; the first edge is on top.
* Root stack, one entry per partial component (part) on the DFS path, bottom to top:
  ``r_pos`` (``live`` position of the part's first node: the part is
  ``live[r_pos[i] : r_pos[i + 1]]``, the top part runs to the end of ``live``),
  ``r_depth`` (DFS depth of that node), ``r_acc`` (acceptance marks of the part's
  internal edges), ``r_cyc`` (the part has an internal edge), ``r_in_acc`` /
  ``r_in_step`` / ``r_in_sys`` (the tree edge that entered the part's first node: it
  becomes internal when the part merges into the one below), and the fairness facts:
  ``r_all`` (items enabled in every node of the part), ``r_some`` (items enabled in some
  node), ``r_eng`` (items engaged by its internal edges), ``r_miss`` (strong global:
  how many (node, distinct system step) pairs of the part lack an internal edge).

Items are bit positions in Python ints used as bitsets (a C port: fixed bitsets of
``ceil(items / 64)`` words, items being interned as they are met): actions for event
fairness, processes for process fairness, annotation units for annotations
(``conditions.py``: ``step_items`` / ``item_mark``). Three masks say what the notion
requires: ``weak`` items (enabled in every state => engaged), ``strong`` items (enabled
in some state => engaged), ``always`` items (engaged).

Steps:

1. *push(w, entering edge)*: ``pos[w] = len(live)``; append ``w`` to ``live``; expand
   ``w`` (the product computes its edges, deciding the POR proviso against the DFS
   stack, ``on_path``: every cycle of the explored graph has a back edge, an edge to a
   node on the DFS stack when it is explored, and the stack when ``w``'s edges are
   explored is the one when it is expanded, so a node whose kept ample set has no
   target on the stack closes no cycle and the source of every back edge is expanded
   fully: the cycle condition C3, as SPIN's stack proviso);
   push a DFS frame (before the expansion, so that a model error in it has its path)
   and a root entry whose ``r_all = r_some`` are the items enabled in
   ``w``'s system state, ``r_eng = 0``, ``r_acc = 0``, ``r_miss`` = the number of
   distinct system steps of ``w``'s state. Then each edge of ``w`` whose target is
   already live is processed at once (step 2; a self-loop is one), an edge to a dead
   node is dropped, and the edges to unseen nodes go on the edge stack, in reverse so
   that the first is on top. (Processing an edge earlier than a plain DFS would is
   allowed: any order of ``w``'s edges is a DFS order; it reports earlier and keeps
   fewer pending edges.)
2. *merge(edge v -> w, w live)*, ``v`` being the node on top of the DFS stack: pop the
   root entries above ``w``'s part (``r_pos[top] > pos[w]``), folding each into the one
   below it: marks and engaged items of the part and of its entering edge are OR-ed,
   ``r_all`` AND-ed, ``r_some`` OR-ed, ``r_miss`` added, and the entering edge counts
   for its source's system step (the source is the frame just below the part's first
   node, ``dfs_sat[r_depth - 1]``). Then the edge ``v -> w`` itself is added to the top
   entry the same way, and ``r_cyc`` is set. Then the early check (step 4).
3. *pop*, when the top frame has no pending edge: pop the frame; if its node is the
   first node of the top part (``r_pos[top] == pos[v]``), the part is a complete SCC:
   its nodes become ``DEAD``, ``live`` is cut at ``r_pos[top]``, the entry is popped,
   and, unless it is trivial (no internal edge), it is judged: not accepting, or
   failing an all-or-nothing requirement (a ``weak`` or ``always`` item, which the
   complete SCC's facts decide exactly as the prunes of Figs. 7 and 11 would) -> no fair
   subgraph; otherwise Fig. 5 (``components.search_component``) on the component, with
   its edges recomputed.
4. *early check* of the top part after every merge: it has an internal edge, its marks
   are every acceptance set, ``always & ~eng == 0``, ``weak & r_all & ~eng == 0``,
   ``strong & r_some & ~eng == 0``, and (strong global) ``r_miss == 0``. If so, its
   nodes (``live[r_pos[top]:]``) and the edges between them (recomputed) are the fair
   accepting subgraph; the verdict is re-checked on it with the notion's ``prune``
   (which must remove nothing) before it is returned. Its entry path is the DFS path to
   the part's first node (``r_depth[top]``), or, when that is longer than
   ``SHORT_PREFIX``, a shortest path through live nodes (a node that reaches a live node
   is live, so no other node can be on it).

Search order. Any order of a node's edges is a depth-first search, so the order changes
how soon a verdict comes, never which. ``_search_order`` picks one per notion (applied
in step 1, when the pending edges are pushed): the successor
function's order without fairness (a process looping alone closes an accepting cycle
soonest); for notions with items, the edges rotated to start at position ``s mod d``
(``s`` the system state id, ``d`` the node's degree), a fixed pseudo-random interleaving
in the spirit of SPIN's randomised search order, so that loops in which every process or
action takes part (what weak and process fairness ask) close early instead of one
process running ahead for thousands of states; for strong global fairness, round robin:
the steps of the process after the one that moved last come first (stable sort by
``(first process of the step - last process - 1) mod 2**30``, ``edge_order``),
which drives every process forward in turn and reaches the terminal components that
strong global fairness needs (a deadlock, typically) after a few steps per process.

Why an early report is sound. A part is strongly connected (every node of it is
reachable from its first node along tree edges, and reaches it back through the
processed edges that caused the merges). Take a loop that starts at its first node,
visits every node of the part and takes every edge between its nodes; repeated forever,
it is an infinite run of the product. Its acceptance marks are those of the part's
internal edges (all sets); the items enabled in every state of the loop are ``r_all``,
in some state ``r_some``, the items engaged are those of its edges (a superset of
``r_eng``), and for strong global fairness every node takes each of its system steps
inside the loop, so every step enabled in a state of the loop is taken infinitely often.
So the loop meets each notion's definition (000 Defs. 2-4, 002 Defs. 4-5, 000 Fig. 11):
it is a fair accepting run, a counterexample. Tau steps, the stutter step and the
process sets of steps count exactly as in ``conditions.py`` (the same ``step_items``
feed both). ``build_lasso`` then picks a smaller fair loop inside the part.

Why the complete component is judged as before. Every edge between two nodes of an SCC
is processed while the SCC is open, and becomes internal to its part by a merge (a tree
edge when its target's part merges into its source's), so when the SCC closes its facts
are those of the whole SCC: the acceptance test and the all-or-nothing tests are the
ones Fig. 5 would make first; every other case goes to Fig. 5 itself.

``early=False`` turns the early checks and the shortcut of step 3 off: every non-trivial
SCC then goes to Fig. 5, as the Tarjan-based search did (the tests compare the two).
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable, Sequence

from bridge.fairness.components import (
    SearchStatistics,
    component_subgraph,
    path_within,
    search_component,
)
from bridge.fairness.conditions import (
    REQUIRE_ALWAYS,
    REQUIRE_STRONG,
    REQUIRE_WEAK,
    FairnessCondition,
    Subgraph,
)
from bridge.fairness.product import ModelErrorAt, Product

UNSEEN = -1
DEAD = -2
# Search orders (``OnTheFlySearch.order``): the order of each node's edges does not
# change what the search finds, only how soon (any order is a depth-first search).
ORDER_NATURAL = 0  # the successor function's order
ORDER_ROTATE = 1  # start at edge (system state id mod degree): a fixed pseudo-random mix
ORDER_ROUND_ROBIN = 2  # the steps of the process after the one that moved last first
ROUND = 1 << 30
# A counterexample's prefix is the DFS path to the fair part when it has at most this
# many steps, else a shortest path (recomputing the edges of live nodes).
SHORT_PREFIX = 200


class _Items:
    """Bit positions of the fairness items met so far, the requirement masks, and the
    item bits of each step (``conditions.FairnessCondition.step_items``)."""

    def __init__(self, condition: FairnessCondition) -> None:
        self.condition = condition
        self.bit: dict[Hashable, int] = {}
        self.items: list[Hashable] = []
        self.weak = 0
        self.strong = 0
        self.always = 0
        self.version = -1
        self.step_enabled: list[int] = []
        self.step_engaged: list[int] = []
        self.refresh()

    def _bit(self, item: Hashable) -> int:
        b = self.bit.get(item)
        if b is None:
            b = len(self.items)
            self.bit[item] = b
            self.items.append(item)
            self._add_mark(item, b)
        return b

    def _add_mark(self, item: Hashable, b: int) -> None:
        mark = self.condition.item_mark(item)
        if mark == REQUIRE_WEAK:
            self.weak |= 1 << b
        elif mark == REQUIRE_STRONG:
            self.strong |= 1 << b
        elif mark == REQUIRE_ALWAYS:
            self.always |= 1 << b

    def refresh(self) -> None:
        """Recompute the masks if the condition's marks changed (learnt annotations)."""
        version = self.condition.version
        if version == self.version:
            return
        self.version = version
        self.weak = self.strong = self.always = 0
        for b, item in enumerate(self.items):
            self._add_mark(item, b)
        for item in self.condition.required_items():
            self.always |= 1 << self._bit(item)

    def step(self, k: int) -> None:
        """Compute the bits of every step id up to ``k``."""
        while len(self.step_enabled) <= k:
            en, eng = self.condition.step_items(len(self.step_enabled))
            e = 0
            for item in en:
                e |= 1 << self._bit(item)
            g = 0
            for item in eng:
                g |= 1 << self._bit(item)
            self.step_enabled.append(e)
            self.step_engaged.append(g)
        self.refresh()

    def engaged(self, k: int) -> int:
        """Return the items step ``k`` engages, as a bitset."""
        if k >= len(self.step_engaged):
            self.step(k)
        return self.step_engaged[k]

    def enabled(self, steps: list[int]) -> int:
        """Return the items the steps ``steps`` (those of one state) make enabled."""
        bits = 0
        table = self.step_enabled
        for k in steps:
            if k >= len(table):
                self.step(k)
            bits |= table[k]
        return bits


class OnTheFlySearch:
    """One run of the on-the-fly emptiness check over ``product`` (module docstring).

    ``run()`` returns a fair accepting strongly connected subgraph, or None when the
    product has none. ``early``: report parts as soon as they are fair and accepting.
    """

    def __init__(self, product: Product, condition: FairnessCondition,
                 stats: SearchStatistics, early: bool = True) -> None:
        self.product = product
        self.condition = condition
        self.stats = stats
        self.early = early
        self.all_sets = product.buchi.all_sets
        # Items are tracked only when the notion has requirements on them.
        self.items = _Items(condition) if early and condition.uses_items else None
        self.closed = early and condition.closed_under_steps
        self.order = _search_order(self.items is not None, self.closed)
        self.pos = array("i")
        # on_path[n] >= 0 iff n is on the DFS stack (its depth): the stack the POR
        # proviso reads (product.search_stack)
        self.on_path = array("i")
        self.live = array("i")
        self.dfs_node = array("i")
        self.dfs_step = array("i")
        self.dfs_base = array("i")
        self.dfs_sat: list[int] = []
        acc_code = "I" if product.buchi.num_sets <= 32 else "Q"
        self.e_dst = array("i")
        self.e_step = array("i")
        self.e_acc = array(acc_code)
        self.e_sys = array("i")
        self.r_pos = array("i")
        self.r_depth = array("i")
        self.r_acc = array(acc_code)
        self.r_cyc = bytearray()
        self.r_in_acc = array(acc_code)
        self.r_in_step = array("i")
        self.r_in_sys = array("i")
        self.r_all: list[int] = []
        self.r_some: list[int] = []
        self.r_eng: list[int] = []
        self.r_miss = array("q")

    # -- the search -------------------------------------------------------------------

    def run(self) -> Subgraph | None:
        """Return a fair accepting subgraph of the product, or None."""
        product = self.product
        product.search_stack = self.on_path
        try:
            return self._run()
        except ModelErrorAt as failure:
            # The failing node is the top frame: its DFS path is a trace to the error.
            if self.dfs_node and self.dfs_node[-1] == failure.node:
                failure.path = self.dfs_path(len(self.dfs_node) - 1)
            raise
        finally:
            product.search_stack = None

    def _run(self) -> Subgraph | None:
        product = self.product
        for root in product.initial_nodes():
            self._grow()
            if self.pos[root] != UNSEEN:
                continue
            found = self._push(root, 0, -1, -1)
            if found is None:
                found = self._loop()
            if found is not None:
                return found
        return None

    def dfs_path(self, depth: int) -> tuple[int, list[tuple[int, int, int]]]:
        """Return ``(initial node, edges)`` of the DFS path to the frame at ``depth``."""
        nodes = self.dfs_node
        steps = self.dfs_step
        return nodes[0], [(nodes[i - 1], steps[i], nodes[i]) for i in range(1, depth + 1)]

    def _grow(self) -> None:
        missing = self.product.num_nodes - len(self.pos)
        if missing > 0:
            self.pos.extend(array("i", [UNSEEN]) * missing)
            self.on_path.extend(array("i", [UNSEEN]) * missing)

    def _loop(self) -> Subgraph | None:
        pos = self.pos
        dfs_node = self.dfs_node
        dfs_base = self.dfs_base
        e_dst = self.e_dst
        e_step = self.e_step
        e_acc = self.e_acc
        e_sys = self.e_sys
        r_pos = self.r_pos
        closed = self.closed
        while dfs_node:
            if len(e_dst) > dfs_base[-1]:
                w = e_dst.pop()
                k = e_step.pop()
                a = e_acc.pop()
                j = e_sys.pop() if closed else -1
                pw = pos[w]
                if pw == UNSEEN:
                    found = self._push(w, a, k, j)
                elif pw >= 0:
                    found = self._merge(pw, a, k, j)
                else:
                    continue
                if found is not None:
                    return found
            else:
                v = dfs_node.pop()
                self.on_path[v] = UNSEEN
                self.dfs_step.pop()
                dfs_base.pop()
                if closed:
                    self.dfs_sat.pop()
                if r_pos[-1] == pos[v]:
                    found = self._close()
                    if found is not None:
                        return found
        return None

    def _push(self, w: int, in_acc: int, in_step: int, in_sys: int) -> Subgraph | None:
        """Visit ``w`` (entered by the edge with ``in_acc``, ``in_step``, ``in_sys``)."""
        pos = self.pos
        items = self.items
        closed = self.closed
        p = len(self.live)
        pos[w] = p
        self.live.append(w)
        self.on_path[w] = len(self.dfs_node)
        self.dfs_node.append(w)
        self.dfs_step.append(in_step)
        self.dfs_base.append(len(self.e_dst))
        expansion = self.product.expand(w, enabled=items is not None, system_index=closed)
        self._grow()
        self.r_pos.append(p)
        self.r_depth.append(len(self.dfs_node) - 1)
        self.r_acc.append(0)
        self.r_cyc.append(0)
        self.r_in_acc.append(in_acc)
        self.r_in_step.append(in_step)
        self.r_in_sys.append(in_sys)
        if items is not None:
            enabled = items.enabled(expansion.enabled)
            self.r_all.append(enabled)
            self.r_some.append(enabled)
            self.r_eng.append(0)
        if closed:
            self.r_miss.append(expansion.system_steps)
            self.dfs_sat.append(0)
        targets = expansion.targets
        steps = expansion.steps
        accs = expansion.accs
        index = expansion.system_index
        e_dst = self.e_dst
        e_step = self.e_step
        e_acc = self.e_acc
        e_sys = self.e_sys
        n = len(targets)
        order: Sequence[int] = range(n)
        if n > 1 and self.order != ORDER_NATURAL:
            order = edge_order(self.product, self.order, w, in_step, steps)
        for i in reversed(order):
            t = targets[i]
            pt = pos[t]
            if pt == UNSEEN:
                e_dst.append(t)
                e_step.append(steps[i])
                e_acc.append(accs[i])
                if closed:
                    e_sys.append(index[i])
            elif pt >= 0:
                found = self._merge(pt, accs[i], steps[i], index[i] if closed else -1)
                if found is not None:
                    return found
        return None

    def _merge(self, target_pos: int, acc: int, step: int, sys_index: int) -> Subgraph | None:
        """Process the edge from the top DFS node to the live node at ``target_pos``:
        merge the parts above the target's part into it (step 2)."""
        r_pos = self.r_pos
        r_acc = self.r_acc
        r_in_acc = self.r_in_acc
        items = self.items
        closed = self.closed
        eng = items.engaged(step) if items is not None else 0
        every = -1  # AND identity for bitsets
        some = 0
        missing = 0
        top = len(r_pos) - 1
        while r_pos[top] > target_pos:
            acc |= r_acc[top] | r_in_acc[top]
            in_step = self.r_in_step[top]
            if items is not None:
                eng |= self.r_eng.pop() | items.engaged(in_step)
                every &= self.r_all.pop()
                some |= self.r_some.pop()
            if closed:
                missing += self.r_miss.pop()
                source = self.r_depth[top] - 1
                bit = 1 << self.r_in_sys[top]
                if not self.dfs_sat[source] & bit:
                    self.dfs_sat[source] |= bit
                    missing -= 1
            r_pos.pop()
            self.r_depth.pop()
            r_acc.pop()
            self.r_cyc.pop()
            r_in_acc.pop()
            self.r_in_step.pop()
            self.r_in_sys.pop()
            top -= 1
        r_acc[top] |= acc
        self.r_cyc[top] = 1
        if items is not None:
            self.r_eng[top] |= eng
            self.r_all[top] &= every
            self.r_some[top] |= some
        if closed:
            bit = 1 << sys_index
            if not self.dfs_sat[-1] & bit:
                self.dfs_sat[-1] |= bit
                missing -= 1
            self.r_miss[top] += missing
        if self.early and self._fair_part(top):
            return self._report(top)
        return None

    def _fair_part(self, i: int) -> bool:
        """Return True if part ``i`` meets the early condition (step 4)."""
        all_sets = self.all_sets
        if not self.r_cyc[i] or self.r_acc[i] & all_sets != all_sets:
            return False
        if self.closed and self.r_miss[i] != 0:
            return False
        items = self.items
        if items is not None:
            items.refresh()
            lacking = ~self.r_eng[i]
            if (items.always & lacking or items.weak & self.r_all[i] & lacking
                    or items.strong & self.r_some[i] & lacking):
                return False
        return True

    def _report(self, i: int) -> Subgraph:
        """Return the subgraph of part ``i``, after re-checking it with the prunes."""
        g = component_subgraph(self.product, set(self.live[self.r_pos[i]:]))
        acc = 0
        for _u, _v, _k, a in g.edges:
            acc |= a
        removed = self.condition.prune(g) if acc & self.all_sets == self.all_sets else g.nodes
        self.condition.clear_caches()
        if removed:
            raise AssertionError(
                f"early report of {len(g.nodes)} nodes is not fair and accepting "
                f"({len(removed)} nodes pruned)")
        self.stats.early_report = True
        g.entry = self._entry(self.r_depth[i], g.nodes, set())
        return g

    def _close(self) -> Subgraph | None:
        """The top part is a complete SCC: retire it and judge it (step 3)."""
        top = len(self.r_pos) - 1
        start = self.r_pos[top]
        component = self.live[start:]
        del self.live[start:]
        pos = self.pos
        for n in component:
            pos[n] = DEAD
        cyclic = self.r_cyc[top]
        acc = self.r_acc[top]
        in_step = self.r_in_step[top]
        hopeless = False
        if self.items is not None:
            self.items.refresh()
            lacking = ~self.r_eng[-1]
            # Unmet "always" or "weak" items fail every subgraph (Figs. 7, 11).
            hopeless = bool(self.items.always & lacking or self.items.weak & self.r_all[-1] & lacking)
            self.r_eng.pop()
            self.r_all.pop()
            self.r_some.pop()
        if self.closed:
            self.r_miss.pop()
        self.r_pos.pop()
        self.r_depth.pop()
        self.r_acc.pop()
        self.r_cyc.pop()
        self.r_in_acc.pop()
        self.r_in_step.pop()
        self.r_in_sys.pop()
        stats = self.stats
        stats.sccs += 1
        if not cyclic:
            return None
        stats.nontrivial_sccs += 1
        if self.early and (acc & self.all_sets != self.all_sets or hopeless):
            return None
        members = set(component)
        found = search_component(self.product, self.condition, members, self.all_sets, stats)
        self.condition.clear_caches()
        if found is not None:
            # The component's first node was the DFS frame just popped.
            self.dfs_node.append(component[0])
            self.dfs_step.append(in_step)
            try:
                found.entry = self._entry(len(self.dfs_node) - 1, found.nodes, members)
            finally:
                self.dfs_node.pop()
                self.dfs_step.pop()
        return found

    def _entry(self, depth: int, targets: set[int], members: set[int]
               ) -> tuple[int, list[tuple[int, int, int]]]:
        """Return a path from an initial node into ``targets``: the DFS path to the
        frame at ``depth`` (a node of ``targets``, or of ``members`` when ``targets`` is
        a subgraph of the just-closed component ``members``) when it is short, else a
        shortest path. A node that reaches a live node is live (a dead node's complete
        component reaches no unfinished one), so the shortest path runs through live
        nodes and ``members`` only."""
        if depth <= SHORT_PREFIX:
            initial, prefix = self.dfs_path(depth)
            if members:
                prefix.extend(path_within(self.product, self.dfs_node[depth], members, targets))
            return initial, prefix
        pos = self.pos
        allowed = members.union(n for n in self.live if pos[n] >= 0)
        root = self.dfs_node[0]
        return root, path_within(self.product, root, allowed, targets)


def edge_order(product: Product, order: int, node: int, in_step: int,
               steps: Sequence[int]) -> list[int]:
    """Return the positions of ``node``'s edges (their step ids ``steps``, in the
    successor function's order) in the order search ``order`` follows them, ``node``
    entered by step ``in_step`` (-1: an initial node). The DFS tree edge into a child is
    the first edge to it in this order; the C engine's replay (``bridge.api``) picks the
    same one under round robin. Module docstring, "Search order"."""
    n = len(steps)
    if order == ORDER_ROUND_ROBIN:
        # the steps of the process after the one that moved last (by ``in_step``)
        # first, cyclically: a stable sort
        all_steps = product.steps
        entering = all_steps[in_step].processes if in_step >= 0 else ()
        last = entering[0] if entering else -1
        keys = []
        for k in steps:
            moved = all_steps[k].processes
            keys.append((moved[0] - last - 1) % ROUND if moved else ROUND)
        return sorted(range(n), key=keys.__getitem__)
    if order == ORDER_ROTATE and n > 1:
        # edge j of the order is edge (j + shift) mod n
        shift = product.node_sys[node] % n
        return [(j + shift) % n for j in range(n)]
    return list(range(n))


def search_order(condition: FairnessCondition, early: bool = True) -> int:
    """Return the edge order of the on-the-fly search of ``condition`` (``early``: with
    early reports, as ``OnTheFlySearch`` and the C engine's search run it)."""
    return _search_order(early and condition.uses_items, early and condition.closed_under_steps)


def _search_order(items: bool, closed: bool) -> int:
    """Return the edge order for a notion (module docstring, "Search order")."""
    if closed:
        return ORDER_ROUND_ROBIN
    if items:
        return ORDER_ROTATE
    return ORDER_NATURAL


def find_fair_subgraph_on_the_fly(
    product: Product, condition: FairnessCondition,
    stats: SearchStatistics | None = None, early: bool = True,
) -> Subgraph | None:
    """Return a fair accepting strongly connected subgraph of the product, or None.

    Explores the product on the fly from its initial states and stops at the first one:
    an early report (a part of a component that is already fair and accepting) or a
    complete component judged by paper 000 Fig. 5. See the module docstring.
    """
    stats = stats if stats is not None else SearchStatistics()
    return OnTheFlySearch(product, condition, stats, early).run()
