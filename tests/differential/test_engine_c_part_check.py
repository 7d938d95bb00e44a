"""The C check of a strong globally fair part agrees with ``fairness.terminal`` (issue 13).

A part too large to replay as a lasso is checked by the C engine
(``bridge_ltl_check_part``: closed under steps per system state, strongly connected,
accepting; paper 001 Lemma 2). The Python check (``fairness.terminal``) stays the
reference: on random models (hypothesis) and on ring models with and without the
symmetry quotient, every part handed to both -- the reported part, each strongly
connected component of the product, and their mutations (one node removed, one outside
successor added) -- gets the same answer from both, field by field, and a mutated
reported part is refused by both.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.fairness import check as fcheck
from bridge.fairness import terminal
from bridge.fairness.product import ModelErrorAt, Product
from bridge.fairness.scc import iter_sccs
from bridge.ir import Fairness, PropertyKind, TransitionSystem
from bridge.reductions.symmetry import SymmetryReduction
from bridge.semantics.statespace import build_state_space
from tests.conftest import in_ci
from tests.differential.test_engine_c_ltl import random_ltl_systems
from tests.differential.test_engine_c_symmetry import RULES, _with_properties
from tests.unit.reductions.symmodels import node_family

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

GLOBAL = Fairness.STRONG_GLOBAL
FIELDS = ("nodes", "system_states", "edges", "acceptance", "closed", "node_closed",
          "connected", "accepting")


def _python_fields(found: terminal.TerminalPart) -> tuple:
    return (len(found.nodes), found.system_states, found.edges, found.acceptance,
            found.closed, found.node_closed, found.connected, found.accepting)


def _c_fields(found: driver.PartCheck) -> tuple:
    return tuple(getattr(found, f) for f in FIELDS)


class _Compare:
    """A fair search hook (``check_ltl(search=...)``) that runs the C search with a
    probe comparing the C part check with ``fairness.terminal`` on many parts."""

    def __init__(self, system: TransitionSystem, symmetry: Any = None, seed: int = 0,
                 max_parts: int = 40):
        self.system, self.symmetry, self.max_parts = system, symmetry, max_parts
        self.rng = random.Random(seed)
        self.compared = 0
        self.refused_mutations = 0
        self.reported = False

    def __call__(self, space: Any, system: TransitionSystem, buchi: Any, state_letter: Any,
                 event_letter: Any, fairness: Fairness, options: Any, stats: Any) -> Any:
        atoms = list(fcheck.translate_formula(self.prop.formula).binding.atoms)
        product = Product(space, buchi, state_letter, event_letter)
        packed = driver.compile_model(self.system).packed
        hidden = driver.hidden_slots(space)

        def probe(c: driver.PartProbe) -> None:
            self._compare(c, product, packed, hidden)

        driver.fair_search_c(self.system, buchi, atoms, GLOBAL, symmetry=self.symmetry,
                             probe=probe)
        return fcheck.FairSearch(None, early=(fcheck.Outcome.UNKNOWN, "compared", {}))

    def _compare(self, c: driver.PartProbe, product: Product, packed: Any,
                 hidden: int) -> None:
        by_key = {c.key(n): n for n in range(c.states)}
        # the Python product, every node the C search interned, and their edges
        key_of: dict[int, Any] = {}

        def key(n: int) -> Any:
            if n not in key_of:
                state = product.sys_states[product.node_sys[n]]
                key_of[n] = (tuple(packed.canonical(product.space, state)[hidden:]),
                             product.node_q[n])
            return key_of[n]

        succ: dict[int, list[int]] = {}
        queue = [n for n in product.initial_nodes() if key(n) in by_key]
        seen = set(queue)
        while queue:
            v = queue.pop()
            succ[v] = []
            try:
                edges = product.edges(v)
            except ModelErrorAt:  # a model error: no part is reported past it
                return
            for w, _k, _a in edges:
                if key(w) in by_key:
                    succ[v].append(w)
                    if w not in seen:
                        seen.add(w)
                        queue.append(w)
        py_of = {key(n): n for n in seen}
        parts = list(iter_sccs(list(succ), succ.__getitem__))
        self.rng.shuffle(parts)
        parts = parts[: self.max_parts]
        nodes = sorted(succ)
        for start in self.rng.sample(nodes, min(len(nodes), self.max_parts // 4)):
            # what start reaches (rarely strongly connected), and a random half of it
            reach, todo = [start], [start]
            while todo:
                for w in succ[todo.pop()]:
                    if w not in reach:
                        reach.append(w)
                        todo.append(w)
            parts.append(reach)
            parts.append([start] + [w for w in reach[1:] if self.rng.random() < 0.5])
        if c.part:
            self.reported = True
            reported = [py_of[c.key(n)] for n in c.part]
            parts.insert(0, reported)
            parts.extend(self._mutations(reported, succ))
        for part in parts:
            self._one(c, product, part, by_key, key)

    def _mutations(self, part: list[int], succ: dict[int, list[int]]) -> list[list[int]]:
        out = []
        if len(part) > 1:  # one node removed (not the first: the part's start)
            gone = self.rng.randrange(1, len(part))
            out.append(part[:gone] + part[gone + 1:])
        inside = set(part)
        leaving = [w for v in part for w in succ[v] if w not in inside]
        if leaving:  # one outside successor added
            out.append(part + [self.rng.choice(leaving)])
        return out

    def _one(self, c: driver.PartProbe, product: Product, part: list[int],
             by_key: dict[Any, int], key: Any) -> None:
        inside = set(part)
        py = terminal.check_terminal_part(product, part[0], inside.__contains__)
        cc = c.check([by_key[key(n)] for n in part])
        assert _c_fields(cc) == _python_fields(py), (part, cc, py)
        assert cc.fair_accepting == py.fair_accepting
        self.compared += 1

    def run(self, prop: Any, space: Any = None) -> None:
        self.prop = prop
        fcheck.check_ltl(self.system, prop, fcheck.LtlOptions(fairness=GLOBAL),
                         space=space, search=self)


def _ltl(ts: TransitionSystem) -> list[Any]:
    return [p for p in ts.properties if p.kind is PropertyKind.LTL]


@pytest.mark.parametrize("n", [3, 4])
def test_ring_parts_agree(n: int) -> None:
    ts = _with_properties(node_family(n, RULES, False), n)
    reported = 0
    for k, prop in enumerate(_ltl(ts)):
        compare = _Compare(ts, seed=k)
        compare.run(prop)
        assert compare.compared > 0
        reported += compare.reported
    assert reported  # some property is violated: its reported part was compared


def test_quotient_parts_agree() -> None:
    ts = _with_properties(node_family(4, RULES, "undirected"), 4)
    full = build_state_space(ts)
    reported = 0
    for k, prop in enumerate(_ltl(ts)):
        from bridge.reductions import ReductionOptions, apply_reductions
        space, _notes = apply_reductions(full, ts, prop, ReductionOptions(
            symmetry=True, fairness=GLOBAL, full_enabled_sets=True))
        assert isinstance(space, SymmetryReduction)
        compare = _Compare(ts, symmetry=space.group_action(), seed=k)
        compare.run(prop, space=space)
        assert compare.compared > 0
        reported += compare.reported
    assert reported


def test_a_mutated_reported_part_is_refused_by_both() -> None:
    ts = _with_properties(node_family(3, RULES, False), 3)
    refused = 0
    for prop in _ltl(ts):
        compare = _Compare(ts, max_parts=0)
        checks: list[tuple[bool, bool]] = []
        real = compare._one

        def one(c, product, part, by_key, key, checks=checks, real=real):
            real(c, product, part, by_key, key)
            inside = set(part)
            py = terminal.check_terminal_part(product, part[0], inside.__contains__)
            checks.append((py.fair_accepting, len(py.nodes) == len(part)))

        compare._one = one  # type: ignore[method-assign]
        compare.run(prop)
        if compare.reported:
            # the reported part is fair and accepting; each mutation is not (or loses
            # nodes: the caller compares the part's size with the nodes reached)
            assert checks[0] == (True, True)
            assert checks[1:] and all(not ok or not whole for ok, whole in checks[1:])
            refused += len(checks) - 1
    assert refused


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(random_ltl_systems())
def test_random_systems_parts_agree(ts: TransitionSystem) -> None:
    ok, _why = driver.supports(ts)
    if not ok:
        return
    for prop in _ltl(ts):
        _Compare(ts, max_parts=20).run(prop)
