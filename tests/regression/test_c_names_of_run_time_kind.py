"""Regression: the C engine handed to the Python engine every check that needed the
name of a step whose value's kind (a bool or an int) the generator could not tell
(``gen_events.value_kind`` None): ``deterministic``, weak and strong-local fairness
and event atoms fell back (``driver.UNNAMED_EVENT``, ``COMPUTED_EVENT``,
``COMPUTED_ACTION``). The cases were a conditional whose branches differ in kind, a
bitwise operation of a bool and an int, a send on a channel chosen at run time (or on
a channel of library values) among comparisons and numbers, and an element of a
library value to which a bool was added. Now the kind is computed next to the value
(``kind_code``), a send is named with its own values' kinds, and the Python engine
stores a bool put into a library value as an int (``semantics.library.element``).

A name longer than ``BR_NAME_MAX`` (1024 bytes) stayed with the Python engine; it is
rendered now (the buffer grows on the heap; tests/differential/test_engine_c_long_names.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import build, driver
from bridge.ir import Binary, Conditional, Const, Event, Fairness, Outcome, Var
from tests.irbuild import replace_nodes

pytestmark = pytest.mark.skipif(build.find_compiler() is None, reason="no C compiler")

MODELS = Path(__file__).resolve().parents[1] / "models" / "csp"
N = Var("n", "global")


def _conditional_names(tmp_path: Path):
    """P names e.(n == 1 ? n == 1 : 2): e.2, e.True, e.2; nondeterministic on e.2."""
    path = tmp_path / "conditional.csp"
    path.write_text("var n = 0;\nP() = e.n{n = (n + 1) % 3} -> P() [] e.n -> Stop;\n"
                    "#assert P() deterministic;\n", encoding="utf-8")
    ts = next(iter(api.load_model(str(path)).systems))
    value = Conditional(Binary("==", N, Const(1)), Binary("==", N, Const(1)), Const(2))

    return replace_nodes(ts, lambda node: dataclasses.replace(node, components=(value,))
                         if isinstance(node, Event) else None)


def test_a_conditional_of_both_kinds_runs_deterministic_in_c(tmp_path: Path) -> None:
    ts = _conditional_names(tmp_path)
    prop = ts.properties[0]
    got = driver.check_property_c(ts, prop)  # raised CFallback(UNNAMED_EVENT) before
    want = api.check_property(ts, prop, api.CheckOptions(engine="python"))
    assert (got.outcome, got.reason) == (want.outcome, want.reason) == (
        Outcome.VIOLATED, "nondeterministic on event 'e.2'")
    auto = api.check_property(ts, prop, api.CheckOptions(engine="auto"))
    assert dict(auto.statistics.extra).get("engine") == "c", auto.notes


def test_a_channel_chosen_at_run_time_runs_event_fairness_in_c() -> None:
    ts = next(iter(api.load_model(str(MODELS / "computed_names_channel_kinds.csp")).systems))
    driver.compile_model(ts)
    for prop in ts.properties:
        for fairness in (Fairness.WEAK, Fairness.STRONG_LOCAL):
            got = api.check_property(ts, prop, api.CheckOptions(engine="c", fairness=fairness))
            want = api.check_property(ts, prop, api.CheckOptions(engine="python",
                                                                 fairness=fairness))
            assert not any(driver.COMPUTED_ACTION in n or driver.UNNAMED_EVENT in n
                           or driver.COMPUTED_EVENT in n for n in got.notes), got.notes
            assert (got.outcome, got.reason, got.statistics.states) == \
                (want.outcome, want.reason, want.statistics.states)


def test_a_name_longer_than_1024_bytes_runs_in_c(tmp_path: Path) -> None:
    """A list of 130 numbers of 8 digits names a step longer than 1024 bytes: C handed
    ``deterministic`` to the Python engine (``UNNAMED_EVENT``); now C renders it."""
    path = tmp_path / "long.csp"
    path.write_text('#import "PAT.Lib.List";\nvar<List> s;\nvar n = 0;\n'
                    "P() = [n < 130] add{s.Add(10000000 + n); n = n + 1;} -> e.s -> P();\n"
                    "#assert P() deterministic;\n", encoding="utf-8")
    ts = next(iter(api.load_model(str(path)).systems))
    prop = ts.properties[0]
    got = driver.check_property_c(ts, prop)  # raised CFallback(UNNAMED_EVENT) before
    auto = api.check_property(ts, prop, api.CheckOptions(engine="auto"))
    want = api.check_property(ts, prop, api.CheckOptions(engine="python"))
    assert not any(driver.UNNAMED_EVENT in n for n in auto.notes)
    assert dict(auto.statistics.extra)["engine"] == "c"
    assert (got.outcome, got.statistics.states) == (auto.outcome, auto.statistics.states) \
        == (want.outcome, want.statistics.states)
