"""Regression: ``--timeout`` did not stop a refinement check while the specification
was being normalised. A hidden counter (``Count() \\ {t}``) puts every specification
state into the tau closure of the normal form's first node, computed in one call before
the product search's first step (Python engine) or whole before the C search
(``refinement.normalise_whole``): with ``--timeout 1`` both engines ran the closure to
its end and said HOLDS after 3-4 s. Now the graphs read by the normal form check the
deadline as they expand states (``graph.CachedGraph``) and the check stops at its time
limit: UNKNOWN, exit code 3, with the states expanded so far."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c.build import find_compiler
from bridge.ir import Outcome
from bridge.refinement import TimeUp, normalise_whole
from tests.conftest import in_ci

MODEL = """var x = 0;
Count() = t{x = (x + 1) % 20000} -> Count() [] a -> Count();
Spec() = Count() \\ {t};
Impl() = a -> Impl();
#assert Impl() refines Spec();
"""


@pytest.mark.parametrize("engine", ["python", "c"])
def test_refinement_timeout_in_normalisation(tmp_path: Path, engine: str) -> None:
    if engine == "c" and find_compiler() is None and not in_ci():
        pytest.skip("no C compiler")
    path = tmp_path / "m.csp"
    path.write_text(MODEL)
    [verdict] = api.check(api.load_model(str(path)), options=api.CheckOptions(
        engine=engine, timeout=1e-9))
    assert verdict.outcome is Outcome.UNKNOWN
    assert verdict.reason.startswith("time limit")
    assert api.outcome_exit_code([verdict]) == 3
    # without the limit the same check holds, having expanded all 20,000 states
    [full] = api.check(api.load_model(str(path)), options=api.CheckOptions(engine=engine))
    assert full.outcome is Outcome.HOLDS


def test_normalise_whole_stops_at_its_deadline(tmp_path: Path) -> None:
    path = tmp_path / "m.csp"
    path.write_text(MODEL)
    prop = api.load_model(str(path)).systems[0].properties[0]
    assert prop.spec is not None
    with pytest.raises(TimeUp) as up:
        normalise_whole(prop.spec, divergence=False, deadline=0.0)
    assert up.value.expanded == 0
    assert normalise_whole(prop.spec, divergence=False).spec_states == 20000
