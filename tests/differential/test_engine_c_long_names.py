"""The C engine on event names of several kB (issue 12), against the Python engine.

C rendered a name computed at run time into a fixed buffer of 1,024 bytes
(``gen_events``, ``BR_NAME_MAX``): a longer one (a long library value, many parameters)
was unrendered, and ``deterministic``, event-level fairness and event atoms handed the
check to the Python engine (``driver.UNNAMED_EVENT``, ``COMPUTED_EVENT``,
``COMPUTED_ACTION``). The buffer now grows on the heap past 1,024 bytes (``nm_put``).

``e.s`` names the list ``s`` of up to 400 numbers of 8 digits (4 kB): ``Sys() |= []<>
done`` (an event atom) fails without fairness (the idle loop) and holds under the
event-level notions, which must name every ``e.s``; ``Twice()`` is nondeterministic
on the 4 kB name, which the verdict's reason quotes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import Fairness, Outcome, PropertyKind, TransitionSystem
from tests.conftest import in_ci
from tests.differential.test_engine_c import assert_engines_agree
from tests.differential.test_engine_c_ltl import compare

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

MODEL = """#import "PAT.Lib.List";
#define N 400;
var<List> s;
var n = 0;
Grow() = [n < N] add{s.Add(10000000 + n); n = n + 1;} -> e.s -> Grow()
      [] [n == N] e.s -> done -> Grow();
Idle() = idle -> Idle();
Sys() = Grow() ||| Idle();
Twice() = [n < N] add{s.Add(10000000 + n); n = n + 1;} -> e.s -> Twice()
      [] [n == N] e.s -> done -> Twice()
      [] [n == N] e.s -> Stop;
#assert Sys() |= []<> done;
#assert Twice() deterministic;
#assert Grow() deterministic;
"""

FALLBACKS = (driver.UNNAMED_EVENT, driver.COMPUTED_EVENT, driver.COMPUTED_ACTION)


def _systems(tmp_path: Path) -> dict[str, TransitionSystem]:
    path = tmp_path / "long.csp"
    path.write_text(MODEL, encoding="utf-8")
    return {ts.name: ts for ts in api.load_model(str(path)).systems}


def test_a_name_of_4_kb_is_named_in_the_deterministic_check(tmp_path: Path) -> None:
    systems = _systems(tmp_path)
    twice, grow = systems["Twice"], systems["Grow"]
    assert assert_engines_agree(twice) == 2 and assert_engines_agree(grow) == 2
    got = driver.check_property_c(twice, twice.properties[0])  # no CFallback
    assert got.outcome is Outcome.VIOLATED
    name = got.reason.removeprefix("nondeterministic on event '").removesuffix("'")
    assert len(name) > 4000 and name.startswith("e.(10000000, ") and name.endswith("10000399)")
    held = api.check_property(grow, grow.properties[0], api.CheckOptions(engine="auto"))
    assert held.outcome is Outcome.HOLDS and dict(held.statistics.extra)["engine"] == "c"


def test_an_event_atom_over_4_kb_names_agrees_under_every_notion(tmp_path: Path) -> None:
    ts = _systems(tmp_path)["Sys"]
    assert compare(ts, 5000) == len(Fairness)
    [ltl] = [p for p in ts.properties if p.kind is PropertyKind.LTL]
    for fairness, outcome in ((Fairness.NONE, Outcome.VIOLATED), (Fairness.WEAK, Outcome.HOLDS),
                              (Fairness.STRONG_LOCAL, Outcome.HOLDS)):
        got = api.check_property(ts, ltl, api.CheckOptions(engine="auto", fairness=fairness))
        assert got.outcome is outcome, fairness
        assert dict(got.statistics.extra)["engine"] == "c", got.notes
        assert not any(f in n for f in FALLBACKS for n in got.notes), got.notes
