"""Regression: with the C engine's process limit gone (issue 12), ``--engine auto`` sent
LE with 10,000 nodes (case_studies/le_pl, no fairness, violated after 20,003 states,
just past the Python warm-up) to the C engine, which writes code per instance: the
row took 327 s, almost all of it compiling, where the Python engine, which compiles one
code per family of identical instances, answers in about 13 s. ``auto`` now leaves
systems of more than ``api.AUTO_C_MAX_INSTANCES`` instances to the Python engine with a
note; ``--engine c`` still compiles them.
"""

from __future__ import annotations

from bridge import api
from bridge.frontends.csp import load_csp

MODEL = """var n = 0;
P(i) = [n < 3] step.i{n = n + 1;} -> Skip;
Sys() = ||| i:{0..%d}@P(i);
#assert Sys() deadlockfree;
"""


def _notes(instances: int) -> list[str]:
    model = load_csp("many.csp", MODEL % (instances - 1))
    [verdict] = api.check(model, 1, api.CheckOptions(engine="auto", max_states=50))
    return list(verdict.notes)


def test_auto_leaves_thousands_of_instances_to_the_python_engine():
    n = api.AUTO_C_MAX_INSTANCES + 1
    assert any(f"{n} process instances" in note for note in _notes(n))


def test_auto_does_not_name_the_instances_below_the_threshold():
    assert not any("process instances" in note for note in _notes(10))
