"""Regression: an inline parameter inside the index of a field of another parameter
(``q.slot[q.head]`` with ``q`` a parameter) was lowered after the parameter scope had
been left, so the model was refused with "undeclared variable 'q'" although SPIN
substitutes the whole reference textually and accepts it (m59 checks it against pan).
"""

from __future__ import annotations

from bridge.frontends.promela import load_promela
from bridge.ir import Outcome
from bridge.semantics.explore import ExploreOptions, check_property

MODEL = """typedef Q { byte slot[2]; byte head };
Q a;
inline take(q, out) { out = q.slot[q.head]; q.head = (q.head + 1) % 2 }
active proctype P() {
  byte x;
  a.slot[0] = 4; a.slot[1] = 5;
  take(a, x); assert(x == 4);
  take(a, x); assert(x == 5)
}
"""


def test_parameter_inside_an_index_is_substituted() -> None:
    system = load_promela("inline_index.pml", MODEL).systems[0]
    safety = next(p for p in system.properties if p.name == "safety")
    verdict = check_property(system, safety, ExploreOptions(max_states=10_000, timeout=60))
    assert verdict.outcome is Outcome.HOLDS
