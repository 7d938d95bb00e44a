"""A model error in a component of a CSP# event name counts in the C engine too
(issue 12; found while naming computed events in C, item 1).

The Python engine evaluates a step's event name (``e.a[i]``) on every step; an index
out of range there is a model error (VIOLATED, with its trace). The C engine used to
commit such a step with the code "computed" (-2) without evaluating its components,
so it answered HOLDS where the Python engine answered VIOLATED. It now evaluates them
on every step (and renders the name only when the fair search needs it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c.build import find_compiler
from bridge.ir import Fairness, Outcome

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")

MODEL = """var a[2];
var i = 0;
P() = e.a[i]{i = (i + 1) % 4} -> P();
#assert P() deadlockfree;
#assert P() |= []<> e.0;
"""


@pytest.mark.parametrize("fairness", [Fairness.NONE, Fairness.WEAK])
def test_an_event_component_out_of_range_is_a_model_error_in_c(tmp_path: Path,
                                                                fairness: Fairness) -> None:
    path = tmp_path / "component.csp"
    path.write_text(MODEL)
    [ts] = api.load_model(str(path)).systems
    for prop in ts.properties:
        c = api.check_property(ts, prop, api.CheckOptions(engine="c", fairness=fairness))
        py = api.check_property(ts, prop, api.CheckOptions(engine="python", fairness=fairness))
        assert c.outcome is py.outcome is Outcome.VIOLATED, prop.text
        assert c.reason == py.reason and c.reason.startswith("index out of range")
        assert (c.statistics.states, c.trace) == (py.statistics.states, py.trace)
        assert ("engine", "c") in c.statistics.extra
