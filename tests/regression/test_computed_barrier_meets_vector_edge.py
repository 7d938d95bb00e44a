"""Regression: a CSP# event name computed at run time (``e.x``) on a process that
synchronises never met an offer that a precomputed synchronisation vector took.

``P() = e.0 -> P() [] e.x -> f{y = 1} -> P()`` beside ``Q() = e.0 -> Q()`` in ``P() ||
Q()``: with x == 0, P's ``e.x`` is ``e.0`` and synchronises with Q's ``e.0`` (PAT:
an event of both alphabets happens jointly, whichever edge names it). The Python engine
precomputed the vector {P's ``e.0``, Q's ``e.0``} from the constant names and offered
only the edges outside vectors at run time, so Q never offered its ``e.0`` to P's
computed one: ``y == 1`` was "not reachable" (a wrong verdict). Now a system where a
process that may synchronise computes a name combines every barrier at run time
(``statespace._plan_vectors``), and the C engine does the same
(``gen_events.vectors_at_run_time``, ``Statements._computed_barrier``; it refused
such names before).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c.build import find_compiler
from bridge.ir import Outcome
from tests.conftest import in_ci
from tests.differential.test_engine_c_constructs import _agree

MODEL = """var x = 0;
var y = 0;
#alphabet P {e.0, e.1, f};
P() = e.0 -> P() [] e.x -> f{y = 1} -> P() [] g{x = 1 - x} -> P();
Q() = e.0 -> Q() [] e.1 -> h -> Q();
Sys = P() || Q();
#define done y == 1;
#define one x == 1;
#assert Sys reaches done;
#assert Sys deadlockfree;
#assert Sys deterministic;
#assert Sys |= []<> one;
#assert Sys |= []<> e.1;
"""


def test_computed_barrier_meets_vector_edge_python(tmp_path: Path) -> None:
    path = tmp_path / "computed_barrier.csp"
    path.write_text(MODEL)
    (ts,) = api.load_model(str(path)).systems
    got = api.check_property(ts, ts.properties[0], api.CheckOptions(engine="python"))
    assert got.outcome is Outcome.HOLDS, got.reason
    trace = [step.event for step in got.trace.steps] if got.trace else []
    assert trace == ["e.0", "f"], trace  # P's computed e.x with Q's constant e.0


@pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")
def test_computed_barrier_meets_vector_edge_c(tmp_path: Path) -> None:
    """The C engine takes the model (it refused a computed name on a synchronising
    process) and agrees with the Python engine: counts, verdicts, traces, LTL under
    every notion (event atoms included)."""
    (ts,) = _agree(tmp_path, "computed_barrier.csp", MODEL)
    got = api.check_property(ts, ts.properties[0], api.CheckOptions(engine="c"))
    assert got.outcome is Outcome.HOLDS and not any("Python" in n for n in got.notes)
