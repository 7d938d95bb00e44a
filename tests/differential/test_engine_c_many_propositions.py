"""The C fair search on formulas of more than 32 propositions (issue 12), against the
Python engine.

A letter (the propositions true in a state, or on a step for event atoms) was a 32-bit
word in ``templates/c/search_ltl.c`` (the automaton's cubes, ``event_bits``, the letter
stored per system state), so ``driver.ltl_supports`` refused a formula of more than 32
propositions and ``--engine auto`` ran it in Python: a conjunction of 40 ``[]<>`` is one
a user writes (every value of a counter, every event of a ring). Letters are 64-bit
words now (stored in 1, 2, 4 or 8 bytes per system state, so small formulas keep their
bytes); more than 64 propositions stay refused by name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c.build import find_compiler
from bridge.ir import Fairness, Outcome, PropertyKind, TransitionSystem
from tests.conftest import in_ci
from tests.differential.test_engine_c_ltl import compare

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

K = 40  # propositions: past 32 (the bits 32..39 are the ones a 32-bit letter loses)


def _events(k: int) -> str:
    """The events a0..a{k-1} in a ring beside an idle loop. ``[]<> (a{k-2} || a{k-1})``
    fails without fairness and holds under weak fairness; the first conjunct always
    holds (no step is two events) but makes every event an atom, those of the second
    last (bits k-2 and k-1)."""
    ring = " -> ".join(f"a{i}" for i in range(k))
    every = " && ".join(f"a{i}" for i in range(k - 2))
    return (f"P() = {ring} -> P();\nIdle() = idle -> Idle();\nSys() = P() ||| Idle();\n"
            f"#assert Sys() |= [] !({every}) && []<> (a{k - 2} || a{k - 1});\n")


def _states(k: int) -> str:
    """The same over state propositions: x counts 0..k-1 and z_i is x == i."""
    defs = "".join(f"#define z{i} x == {i};\n" for i in range(k))
    every = " && ".join(f"z{i}" for i in range(k - 2))
    return (f"var x = 0;\n{defs}P() = inc{{x = (x + 1) % {k}}} -> P();\n"
            f"Idle() = idle -> Idle();\nSys() = P() ||| Idle();\n"
            f"#assert Sys() |= [] !({every}) && []<> (z{k - 2} || z{k - 1});\n")


def _system(tmp_path: Path, name: str, text: str) -> TransitionSystem:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    [ts] = api.load_model(str(path)).systems
    return ts


def _ltl(ts: TransitionSystem):
    return next(p for p in ts.properties if p.kind is PropertyKind.LTL)


@pytest.mark.parametrize("text", [_events(K), _states(K)], ids=["events", "states"])
def test_40_propositions_run_in_c_and_agree(tmp_path: Path, text: str) -> None:
    ts = _system(tmp_path, "ring.csp", text)
    assert compare(ts, 5000) == len(Fairness)
    none = api.check_property(ts, _ltl(ts), api.CheckOptions(engine="auto"))
    weak = api.check_property(ts, _ltl(ts), api.CheckOptions(engine="auto",
                                                             fairness=Fairness.WEAK))
    assert none.outcome is Outcome.VIOLATED and weak.outcome is Outcome.HOLDS
    for got in (none, weak):
        assert dict(got.statistics.extra)["engine"] == "c", got.notes


def test_more_than_64_propositions_are_refused_by_name(tmp_path: Path) -> None:
    ts = _system(tmp_path, "ring.csp", _events(65))
    got = api.check_property(ts, _ltl(ts), api.CheckOptions(engine="auto"))
    assert dict(got.statistics.extra).get("engine") != "c"
    assert any("at most 64 propositions" in n for n in got.notes), got.notes
    assert got.outcome is Outcome.VIOLATED
