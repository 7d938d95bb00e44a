"""CSP# constructs of issue 15 through ``translate --to promela``: SPIN on the emitted
model gives the native verdict (channel arrays, channels of several arities, macros,
indexed guards, PAT.Math); what has no Promela form is refused by name.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bridge.backends.spin.emit import emit_promela
from bridge.backends.spin.run import run_spin
from bridge.diagnostics import UnsupportedError
from bridge.frontends.csp import load_csp
from bridge.ir import Fairness, Outcome, TransitionSystem
from bridge.semantics.explore import ExploreOptions, check_property

pytestmark = [
    pytest.mark.spin,
    pytest.mark.skipif(
        shutil.which("spin") is None or shutil.which("gcc") is None,
        reason="needs spin and a C compiler",
    ),
]

MODELS = Path(__file__).resolve().parents[1] / "models" / "csp"


def _systems(name: str) -> list[TransitionSystem]:
    return list(load_csp(str(MODELS / f"{name}.csp")).systems)


def _spin_deadlock(system: TransitionSystem) -> Outcome:
    """Return SPIN's verdict on deadlock freedom (invalid end states) of ``system``."""
    prop = next(p for p in system.properties if p.kind.name == "DEADLOCK_FREE")
    model = emit_promela(system, "plain", Fairness.NONE, prop)
    emitted = model.properties[0]
    result = run_spin(model.text, model.spin_options(emitted, timeout=60))
    assert not result.timed_out and (result.complete or result.errors), model.text
    return Outcome.VIOLATED if result.errors > 0 else Outcome.HOLDS


@pytest.mark.parametrize(
    "name, expected",
    [
        # c[0]!3 -> c[0]?x -> c[1]!x -> c[1]?y -> Stop: deadlocks (ends in Stop)
        ("pat35_channel_array", Outcome.VIOLATED),
        # peer[i * N + j] handshakes and post[slot] with slot a variable: ends in Stop
        ("pat35_channel_grid", Outcome.VIOLATED),
        # c!1.2 -> c!5 -> c?x: the head message has 2 fields: deadlock after 2 sends
        ("pat35_channel_arities", Outcome.VIOLATED),
        ("pat35_channel_arities_sync", Outcome.VIOLATED),
        # Switch cycles forever
        ("pat35_bom_includes", Outcome.HOLDS),
        # a guarded cycle of references: Visit(1) buys forever
        ("pat35_guarded_cycle", Outcome.HOLDS),
        # [&& j:{0..1}@(a[j] == 0)] ok -> Stop: the guard holds, then Stop
        ("pat35_indexed_guard", Outcome.VIOLATED),
        # seen.x (x received) interleaves in '||': both operands end in Stop
        ("pat35_dynamic_event_alphabet", Outcome.VIOLATED),
        # (Giver() || Taker()) \ {hand, give}: both end in Stop
        ("pat35_hiding_parallel", Outcome.VIOLATED),
    ],
)
def test_spin_agrees_on_deadlock(name: str, expected: Outcome) -> None:
    system = next(s for s in _systems(name)
                  if any(p.kind.name == "DEADLOCK_FREE" for p in s.properties))
    prop = next(p for p in system.properties if p.kind.name == "DEADLOCK_FREE")
    assert check_property(system, prop, ExploreOptions(max_states=None, timeout=60)).outcome is expected
    assert _spin_deadlock(system) is expected


def test_macros_translate() -> None:
    """Macros are expanded by the front-end: ``call(inc, x)`` while x < 3, then a
    guard ``call(atmost, x, 3)`` that stays true: x == 3 loops on ``idle`` (SPIN and
    the engine: deadlock-free)."""
    text = ("var x = 0;\n#define inc(v) v = v + 1;\n#define atmost(v, k) v <= k;\n"
            "P = [x < 3] step{call(inc, x)} -> P [] [call(atmost, x, 3)] idle -> P;\n"
            "#assert P deadlockfree;")
    system = load_csp("t.csp", text).systems[0]
    prop = system.properties[0]
    assert check_property(system, prop, ExploreOptions(max_states=None, timeout=60)).outcome is \
        Outcome.HOLDS
    assert _spin_deadlock(system) is Outcome.HOLDS


def test_math_library_translates() -> None:
    """Pow with a constant exponent, Abs, Max, Min have Promela forms: the emitted model
    runs in SPIN (it deadlocks in Stop, as the native engine finds)."""
    system = _systems("pat35_math")[0]
    model = emit_promela(system, "plain", Fairness.NONE, None)
    assert "(2) * (2)" in model.text and "->" in model.text


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('#import "PAT.Lib.Set";\nvar<Set> s;\nP = a{s.Add(1)} -> P;\n#assert P deadlockfree;',
         "PAT library object (var<Set>"),
        ('#import "PAT.Math";\nvar x = 2;\nvar y = 0;\nP = a{y = call(Pow, 2, x)} -> P;\n'
         "#assert P deadlockfree;", "call(Pow, ...) of PAT.Math with an exponent known only"),
    ],
)
def test_constructs_without_promela_form_are_refused_by_name(text: str, fragment: str) -> None:
    system = load_csp("t.csp", text).systems[0]
    with pytest.raises(UnsupportedError, match="unsupported construct") as info:
        emit_promela(system, "plain", Fairness.NONE, None)
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    "name, count",
    [
        # hidden events are tau in the emitted model too: <> hand fails where hand is
        # hidden (Pair, Mixed) and holds where another operand's hand is visible (Sys)
        ("pat35_hiding_parallel", 8),
        # '|||' inside a process (under recursion, a choice, with received values)
        ("pat35_interleave_dynamic", 6),
    ],
)
def test_spin_agrees_on_every_ltl_and_deadlock_check(name: str, count: int) -> None:
    """SPIN (premise encoding, no fairness) and the engine agree on each deadlock and
    LTL assertion of every system of the model."""
    from bridge import api

    seen = 0
    for system in _systems(name):
        for prop in system.properties:
            if prop.kind.name == "DEADLOCK_FREE":
                native = api.check_property(system, prop, api.CheckOptions()).outcome
                assert _spin_deadlock(system) is native, prop.text
                seen += 1
            if prop.kind.name != "LTL":
                continue
            native = api.check_property(system, prop, api.CheckOptions()).outcome
            model = emit_promela(system, "premise", Fairness.NONE, prop)
            result = run_spin(model.text, model.spin_options(model.properties[0], timeout=60))
            assert not result.timed_out
            spin = Outcome.VIOLATED if result.errors > 0 else Outcome.HOLDS
            assert spin is native, prop.text
            seen += 1
    assert seen == count


def test_atomic_operand_inside_a_process_is_refused_by_name() -> None:
    system = _systems("pat35_interleave_atomic")[0]
    with pytest.raises(UnsupportedError, match="'atomic' in an operand of '[|][|][|]'"):
        emit_promela(system, "plain", Fairness.NONE, None)
