"""Regression: the C engine's table of library values (templates/c/library.c) was
counted against ``--max-memory`` only after each expansion, so a value interned there
could double the table past the limit (a list growing to 1,500 elements: 8.5 MB
reported under a 6 MB limit). The search now bounds the table before each expansion
by what the limit leaves it (``br_lib_bound``): every search stops at its memory limit
with no more than the limit counted, as the store does (issue 12).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.diagnostics import ResourceLimitReached
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import Outcome, PropertyKind
from tests.conftest import in_ci

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

# each state holds a longer list: the library table (about n^2 / 2 elements) dwarfs
# the store of 1,501 states
MODEL = """#import "PAT.Lib.List";
var<List> l;
var n = 0;
P() = [n < 1500] add{l.Add(n); n = n + 1;} -> P();
#assert P() deadlockfree;
#assert P() |= []<> add;
"""

LIMITS = (2_000_000, 6_000_000)


@pytest.fixture(scope="module")
def system(tmp_path_factory: pytest.TempPathFactory):
    path: Path = tmp_path_factory.mktemp("libmem") / "grow.csp"
    path.write_text(MODEL, encoding="utf-8")
    (ts,) = api.load_model(str(path)).systems
    return ts


def test_the_table_needs_more_than_the_limits(system) -> None:
    stats = driver.explore_c(system)
    assert stats.states == 1501
    assert stats.peak_memory_bytes > 2 * max(LIMITS)


@pytest.mark.parametrize("limit", LIMITS)
def test_explore_stops_within_the_memory_limit(system, limit: int) -> None:
    with pytest.raises(ResourceLimitReached, match="memory limit") as stop:
        driver.explore_c(system, driver.SearchOptions(max_memory=limit))
    assert 0 < stop.value.statistics.peak_memory_bytes <= limit


@pytest.mark.parametrize("limit", LIMITS)
def test_deadlock_check_stops_within_the_memory_limit(system, limit: int) -> None:
    prop = next(p for p in system.properties if p.kind is not PropertyKind.LTL)
    verdict = driver.check_property_c(system, prop, driver.SearchOptions(max_memory=limit))
    assert verdict.outcome is Outcome.UNKNOWN and "memory limit" in (verdict.reason or "")
    assert 0 < verdict.statistics.peak_memory_bytes <= limit


@pytest.mark.parametrize("limit", LIMITS)
def test_fair_search_stops_within_the_memory_limit(system, limit: int) -> None:
    prop = next(p for p in system.properties if p.kind is PropertyKind.LTL)
    verdict = api.check_property(system, prop, api.CheckOptions(engine="c", max_memory=limit))
    assert verdict.outcome is Outcome.UNKNOWN and "memory limit" in (verdict.reason or "")
    assert 0 < verdict.statistics.peak_memory_bytes <= limit
    unlimited = api.check_property(system, prop, api.CheckOptions(engine="c"))
    assert unlimited.outcome is Outcome.VIOLATED
