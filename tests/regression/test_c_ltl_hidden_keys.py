"""The C fair search's report is matched on the Python product without hidden variables
(issue 12; found by the differential test of strong local fairness on m41).

A hidden variable (Promela ``hidden``, CSP# ``hvar``) is not part of a state's
identity: each product keeps the value of the first run that reached the state. The C
search and the fresh Python product that rebuilds its report reach states in different
orders, so they may keep different values; matching the report's states with them
made a real counterexample an "engine disagreement" (the Python engine answered, with
a note).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import Fairness, Outcome, PropertyKind

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")

MODEL = Path(__file__).resolve().parents[1] / "models"


def test_report_with_hidden_variables_is_replayed() -> None:
    [path] = MODEL.rglob("m41_hidden_show_np.pml")
    [ts] = api.load_model(str(path)).systems
    prop = next(p for p in ts.properties if p.kind is PropertyKind.LTL)
    space = driver.compile_model(ts).space
    assert driver.hidden_slots(space) == 1
    v = api.check_property(ts, prop, api.CheckOptions(engine="c",
                                                      fairness=Fairness.STRONG_LOCAL))
    assert v.outcome is Outcome.VIOLATED and v.lasso is not None
    assert not any("checked by the Python engine" in n for n in v.notes), v.notes
    assert ("engine", "c") in v.statistics.extra
