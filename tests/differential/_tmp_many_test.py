from hypothesis import HealthCheck, given, settings

from bridge.engine_c import driver
from tests.differential.test_engine_c import assert_engines_agree, random_systems


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(random_systems())
def test_many(ts):
    ok, why = driver.supports(ts)
    if not ok:
        assert "does not translate" in why or "rejects the model" in why, why
        return
    assert_engines_agree(ts, limit=3000)
