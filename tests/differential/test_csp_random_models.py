"""Random CSP# models (tests/differential/csp_random.py) through both engines: loading
gives a model or a clear source error (never another exception), and the C engine
agrees with the Python engine (the reference) on every assertion it checks: verdict,
reason, states and transitions, traces; the LTL assertion also under the model's drawn
fairness notion. Found the loader bugs of tests/regression/test_csp_*recursion*.py."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge import api
from bridge.diagnostics import ResourceLimitReached, SourceError
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import Fairness
from tests.differential.csp_random import random_csp_model
from tests.differential.test_engine_c import assert_engines_agree
from tests.differential.test_engine_c_ltl import compare

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")

LIMIT = 3000


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_random_csp_models_agree(seed: int, tmp_path_factory) -> None:
    text, fairness = random_csp_model(seed)
    path = tmp_path_factory.mktemp("csp") / "random.csp"
    path.write_text(text, encoding="utf-8")
    try:
        model = api.load_model(str(path), timeout=30)
    except (SourceError, ResourceLimitReached):
        return  # a clear error (file:line:col): refused constructs, unknown LTL atoms
    for system in model.systems:
        ok, _ = driver.supports(system)
        if not ok:
            continue
        assert_engines_agree(system, limit=LIMIT)
        compare(system, LIMIT, notions=(Fairness(fairness),))
