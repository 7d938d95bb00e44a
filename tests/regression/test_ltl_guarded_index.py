"""Regression: an ltl atom with an index out of range where SPIN's claim never reads it.

bridge evaluated every state atom of a formula in every state, so
``[] ((i < 3) -> (a[i] == 0))`` was VIOLATED ("index out of range") as soon as
``i == 5``. pan evaluates the formula's propositional part as one C expression, left
to right and short circuit (``!(i < 3) || a[i] == 0``), and never reads ``a[5]``:
errors 0. Found by the public-model survey (a peg solitaire model whose formula
guards each neighbour lookup by the move's direction). An unguarded ``a[i]`` is still
pan's "invalid array index" (errors 1), and bridge's index error (m90).
"""

from __future__ import annotations

import pytest

from bridge.fairness.check import LtlOptions, check_ltl
from bridge.frontends.promela import load_promela
from bridge.ir import Outcome

MODEL = """byte a[3];
byte i;
active proctype P() { i = 5; i = 0 }
ltl guarded { [] ((i < 3) -> (a[i] == 0)) }
ltl guarded_and { [] !((i < 3) && (a[i] == 1)) }
ltl guarded_or { [] ((i >= 3) || (a[i] == 0)) }
ltl unguarded { [] (a[i] == 0) }
ltl unguarded_right { [] ((a[i] == 0) || (i >= 3)) }
"""


@pytest.mark.parametrize(("name", "want"), [
    ("guarded", Outcome.HOLDS),
    ("guarded_and", Outcome.HOLDS),
    ("guarded_or", Outcome.HOLDS),
    ("unguarded", Outcome.VIOLATED),
    ("unguarded_right", Outcome.VIOLATED),
])
def test_an_atom_is_read_only_where_c_evaluation_reads_it(name: str, want: Outcome) -> None:
    system = load_promela("index.pml", MODEL).systems[0]
    prop = next(p for p in system.properties if p.name == name)
    verdict = check_ltl(system, prop, LtlOptions(timeout=60))
    assert verdict.outcome is want
    if want is Outcome.VIOLATED:
        assert "index" in verdict.reason
