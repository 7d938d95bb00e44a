"""CSP#'s ``deterministic`` and ``divergencefree`` in the C engine against the Python
engine (issue 12): same verdicts, reasons, counts, traces and lassos, on small models
written for the cases that can go wrong: a choice on one event that leads to one state
(not a violation), two steps on one computed event name to different states, a tau
cycle reachable only through hiding, one inside a ``|||``, a two-step cycle entered
after a visible prefix, a bool received from a channel (stored as 1: f.y is the
constant f.1's event, so the choice is nondeterministic) and a comparison named in its
own step (f.True beside a constant f.1: two events). The test models and case studies with these assertions are
compared by ``test_engine_c.py`` (``SUPPORTED_KINDS``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import build, driver
from bridge.ir import Fairness, Outcome, TransitionSystem
from bridge.semantics import explore as python_engine
from tests.differential.test_engine_c import _fingerprint

pytestmark = pytest.mark.skipif(build.find_compiler() is None, reason="no C compiler")

MODEL = """\
var x = 0;
var y = 0;
var n = 0;
Split() = (a -> b -> Split()) [] (a -> c -> Split());
SameState() = a{y = 1} -> SameState() [] a{y = 1} -> SameState();
SameProcess() = a -> SameProcess() [] a -> SameProcess();
Inner() = (go -> Stop) <> (go -> Stop);
Named() = e.x{x = (x + 1) % 3} -> Named() [] e.x -> Stop;
P() = a -> P();
Q() = b -> Q();
P2() = a -> b -> P2();
Hidden() = start -> (P() \\ {a});
Inter() = Q() ||| (start -> (P() \\ {a}));
Visible() = P() ||| Q();
Count() = [n < 3] inc{n = n + 1} -> Count() [] [n == 3] done -> ((P2() ||| Q()) \\ {a, b});
channel c 1;
Bools() = c!(x == 0) -> c?y -> ((f.y -> Bools()) [] (f.1{x = 1} -> Bools()));
Computed() = (f.(x == 0) -> Computed()) [] (f.1{x = 1} -> Computed());
#assert Split() deterministic;
#assert SameState() deterministic;
#assert SameProcess() deterministic;
#assert Inner() deterministic;
#assert Named() deterministic;
#assert Count() deterministic;
#assert Bools() deterministic;
#assert Computed() deterministic;
#assert Hidden() divergencefree;
#assert Inter() divergencefree;
#assert Visible() divergencefree;
#assert Inner() divergencefree;
#assert Split() divergencefree;
#assert Count() divergencefree;
"""

# (outcome, reason, states, transitions, loop length) of the Python engine, the
# reference: the C engine must give the same, and these pin that each case is reached
EXPECTED = {
    "Split() deterministic": ("violated", "nondeterministic on event 'a'", 1, 2, 0),
    "SameState() deterministic": ("holds", "", 2, 4, 0),
    "SameProcess() deterministic": ("holds", "", 1, 2, 0),
    "Inner() deterministic": ("holds", "", 4, 4, 0),
    "Named() deterministic": ("violated", "nondeterministic on event 'e.0'", 1, 2, 0),
    "Count() deterministic": ("holds", "", 6, 8, 0),
    "Bools() deterministic": ("violated", "nondeterministic on event 'f.1'", 3, 4, 0),
    "Computed() deterministic": ("holds", "", 2, 4, 0),
    "Hidden() divergencefree": ("violated", "divergence", 2, 2, 1),
    "Inter() divergencefree": ("violated", "divergence", 2, 4, 1),
    "Visible() divergencefree": ("holds", "", 1, 2, 0),
    "Inner() divergencefree": ("holds", "", 4, 4, 0),
    "Split() divergencefree": ("holds", "", 3, 4, 0),
    "Count() divergencefree": ("violated", "divergence", 6, 8, 2),
}


@pytest.fixture(scope="module")
def systems(tmp_path_factory: pytest.TempPathFactory) -> list[TransitionSystem]:
    path = tmp_path_factory.mktemp("cdet") / "determinism.csp"
    path.write_text(MODEL, encoding="utf-8")
    return list(api.load_model(str(path)).systems)


def _cases(systems: list[TransitionSystem]):
    for ts in systems:
        for prop in ts.properties:
            yield ts, prop


def test_the_engines_agree_on_every_assertion(systems: list[TransitionSystem]) -> None:
    seen = set()
    for ts, prop in _cases(systems):
        ok, why = driver.supports(ts, prop)
        assert ok, why
        expected = python_engine.check_property(ts, prop, python_engine.ExploreOptions())
        got = driver.check_property_c(ts, prop)
        assert dict(got.statistics.extra)["engine"] == "c"
        assert _fingerprint(got) == _fingerprint(expected), prop.text
        loop = len(got.lasso.loop) if got.lasso is not None else 0
        assert (got.outcome.value, got.reason, got.statistics.states,
                got.statistics.transitions, loop) == EXPECTED[prop.text], prop.text
        seen.add(prop.text)
    assert seen == set(EXPECTED)


def test_the_lasso_is_the_python_engines_cycle(systems: list[TransitionSystem]) -> None:
    """Count(): after inc, inc, inc, done, the hidden a then b of P2 (the first cycle
    of the Python engine's depth-first search, not Q's hidden b alone)."""
    ts, prop = next((t, p) for t, p in _cases(systems) if p.text == "Count() divergencefree")
    got = driver.check_property_c(ts, prop)
    assert got.lasso is not None and got.trace is not None
    assert [s.event for s in got.lasso.prefix.steps] == ["inc", "inc", "inc", "done"]
    assert [(s.event, s.text) for s in got.lasso.loop] == [(None, "a"), (None, "b")]


def test_auto_runs_them_in_c(systems: list[TransitionSystem]) -> None:
    """``--engine auto`` with the library built: the C engine answers, no hand-over."""
    for ts, prop in _cases(systems):
        driver.compile_model(ts)
        verdict = api.check_property(ts, prop, api.CheckOptions(engine="auto"))
        assert dict(verdict.statistics.extra).get("engine") == "c", verdict.notes
        assert not any("Python engine" in note for note in verdict.notes), verdict.notes
        assert verdict.outcome is Outcome(EXPECTED[prop.text][0])


def _check(ts: TransitionSystem, text: str, max_memory: int | None = None):
    prop = next(p for p in ts.properties if p.text == text)
    return driver.check_property_c(ts, prop, driver.SearchOptions(max_memory=max_memory))


def test_the_tau_steps_count_against_max_memory(systems: list[TransitionSystem]) -> None:
    """The tau steps kept for divergencefree count against ``max_memory``: a limit
    that the store alone fits in stops the divergence check (clean UNKNOWN)."""
    ts = next(t for t, p in _cases(systems) if p.text == "Count() divergencefree")
    store = _check(ts, "Count() deterministic").statistics.peak_memory_bytes
    full = _check(ts, "Count() divergencefree").statistics.peak_memory_bytes
    assert full > store
    assert _check(ts, "Count() deterministic", store).outcome is Outcome.HOLDS
    limited = _check(ts, "Count() divergencefree", store + 16)
    assert limited.outcome is Outcome.UNKNOWN and "memory limit" in limited.reason


def test_the_event_name_table_counts_against_max_memory(tmp_path: Path) -> None:
    """deterministic renders computed event names into the library's table; its bytes
    are reported and bounded with the store's (a model of its own: a fresh table)."""
    path = tmp_path / "names.csp"
    path.write_text("var z = 0;\nN() = f.z.z{z = (z + 1) % 4} -> N();\n"
                    "#assert N() deadlockfree;\n#assert N() deterministic;\n",
                    encoding="utf-8")
    ts = next(iter(api.load_model(str(path)).systems))
    store = _check(ts, "N() deadlockfree").statistics.peak_memory_bytes  # names not rendered
    named = _check(ts, "N() deterministic")
    assert named.outcome is Outcome.HOLDS
    assert named.statistics.peak_memory_bytes > store
    limited = _check(ts, "N() deterministic", named.statistics.peak_memory_bytes - 1)
    assert limited.outcome is Outcome.UNKNOWN and "memory limit" in limited.reason


def test_a_name_from_a_channel_of_both_kinds_is_named_in_c(tmp_path: Path) -> None:
    """x is received from a channel that carries a comparison or a number: it is
    stored as an int either way (a bool as 1 or 0), so the explorer names h.0, h.1 as
    the LTL product does, and C runs ``deterministic`` (it used to hand it to the
    Python engine, which named h.True or h.1 by the state it kept). Same verdict,
    reason, counts and trace."""
    path = tmp_path / "mixed.csp"
    path.write_text("var n = 0;\nchannel c 1;\n"
                    "P() = step{n = (n + 1) % 3} -> c!(n == 2) -> c!n -> P();\n"
                    "Q() = c?x -> (h.x -> Q() [] h.x -> Stop);\nSys = P() ||| Q();\n"
                    "#assert Sys deterministic;\n", encoding="utf-8")
    ts = next(iter(api.load_model(str(path)).systems))
    prop = ts.properties[0]
    got = driver.check_property_c(ts, prop)
    assert dict(got.statistics.extra)["engine"] == "c"
    expected = python_engine.check_property(ts, prop, python_engine.ExploreOptions())
    assert expected.reason == "nondeterministic on event 'h.0'"
    assert _fingerprint(got) == _fingerprint(expected)
    assert (got.outcome, got.reason, got.statistics.states) == (
        expected.outcome, expected.reason, expected.statistics.states)
    verdict = api.check_property(ts, prop, api.CheckOptions(engine="auto"))
    assert dict(verdict.statistics.extra).get("engine") == "c", verdict.notes
    assert not any(driver.UNNAMED_EVENT in note for note in verdict.notes)


def test_library_call_results_are_named_in_c(tmp_path: Path) -> None:
    """An event name from library calls: ``s.Contains(1)`` is a bool (False), a
    ``Count()`` an int, ``call(Max, n, 1)`` an int over ints; C renders them (it used to
    hand such names to the Python engine: ``value_kind`` did not know a call's result)
    for ``deterministic`` and for event-level fairness alike."""
    path = tmp_path / "calls.csp"
    path.write_text('#import "PAT.Lib.Set";\n#import "PAT.Math";\nvar<Set> s;\nvar n = 0;\n'
                    "P() = e.s.Count().(s.Contains(1)).call(Max, n, 1){s.Add(n); "
                    "n = (n + 1) % 3;} -> P()\n"
                    "   [] e.s.Count().(s.Contains(1)).call(Max, n, 1) -> Stop;\n"
                    "Q() = e.s.Count().(s.Contains(1)).call(Max, n, 1){s.Add(n); "
                    "n = (n + 1) % 3;} -> tick -> Q();\n"
                    "#assert P() deterministic;\n#assert Q() deterministic;\n"
                    "#assert Q() |= []<> tick;\n", encoding="utf-8")
    systems = {ts.name: ts for ts in api.load_model(str(path)).systems}
    reasons = {}
    for ts in systems.values():
        for prop in ts.properties:
            fairness = [Fairness.NONE, Fairness.WEAK] if prop.kind.value == "ltl" \
                else [Fairness.NONE]
            for notion in fairness:
                options = {"fairness": notion}
                py = api.check_property(ts, prop, api.CheckOptions(engine="python", **options))
                c = api.check_property(ts, prop, api.CheckOptions(engine="c", **options))
                assert dict(c.statistics.extra).get("engine") == "c", c.notes
                assert not any("Python engine" in n for n in c.notes), c.notes
                assert _fingerprint(c) == _fingerprint(py), (prop.text, notion)
                reasons[prop.text, notion] = (c.outcome.value, c.reason)
    assert reasons[("P() deterministic", Fairness.NONE)] == (
        "violated", "nondeterministic on event 'e.0.False.1'")
    assert reasons[("Q() deterministic", Fairness.NONE)] == ("holds", "")
    assert reasons[("Q() |= []<> tick", Fairness.WEAK)][0] == "holds"


@pytest.mark.parametrize("capacity", [1, 0])
def test_a_channel_with_arity_tags_is_named_per_send(tmp_path: Path, capacity: int) -> None:
    """A channel whose messages carry their arity (``c!(n == 2)`` and ``c!n.1`` on one
    channel) carrying a comparison: each send, or rendezvous, is named with the kinds of
    its own values past the tag (``c!True``, ``c!1.1``, ``c.False``), as the Python
    engine names it; C used to hand every check that needs such names to Python."""
    path = tmp_path / "tagged.csp"
    path.write_text(f"var n = 0;\nchannel c {capacity};\n"
                    "P() = step{n = (n + 1) % 3} -> c!(n == 2) -> c!n.1 -> P();\n"
                    "Q() = c?x -> h.x -> Q() [] c?y.z -> k.y.z -> Q();\nSys = P() ||| Q();\n"
                    "#assert Sys deterministic;\n#assert Sys |= []<> h.1;\n"
                    "#assert Sys |= []<> k.2.1;\n", encoding="utf-8")
    ts, = api.load_model(str(path)).systems
    for prop in ts.properties:
        notions = [Fairness.NONE, Fairness.WEAK, Fairness.STRONG_LOCAL] \
            if prop.kind.value == "ltl" else [Fairness.NONE]
        for notion in notions:
            py = api.check_property(ts, prop, api.CheckOptions(engine="python", fairness=notion))
            c = api.check_property(ts, prop, api.CheckOptions(engine="c", fairness=notion))
            assert dict(c.statistics.extra).get("engine") == "c", c.notes
            assert not any("Python engine" in n for n in c.notes), c.notes
            assert _fingerprint(c) == _fingerprint(py), (prop.text, notion)
