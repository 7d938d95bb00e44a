"""Regression: with the C engine's process limit gone (issue 12), ``--engine auto`` sent
LE with 10,000 nodes (case_studies/le_pl, no fairness, violated after 20,003 states,
just past the Python warm-up) to the C engine, which wrote code per instance: the
row took 327 s, almost all of it compiling, where the Python engine, which compiles one
code per family of identical instances, answers in about 13 s. ``auto`` then left
systems of more than 2,000 instances to the Python engine.

The C engine now shares one code per family too (``engine_c/gen_families``), so
``auto`` keeps a system for it up to ``api.AUTO_C_MAX_INSTANCES`` (20,000) instances;
beyond that it leaves the system to the Python engine with a note, and ``--engine c``
still compiles it.
"""

from __future__ import annotations

import pytest

from bridge import api
from bridge.engine_c.build import find_compiler
from bridge.frontends.csp import load_csp

MODEL = """var n = 0;
P(i) = [n < 3] step.i{n = n + 1;} -> Skip;
Sys() = ||| i:{0..%d}@P(i);
#assert Sys() deadlockfree;
"""

def _notes(model: str, instances: int) -> list[str]:
    loaded = load_csp("many.csp", model % (instances - 1))
    [verdict] = api.check(loaded, 1, api.CheckOptions(engine="auto", max_states=50))
    return list(verdict.notes) + [f"{k}={v}" for k, v in verdict.statistics.extra]


def test_auto_leaves_more_than_the_limit_to_the_python_engine(monkeypatch):
    monkeypatch.setattr(api, "AUTO_C_MAX_INSTANCES", 40)
    assert any("41 process instances" in note for note in _notes(MODEL, 41))


def test_auto_does_not_name_the_instances_below_the_threshold():
    assert not any("process instances" in note for note in _notes(MODEL, 10))


@pytest.mark.skipif(find_compiler() is None, reason="no C compiler")
def test_auto_keeps_thousands_of_shared_instances_in_c():
    # 3,000 instances of one family: above the old limit of 2,000, one code in C
    notes = _notes(MODEL, 3000)
    assert not any("process instances" in note for note in notes), notes
    assert "engine=c" in notes, notes
