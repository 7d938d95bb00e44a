"""check_never: a Promela never claim checked in the fair product, compared with SPIN.

Each model's verdict without fairness is compared with ``pan -a`` on the same text
(SPIN tests are marked ``spin``; on the Python engine and on the compiled engine's
fair search); fairness tests check that the shared fairness machinery applies to never
claims too.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from bridge.diagnostics import UnsupportedError
from bridge.fairness.check import LtlOptions
from bridge.fairness.never import check_never
from bridge.frontends.promela import load_promela
from bridge.ir.property import Fairness, PropertyKind
from bridge.ir.verdict import Outcome

ROOT = Path(__file__).resolve().parents[3]
M23 = ROOT / "tests" / "models" / "promela" / "m23_ltl_never.pml"

# x toggles between 0 and 1 forever; the claim accepts once x stays 1 forever.
ACCEPT_CYCLE = """
byte x;
active proctype P() {
  do
  :: x = 1
  :: x = 0
  od
}
never {
T0_init:
  do
  :: (x == 1) -> goto accept_S1
  :: true
  od;
accept_S1:
  do
  :: (x == 1)
  od
}
"""

# x counts to 3 and stops: the claim "x reaches 5" never matches.
HOLDING = """
byte x;
active proctype P() {
  do
  :: x < 3 -> x++
  :: x >= 3 -> break
  od
}
never {
T0_init:
  do
  :: (x == 5) -> goto accept_all
  :: true
  od;
accept_all:
  do
  :: true
  od
}
"""

# The claim terminates (reaches its closing brace) once x == 2: a safety violation.
TERMINATING = """
byte x;
active proctype P() {
  do
  :: x < 3 -> x++
  :: x >= 3 -> break
  od
}
never {
  do
  :: x == 2 -> break
  :: else
  od
}
"""

# The same claim shape, but x never reaches 2: the claim never terminates.
TERMINATING_HOLDS = TERMINATING.replace("x < 3 -> x++", "x < 1 -> x++").replace(
    "x >= 3 -> break", "x >= 1 -> break"
)

# else: the claim accepts "y is 0 until it first becomes non-zero, then non-zero
# forever" (``else`` = y != 0). P's y cycles 0,1,2,0,... (the claim blocks in ``stop``:
# holds) unless P can stop at y == 1 (the run stutters there: violated).
WITH_ELSE = """
byte y;
active proctype P() {
  do
  :: y < 2 -> y++
  :: y == 2 -> y = 0
  :: y == 1 -> break
  od
}
never {
T0_init:
  if
  :: y == 0 -> goto T0_init
  :: else -> goto accept_S
  fi;
accept_S:
  if
  :: y == 0 -> goto stop
  :: else -> goto accept_S
  fi;
stop:
  if
  :: false
  fi
}
"""

WITH_ELSE_HOLDS = WITH_ELSE.replace(":: y == 1 -> break\n", "")

# Two processes; without fairness P alone can run forever and starve Q's done = 1.
# The claim: "done stays 0 forever".
FAIRNESS = """
bool done;
byte n;
active proctype P() {
  do
  :: n = 1 - n
  od
}
active proctype Q() {
  done = 1
}
never {
accept_init:
  do
  :: !done
  od
}
"""

# x is 1 only in the initial state: a claim that terminates on x == 1 must read s0
# (SPIN: the claim moves first, reading the state before the system's step).
INITIAL_STATE = """
byte x = 1;
active proctype P() { x = 0 }
never { do :: x == 1 -> break :: else od }
"""

# The claim reads x == 2 only in a state that one system step leaves at once.
TRANSIENT = """
byte x;
active proctype P() { x = 2; x = 3; x = 4 }
never { do :: x == 2 -> break :: x != 2 od }
"""

# The system blocks for ever in an invalid end state with x == 1: the run stutters
# there and the claim accepts the stutter loop (SPIN's stutter extension).
DEADLOCK_STUTTER = """
byte x;
chan c = [0] of { bit };
active proctype P() { x = 1; c?1 }
never {
T0_init:
  do
  :: x == 1 -> goto accept_S
  :: true
  od;
accept_S:
  do
  :: x == 1
  od
}
"""

# ``else`` beside an unconditional option is never executable: the claim loops for ever
# on ``true`` and has no accept state, so it never matches.
ELSE_BESIDE_TRUE = """
byte x;
active proctype P() { x = 1 }
never { do :: true :: else -> break od }
"""


def _never(text: str, name: str = "model.pml"):
    system = load_promela(name, text).systems[0]
    props = [p for p in system.properties if p.kind is PropertyKind.NEVER]
    assert len(props) == 1
    return system, props[0]


def _ours(text: str, fairness: Fairness | None = None) -> Outcome:
    system, prop = _never(text)
    return check_never(system, prop, LtlOptions(fairness=fairness)).outcome


def _spin_verdict(text: str) -> tuple[Outcome, str]:
    """Return pan -a's outcome and error kind for the model's never claim."""
    from bridge.backends.spin.run import SpinOptions, run_spin

    # Only the claim: drop ltl blocks (spin would make them claims too).
    text = re.sub(r"^ltl .*$", "", text, flags=re.M)
    result = run_spin(text, SpinOptions(acceptance=True, timeout=60.0, ignore_end_states=True))
    assert result.complete or result.errors > 0, result
    return (Outcome.VIOLATED if result.errors > 0 else Outcome.HOLDS), result.error_kind or ""


needs_spin = pytest.mark.skipif(
    shutil.which("spin") is None or (shutil.which("cc") is None and shutil.which("gcc") is None),
    reason="spin and a C compiler are needed to compare with SPIN",
)

CASES = {
    "accept_cycle": (ACCEPT_CYCLE, Outcome.VIOLATED),
    "holding": (HOLDING, Outcome.HOLDS),
    "terminating": (TERMINATING, Outcome.VIOLATED),
    "terminating_holds": (TERMINATING_HOLDS, Outcome.HOLDS),
    "with_else": (WITH_ELSE, Outcome.VIOLATED),
    "with_else_holds": (WITH_ELSE_HOLDS, Outcome.HOLDS),
    "m23": (M23.read_text(encoding="utf-8"), Outcome.VIOLATED),
    "unfair_starvation": (FAIRNESS, Outcome.VIOLATED),
    "initial_state": (INITIAL_STATE, Outcome.VIOLATED),
    "transient": (TRANSIENT, Outcome.VIOLATED),
    "deadlock_stutter": (DEADLOCK_STUTTER, Outcome.VIOLATED),
    "else_beside_true": (ELSE_BESIDE_TRUE, Outcome.HOLDS),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_expected_verdict(name: str) -> None:
    text, expected = CASES[name]
    assert _ours(text) is expected


def _engine(system, prop, engine: str, fairness: Fairness | None = None):  # noqa: ANN001, ANN202
    """Return the verdict of ``bridge.api`` on ``engine`` (checking that it ran there)."""
    from bridge import api

    verdict = api.check_property(system, prop, api.CheckOptions(engine=engine,
                                                                fairness=fairness))
    assert (("engine", "c") in verdict.statistics.extra) == (engine == "c"), verdict.notes
    return verdict


@pytest.mark.spin
@needs_spin
@pytest.mark.parametrize("engine", ["python", "c"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_agrees_with_spin(name: str, engine: str) -> None:
    text, _expected = CASES[name]
    system, prop = _never(text)
    ours = _engine(system, prop, engine)
    outcome, kind = _spin_verdict(text)
    assert ours.outcome is outcome
    if kind == "claim violated":  # pan: the claim reached its closing brace
        assert "terminated" in ours.reason
    elif kind == "acceptance cycle":
        assert ours.reason.startswith("acceptance cycle")


def test_lowering_numbers_never_after_ltl_blocks() -> None:
    system = load_promela(str(M23)).systems[0]
    assert [(p.name, p.kind, p.number) for p in system.properties] == [
        ("always_small", PropertyKind.LTL, 1),
        ("infinitely", PropertyKind.LTL, 2),
        ("until_form", PropertyKind.LTL, 3),
        ("never", PropertyKind.NEVER, 4),
        ("safety", PropertyKind.SAFETY, 5),
    ]


def test_no_never_property_without_claim() -> None:
    system = load_promela("m.pml", "active proctype P() { skip }").systems[0]
    assert all(p.kind is not PropertyKind.NEVER for p in system.properties)


def test_terminating_claim_reason_and_lasso() -> None:
    system, prop = _never(TERMINATING)
    verdict = check_never(system, prop)
    assert verdict.outcome is Outcome.VIOLATED
    assert "terminated" in verdict.reason
    assert verdict.lasso is not None


def test_accept_cycle_reason() -> None:
    system, prop = _never(ACCEPT_CYCLE)
    verdict = check_never(system, prop)
    assert verdict.reason.startswith("acceptance cycle")
    assert verdict.lasso is not None


def test_fairness_applies_to_never_claims() -> None:
    # Process-weak fairness forces Q to run: done becomes 1 and the claim blocks.
    assert _ours(FAIRNESS, Fairness.NONE) is Outcome.VIOLATED
    assert _ours(FAIRNESS, Fairness.PROCESS_WEAK) is Outcome.HOLDS
    assert _ours(FAIRNESS, Fairness.WEAK) is Outcome.HOLDS


@pytest.mark.spin
@needs_spin
@pytest.mark.parametrize("engine", ["python", "c"])
def test_fairness_agrees_with_spin_weak_fairness(engine: str) -> None:
    from bridge.backends.spin.run import SpinOptions, run_spin

    result = run_spin(FAIRNESS, SpinOptions(acceptance=True, weak_fairness=True, processes=2))
    spin = Outcome.VIOLATED if result.errors > 0 else Outcome.HOLDS
    system, prop = _never(FAIRNESS)
    assert _engine(system, prop, engine, Fairness.PROCESS_WEAK).outcome is spin


def test_side_effects_in_claim_are_rejected() -> None:
    text = "byte x; active proctype P() { x = 1 }\nnever { do :: x == 1 -> printf(\"hi\") od }"
    system, prop = _never(text)
    with pytest.raises(UnsupportedError, match="never claim statement"):
        check_never(system, prop)
