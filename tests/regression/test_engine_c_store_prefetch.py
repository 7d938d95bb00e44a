"""Regression: the C engine's fair search was bound by the state store's cache misses
(ms N = 12 under strong local fairness, paper 000 Table 3, PAT 132.2 s: 17,006,111
product states in 171 s on the loaded machine; ``store_insert`` and its ``memcmp``
took about 30% of the samples at N = 10). ``ls_expand`` now requests the hash slots of
all of a state's successors, then the vectors they name, before looking them up
(``templates/c/store.c``: ``store_prefetch_slot``, ``store_prefetch_vector``), so the
misses overlap. Measured back to back on the loaded machine (load about 8.7 on 2
cores): ms N = 12 strong-local 130.6 s (49.7 s user) against 253.5 s (78.2 s user)
before, the same 17,006,111 states and 207,025,782 transitions; about 12% less at
N = 10. Prefetches are hints and must change nothing: the counts below are the
Python engine's, for a fixed-length store (CSP#) and a variable-length one (Promela
``run``: vectors grow, the store keeps offsets).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bridge import api
from bridge.frontends.csp import load_csp
from bridge.ir import Fairness
from bridge.ir.verdict import Outcome

MS = Path(__file__).resolve().parents[2] / "case_studies" / "ms" / "ms.csp"

SPAWNER = """
byte n;
proctype W(byte i) {
  do
  :: n = (n + i) % 5
  :: n > 2 -> break
  od
}
init {
  run W(1); run W(2);
  do :: n = (n + 1) % 5 od
}
ltl { []<> (n == 0) }
"""


def _counts(system, engine: str, fairness: Fairness) -> tuple[Outcome, int, int]:
    prop = next(p for p in system.properties if p.formula is not None)
    v = api.check_property(system, prop, api.CheckOptions(engine=engine, fairness=fairness))
    if engine == "c":
        assert ("engine", "c") in v.statistics.extra
    return v.outcome, v.statistics.states, v.statistics.transitions


@pytest.mark.parametrize("n", [4, 5])
def test_ms_strong_local_counts_are_the_python_engines(n):
    text = re.sub(r"#define N \d+;", f"#define N {n};", MS.read_text(encoding="utf-8"))
    [system] = load_csp(str(MS), text=text).systems
    c = _counts(system, "c", Fairness.STRONG_LOCAL)
    assert c == _counts(system, "python", Fairness.STRONG_LOCAL)
    assert c[0] is Outcome.HOLDS


@pytest.mark.parametrize("fairness", [Fairness.NONE, Fairness.PROCESS_WEAK])
def test_variable_length_vectors_counts_are_the_python_engines(tmp_path, fairness):
    path = tmp_path / "spawner.pml"
    path.write_text(SPAWNER)
    [system] = api.load_model(str(path)).systems
    assert _counts(system, "c", fairness) == _counts(system, "python", fairness)
