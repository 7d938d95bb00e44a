"""Regression: two wrong verdicts around ``unless`` (both checked with pan 6.5.2).

1. An escape pre-empts *every* transition of the state it applies at, not only the
   statements of its main sequence: when an unless starts an option of a ``do``, the
   sibling options are pre-empted too. bridge guarded only the main sequence, so the
   sibling ``y == 1 -> z = 1`` could run and ``assert(z == 0)`` was VIOLATED; pan:
   errors 0.
2. An escape that starts with a jump (``unless { break }``, ``unless { goto L }``):
   SPIN eliminates the jump, so the escape is the statement at its target and is
   executable only when that statement is. bridge took the jump as an always
   executable step, so the main sequence never ran and ``assert(x == 0)`` HELD; pan:
   errors 1 (goto escapes were refused outright).
"""

from __future__ import annotations

import pytest

from bridge.frontends.promela import load_promela
from bridge.ir import Outcome
from bridge.semantics.explore import ExploreOptions, check_property

SIBLINGS = """byte x, y, z;
active proctype P() {
  do
  :: { x < 2 -> x++ } unless { y == 1 -> break }
  :: y == 1 -> z = 1; break
  od;
  assert(z == 0)
}
active proctype Q() { y = 1 }
"""

JUMP = """byte x, y;
active proctype P() {
  do
  :: { x < 3 -> x++ } unless { ESCAPE }
  od;
L: y == 1;
  assert(x == 0)
}
active proctype Q() { y = 1 }
"""


def _verdict(text: str) -> Outcome:
    system = load_promela("unless.pml", text).systems[0]
    safety = next(p for p in system.properties if p.name == "safety")
    return check_property(system, safety, ExploreOptions(max_states=100_000, timeout=60)).outcome


def test_escape_pre_empts_sibling_options() -> None:
    assert _verdict(SIBLINGS) is Outcome.HOLDS


@pytest.mark.parametrize("escape", ["break", "goto L"])
def test_jump_escape_is_the_statement_at_its_target(escape: str) -> None:
    assert _verdict(JUMP.replace("ESCAPE", escape)) is Outcome.VIOLATED
