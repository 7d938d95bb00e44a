"""Regression: the Python engine named one step two ways. Its explorer kept each state
as the step built it, so ``c!(n == 2) -> c?x -> f.x`` stored the bool ``False`` in
the channel and in ``x`` and named the steps ``c?False``, ``f.False`` (``deterministic``:
"nondeterministic on event 'f.False'"), while its LTL product expanded states from
their packed form, where a stored bool is an int, and named the same steps ``c?0``,
``f.0``. Now a bool is stored as the int 1 or 0 (a variable, a channel buffer, a local,
a parameter: ``semantics.codegen.stored_value``), so both searches name ``c?0`` and
``f.0``; a value computed in the step and named in it stays a bool (``c!False``).
The C engine, which renders names as the Python engine does, now runs
``deterministic`` on such models instead of handing them to the Python engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import build, driver
from bridge.frontends.csp import load_csp
from bridge.ir import Outcome
from bridge.semantics import explore as python_engine
from bridge.semantics.statespace import build_state_space

MODEL = """\
var n = 0;
channel c 1;
channel r 0;
P() = step{n = (n + 1) % 3} -> c!(n == 2) -> c?x -> (f.x -> P() [] f.x -> Stop);
Q() = r!(n == 0) -> Q();
R() = r?y -> g.y -> R();
Sys = Q() ||| R();
#assert P() deterministic;
#assert P() |= [] !f.0;
#assert Sys deterministic;
#assert Sys |= []<> g.1;
"""


@pytest.fixture()
def systems(tmp_path: Path):
    path = tmp_path / "stored_bool.csp"
    path.write_text(MODEL, encoding="utf-8")
    return {ts.name: ts for ts in api.load_model(str(path)).systems}


def _props(systems):
    for ts in systems.values():
        for prop in ts.properties:
            yield ts, prop


def _events(result) -> list[str]:
    """The event names of a verdict's trace, or of its lasso's prefix and loop."""
    if result.lasso is not None:
        steps = [*result.lasso.prefix.steps, *result.lasso.loop]
    else:
        assert result.trace is not None
        steps = list(result.trace.steps)
    return [step.event for step in steps]


def test_the_explorer_and_the_product_name_a_stored_bool_alike(systems) -> None:
    (ts, det), (_, ltl), *_ = _props(systems)
    explored = python_engine.check_property(ts, det, python_engine.ExploreOptions())
    assert explored.outcome is Outcome.VIOLATED
    assert explored.reason == "nondeterministic on event 'f.0'"
    assert _events(explored) == ["step", "c!False", "c?0"]  # then f.0 to two states
    product = api.check_property(ts, ltl, api.CheckOptions(engine="python"))
    assert product.outcome is Outcome.VIOLATED
    assert _events(product)[:4] == [*_events(explored), "f.0"]


def test_a_rendezvous_binds_an_int() -> None:
    """``r!(n == 0)`` names the rendezvous ``r.True`` (computed in the step); ``y``
    bound by it holds 1, so ``g.y`` is ``g.1`` in every search."""
    space_model = MODEL.replace("#assert P()", "// ")
    system = next(ts for ts in load_csp("r.csp", space_model).systems if ts.name == "Sys")
    space = build_state_space(system)
    start = space.initial_states()[0]
    (step, after), = space.successors(start)
    assert step.event == "r.True"
    y = [v for k, v in space.valuation(after).items() if k.endswith(".y")]
    assert y == [1] and type(y[0]) is int
    (step2, _), = space.successors(after)
    assert step2.event == "g.1"


@pytest.mark.skipif(build.find_compiler() is None, reason="no C compiler")
def test_the_c_engine_runs_deterministic_and_agrees(systems) -> None:
    for ts, prop in _props(systems):
        expected = api.check_property(ts, prop, api.CheckOptions(engine="python"))
        got = api.check_property(ts, prop, api.CheckOptions(engine="c"))
        assert not any(driver.UNNAMED_EVENT in note for note in got.notes), prop.text
        assert (got.outcome, got.reason, got.statistics.states) == (
            expected.outcome, expected.reason, expected.statistics.states), prop.text
        if expected.trace is not None or expected.lasso is not None:
            assert _events(got) == _events(expected), prop.text
        if prop.kind.value != "ltl":
            assert dict(driver.check_property_c(ts, prop).statistics.extra)["engine"] == "c"


def test_a_library_calls_bool_is_stored_as_an_int() -> None:
    """``c!s.Contains(1)`` is named with the call's bool (``c!True``); the buffer, and x
    received from it, hold 1 (``codegen._call_bool_kind``)."""
    text = ('#import "PAT.Lib.Set";\nvar<Set> s;\nchannel c 1;\n'
            "P() = a{s.Add(1);} -> c!s.Contains(1) -> c?x -> e.x -> Stop;\n"
            "#assert P() deadlockfree;\n")
    space = build_state_space(load_csp("l.csp", text).systems[0])
    state = space.initial_states()[0]
    events = []
    while True:
        steps = space.successors(state)
        if not steps:
            break
        (step, state), = steps
        events.append(step.event)
    assert events == ["a", "c!True", "c?1", "e.1"]


def test_a_deadlock_trace_and_a_lasso_show_one_run_alike(tmp_path: Path) -> None:
    """The same run as the explorer's deadlock trace and the LTL product's lasso: the
    same event names (c?1, not c?True then c?1), and a stored bool still works as a
    truth value (``y == true``, ``if (z)``); the declared bool b shows true/false."""
    path = tmp_path / "run.csp"
    path.write_text("var n = 0;\nvar b = false;\nchannel c 1;\n"
                    "P() = a{n = n + 1; b = (n == 1)} -> c!(n == 1) -> c?x -> Q(x);\n"
                    "Q(y) = [y == true && b] g -> R(y);\n"
                    "R(z) = if (z) { d -> Stop } else { e -> Stop };\n"
                    "#assert P() deadlockfree;\n#assert P() |= [] !d;\n", encoding="utf-8")
    ts, = api.load_model(str(path)).systems
    deadlock, ltl = (api.check_property(ts, p, api.CheckOptions(engine="python"))
                     for p in ts.properties)
    assert deadlock.outcome is ltl.outcome is Outcome.VIOLATED
    assert _events(deadlock) == _events(ltl)[:-1] == ["a", "c!True", "c?1", "g", None, "d"]
    assert deadlock.trace is not None and ltl.lasso is not None
    changes = [step.changes for step in deadlock.trace.steps]
    assert changes == [step.changes for step in ltl.lasso.prefix.steps]
    assert ("b", False, True) in changes[0]
    y = [new for name, _, new in changes[2] if name == "P().y"]
    assert y == [1] and type(y[0]) is int
