"""A model error met by the C fair search under strong global fairness gives the Python
engine's trace, step for step (found by the differential test of non-progress cycles,
``test_engine_c_never.py::test_random_systems_agree_under_every_notion``).

The C search reports its DFS path as product nodes only; the replay on the Python
product (``api._compiled._replay_c_search``) took, between two nodes, the first edge in the
successor function's order. Where steps of two processes reach the same node, the
search (C and Python alike) entered it by the first one in its own order: round robin
under strong global fairness (``fairness.onthefly.edge_order``), the steps of the
process after the one that moved last first. The C trace then named the other process
for a step with the same states: a valid run too, but not the Python engine's, which
is the reference. The replay now follows the search order along the DFS path
(``LtlResult.dfs_len``).

The system: ``x`` starts at 1; A (process 0) sets ``x = 0`` under a guard that divides
by ``x - 5``; B (process 1) has a step that changes nothing, then one that sets
``x = 5``. The search takes A's step first (the initial node has no last process),
then B's idle step (B comes after A in the round robin; A's step would reach the same
product node), then B's ``x = 5``, whose state has A's guard divide by zero.
"""

from __future__ import annotations

import pytest

from bridge import api
from bridge.diagnostics import ModelRuntimeError
from bridge.engine_c.build import find_compiler
from bridge.ir import Fairness, Outcome, Property, PropertyKind
from bridge.semantics.statespace import build_state_space
from bridge.semantics.trace import make_steps
from tests.conftest import in_ci
from tests.irbuild import G, assign, edge, int_var, op, process, system

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")


def _system():  # noqa: ANN202
    a = process("A", [edge(0, 0, guard=op("/", 10, op("-", G("x"), 5)),
                           effect=[assign("x", 0)])])
    b = process("B", [edge(0, 0), edge(0, 0, effect=[assign("x", 5)])])
    npc = Property("non-progress-cycles", PropertyKind.NON_PROGRESS, "non-progress cycles")
    return system([a, b], globals_=[int_var("x", init=1)], properties=[npc])


def _replays(ts, trace) -> None:  # noqa: ANN001
    """Assert that ``trace`` is a run of the Python semantics from the initial state
    into a state whose expansion divides by zero."""
    space = build_state_space(ts)
    state = space.initial_states()[0]
    for shown in trace.steps:
        nxt = [t for step, t in space.successors(state)
               if make_steps(space, state, [(step, t)]) == (shown,)]
        assert nxt, f"{shown} is not a step of {space.valuation(state)}"
        state = nxt[0]
    with pytest.raises(ModelRuntimeError, match="division by zero"):
        space.successors(state)


def test_c_error_trace_follows_round_robin_order() -> None:
    ts = _system()
    [prop] = ts.properties
    verdicts = {}
    for engine in ("c", "python"):
        v = api.check_property(ts, prop, api.CheckOptions(
            engine=engine, fairness=Fairness.STRONG_GLOBAL))
        assert v.outcome is Outcome.VIOLATED and v.lasso is None, (engine, v.reason)
        assert v.reason.startswith("division by zero"), (engine, v.reason)
        _replays(ts, v.trace)
        verdicts[engine] = v
    c, py = verdicts["c"], verdicts["python"]
    assert ("engine", "c") in c.statistics.extra and c.notes == py.notes
    # A sets x = 0, B idles (not A again), B sets x = 5
    assert [s.processes for s in py.trace.steps] == [("A",), ("B",), ("B",)]
    assert c.trace == py.trace
