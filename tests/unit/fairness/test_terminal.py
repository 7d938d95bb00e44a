"""``fairness.terminal.check_terminal_part`` on hand-made products (issue 13).

A part certifies a strong globally fair accepting run when it is closed under steps
(per system state), strongly connected and accepting (paper 001 Lemma 2); the per-node
closure a quotient lift needs is reported apart. Each property is broken on its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from bridge.fairness.product import Expansion, LimitReached
from bridge.fairness.terminal import check_terminal_part


@dataclass
class _Buchi:
    all_sets: int = 1


@dataclass
class FakeProduct:
    """Nodes ``(system state, q)``; ``steps[s]``: the system steps ``(k, t)`` of ``s``;
    ``moves``: ``(q, t) -> [(q', acc)]`` (absent: the automaton blocks)."""

    nodes: list[tuple[int, int]]
    steps: dict[int, list[tuple[int, int]]]
    moves: dict[tuple[int, int], list[tuple[int, int]]]
    buchi: _Buchi = field(default_factory=_Buchi)

    @property
    def node_sys(self) -> list[int]:
        return [s for s, _q in self.nodes]

    def step_edges(self, node: int) -> Expansion:
        s, q = self.nodes[node]
        out = Expansion()
        out.system_steps = len(self.steps[s])
        for j, (k, t) in enumerate(self.steps[s]):
            for q2, acc in self.moves.get((q, t), []):
                out.targets.append(self.nodes.index((t, q2)))
                out.steps.append(k)
                out.accs.append(acc)
                out.system_index.append(j)
        return out


def _ring(accepting: bool = True) -> FakeProduct:
    # system: 0 -> 1 -> 2 -> 0 and 1 -> 0; one automaton state
    acc = 1 if accepting else 0
    return FakeProduct(
        nodes=[(0, 0), (1, 0), (2, 0)],
        steps={0: [(0, 1)], 1: [(1, 2), (2, 0)], 2: [(3, 0)]},
        moves={(0, 1): [(0, 0)], (0, 2): [(0, acc)], (0, 0): [(0, 0)]},
    )


def test_a_closed_connected_accepting_part_is_fair():
    found = check_terminal_part(_ring(), 0, lambda n: True)
    assert found.fair_accepting and found.node_closed
    assert (len(found.nodes), found.system_states, found.edges) == (3, 3, 4)
    assert found.problem == ""


def test_a_step_leaving_the_part_is_found():
    found = check_terminal_part(_ring(), 0, lambda n: n != 2)  # 1 -> 2 leaves
    assert not found.closed and not found.fair_accepting
    assert "leaves" in found.problem


def test_a_part_without_an_accepting_edge_is_not_accepting():
    found = check_terminal_part(_ring(accepting=False), 0, lambda n: True)
    assert found.closed and found.connected and not found.accepting
    assert not found.fair_accepting


def test_a_part_that_does_not_reach_back_is_not_connected():
    # 0 -> 1 -> 2, 2 loops: closed and accepting, but 2 never returns to 0
    p = FakeProduct(nodes=[(0, 0), (1, 0), (2, 0)],
                    steps={0: [(0, 1)], 1: [(1, 2)], 2: [(2, 2)]},
                    moves={(0, 1): [(0, 0)], (0, 2): [(0, 1)]})
    found = check_terminal_part(p, 0, lambda n: True)
    assert found.closed and found.accepting and not found.connected
    assert not found.fair_accepting


def test_closure_per_state_is_not_closure_per_node():
    # system state 0 has steps k0 (to 1) and k1 (to 0), state 1 has k2 (to 0); the
    # automaton blocks k0 from (0, q0) but (0, q1) takes it: every step of every system
    # state is taken inside the part, not by every node
    p = FakeProduct(nodes=[(0, 0), (1, 0), (0, 1)],
                    steps={0: [(0, 1), (1, 0)], 1: [(2, 0)]},
                    moves={(0, 0): [(0, 1), (1, 0)], (1, 0): [(1, 0)], (1, 1): [(0, 1)]})
    found = check_terminal_part(p, 0, lambda n: True)
    assert found.closed and found.connected and found.accepting
    assert not found.node_closed


def test_the_deadline_stops_the_check():
    with pytest.raises(LimitReached):
        check_terminal_part(_ring(), 0, lambda n: True, deadline=0.0)


def test_the_start_must_be_in_the_part():
    with pytest.raises(ValueError):
        check_terminal_part(_ring(), 0, lambda n: n != 0)


def test_the_deadline_stops_the_connectivity_pass():
    from array import array

    from bridge.fairness.terminal import _reaches_back

    src, dst = array("i", [0, 1]), array("i", [1, 0])
    assert _reaches_back(2, src, dst)
    assert _reaches_back(2, src, dst, deadline=float("inf"))
    with pytest.raises(LimitReached):
        _reaches_back(2, src, dst, deadline=0.0)
