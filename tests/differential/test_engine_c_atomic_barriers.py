"""CSP# barriers combined at run time in systems with atomic parts (issue 12): the C
engine against the Python engine (the reference), every state and transition count,
verdict and trace alike, and LTL lassos under every fairness notion.

The Python engine filters the steps of such a system as it filters any CSP# system's
(``statespace._inline_layout``, ``_AT``/``_AE``): while some step has a process at an
atomic location among its processes, or takes an edge flagged ``Edge.atomic`` (an
atomic operand of an interleaving inside a process), only those steps are offered; a
joint step of barriers combined at run time counts by all of its processes and edges.
CSP# atomicity has no holder: it is read from the locations (and edges) of each step.
The C engine finds a joint step's edges from the offers kept for its label (``c->rv``,
``gen_tables.atomic_edges_code``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from tests.conftest import in_ci
from tests.differential.test_engine_c import assert_engines_agree
from tests.differential.test_engine_c_ltl import compare

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

MODEL = Path(__file__).resolve().parents[1] / "models" / "csp" / "barriers_at_run_time_atomic.csp"


def _systems() -> dict[str, api.TransitionSystem]:
    return {ts.name: ts for ts in api.load_model(str(MODEL)).systems}


@pytest.mark.parametrize("name", ["Flat", "Inner", "Named"])
def test_barriers_combined_at_run_time_with_atomic_parts_agree(name: str) -> None:
    """'Flat': a barrier offered inside ``atomic{...}`` (the joint step keeps the
    atomic process's priority; blocked, atomicity is lost); 'Inner': an atomic
    operand of an interleaving inside a process whose first step is the barrier
    (``Edge.atomic`` on an offer of a joint step); 'Named': an event name computed at
    run time on a synchronising process (every barrier combined at run time) with an
    atomic part. Each is taken by the C engine (it refused them before)."""
    ts = _systems()[name]
    ok, why = driver.supports(ts)
    assert ok, why
    source = driver.generate_model(ts).source
    assert "br_barriers(c, s, slen)" in source  # combined at run time
    if name == "Inner":
        assert any(e.atomic for p in ts.processes for e in p.edges)
        assert "step_atomic_edge" in source
    else:
        assert any(loc.atomic for p in ts.processes for loc in p.locations)
    assert assert_engines_agree(ts) > 0
    assert compare(ts, limit=100000) == 2 * len(driver.LTL_FAIRNESS)  # all in C


def test_barriers_combined_at_run_time_with_atomic_parts_and_annotations_agree() -> None:
    """Command-line fairness annotations on barrier events and on a step inside an
    atomic part: the fair search's units of a joint step agree with the Python
    engine's under the atomic filter."""
    ts = _systems()["Inner"]
    fair = (api.parse_annotation("sf:a"), api.parse_annotation("wf:w.0"))
    assert compare(ts, limit=100000, annotations=fair) == 2 * len(driver.LTL_FAIRNESS)
