"""Regression: with the C engine's process limit gone (issue 12), ``--engine auto`` sent
LE with 10,000 nodes (case_studies/le_pl, no fairness, violated after 20,003 states,
just past the Python warm-up) to the C engine, which wrote code per instance: the
row took 327 s, almost all of it compiling, where the Python engine, which compiles one
code per family of identical instances, answers in about 13 s. ``auto`` then left
systems of more than 2,000 instances to the Python engine, later 20,000.

The C engine now shares one code per family too (``engine_c/gen_families``), so the
instance count says little about the compiler's time: ``auto`` counts the instances
that get code of their own (``engine_c.own_code_count``, on the generated source, the
compiler not run) and leaves a system with more than ``api.AUTO_C_MAX_OWN_CODE`` of them
to the Python engine, with a note naming that limit; ``--engine c`` still compiles it.
"""

from __future__ import annotations

import pytest

from bridge import api
from bridge.engine_c import own_code_count
from bridge.engine_c.build import find_compiler
from bridge.frontends.csp import load_csp
from bridge.ir import TransitionSystem

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")

MODEL = """var n = 0;
P(i) = [n < 3] step.i{n = n + 1;} -> Skip;
Sys() = ||| i:{0..%d}@P(i);
#assert Sys() deadlockfree;
"""


def _own(k: int) -> TransitionSystem:
    """Return a system of ``k`` instances of differently shaped processes (each guard
    has its own bound), so each gets code of its own."""
    lines = ["var n = 0;"]
    lines += [f"P{j}() = [n < {j + 1}] s{j}{{n = n + 1;}} -> Skip;" for j in range(k)]
    lines.append("Sys() = " + " ||| ".join(f"P{j}()" for j in range(k)) + ";")
    lines.append("#assert Sys() deadlockfree;")
    return load_csp("own.csp", "\n".join(lines) + "\n").systems[0]


def _uses_c(system: TransitionSystem) -> tuple[bool, list[str]]:
    # the question --engine auto asks before a check: the source is generated, not compiled
    notes: list[str] = []
    return api._compiled._use_c_engine(system, system.properties[0], api.CheckOptions(engine="auto"),
                             notes), notes


def test_own_code_is_counted_and_shared_code_is_not() -> None:
    assert own_code_count(_own(7)) == 7
    assert own_code_count(load_csp("many.csp", MODEL % 99).systems[0]) == 0


def test_auto_leaves_more_own_code_than_the_limit_to_the_python_engine(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api._compiled, "AUTO_C_MAX_OWN_CODE", 6)
    used, notes = _uses_c(_own(7))
    assert not used
    [note] = notes
    assert "7 process instances get C code of their own" in note
    assert "limit of 6" in note and "api.AUTO_C_MAX_OWN_CODE" in note, note


def test_auto_keeps_own_code_up_to_the_limit_in_c(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api._compiled, "AUTO_C_MAX_OWN_CODE", 6)
    assert _uses_c(_own(6)) == (True, [])


def test_engine_c_compiles_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api._compiled, "AUTO_C_MAX_OWN_CODE", 2)
    ts = _own(3)
    notes: list[str] = []
    assert api._compiled._use_c_engine(ts, ts.properties[0], api.CheckOptions(engine="c"), notes)
    assert notes == []


def test_auto_keeps_thousands_of_shared_instances_in_c(monkeypatch: pytest.MonkeyPatch) -> None:
    # 3,000 instances of one family: far more instances than the limit, one code in C
    monkeypatch.setattr(api._compiled, "AUTO_C_MAX_OWN_CODE", 10)
    loaded = load_csp("many.csp", MODEL % 2999)
    [verdict] = api.check(loaded, 1, api.CheckOptions(engine="auto", max_states=50))
    notes = list(verdict.notes) + [f"{k}={v}" for k, v in verdict.statistics.extra]
    assert not any("process instances" in note for note in notes), notes
    assert "engine=c" in notes, notes
