"""Regression: an LTL automaton stepped inside Promela atomic sequences (wrong verdicts).

SPIN's never claim does not step between the statements of an atomic sequence (pan
keeps the claim/system turn on a move that leaves the mover inside its sequence;
promela-spin.md section 9). bridge read every state, so:

1. a rendezvous inside ``atomic`` that hands control to a receiver inside its own
   ``atomic``: the state after the handshake still has the sender's ``x == 1``, which
   no claim of pan reads. ``[] (x != 1)`` was VIOLATED; pan -a: errors 0 (m88);
2. a state inside a sequence that never blocks there (``x = 3`` before ``x = 1``):
   ``[] (x != 3)`` was VIOLATED; pan -a: errors 0 (m89). The state where the holder
   blocks at ``y == 1`` *is* read once another process moves: ``[] (x != 1)`` is
   VIOLATED in both;
3. but a state where the holder is blocked *is* read (pan loses atomicity there and
   its claim steps): with the first version of this fix, a public model whose
   process publishes a value and then blocks inside its sequence until an observer
   takes it had ``[]<>`` of that value VIOLATED; pan -a: errors 0 (m91);
4. found by the public-model survey (a river-crossing puzzle): ``!(A U goal)`` where
   every path to ``goal`` passes through states inside atomic sequences in which ``A``
   is false: pan -a finds the path (errors 1), bridge said HOLDS.
"""

from __future__ import annotations

import pytest

from bridge.fairness.check import LtlOptions, check_ltl
from bridge.frontends.promela import load_promela
from bridge.ir import Fairness, Outcome

HANDOFF = """byte x;
chan c = [0] of { byte };
active proctype P() { atomic { x = 1; c!1; x = 0 } }
active proctype Q() { byte v; atomic { c?v; x = 2 } }
ltl never_one { [] (x != 1) }
"""

BLOCKED = """byte x, y;
active proctype P() { atomic { x = 1; x = 3; x = 1; y == 1; x = 0 } }
active proctype Q() { y = 1 }
ltl sees_one { [] (x != 1) }
ltl never_three { [] (x != 3) }
"""

# Two flags raised together inside atomic sequences; A := (a == b) is false only in the
# state between the two assignments, which the claim never reads.
UNTIL = """bool a, b;
chan go = [0] of { bit };
active proctype L() { atomic { a = 1; go!1 } }
active proctype R() { atomic { go?_; b = 1 } }
ltl together { !((a == b) U (a && b)) }
"""

# Only the state where P is blocked at (y == 1) has x == 1.
BLOCKED_READ = """byte x, y;
active proctype P() { atomic { x = 1; y == 1; x = 0 } }
active proctype Q() { atomic { y = 1; x = 2 } }
ltl q { [] (x != 1) }
"""

# The publisher blocks inside its sequence until the observer clears the value.
PUBLISH = """byte v;
active proctype Publisher() { do :: atomic { v == 0; v = 1; v == 0 } od }
active proctype Observer() { do :: atomic { v == 1 -> v = 0 } od }
ltl seen { []<> (v == 1) }
"""


@pytest.mark.parametrize(("text", "name", "want"), [
    (HANDOFF, "never_one", Outcome.HOLDS),
    (BLOCKED, "sees_one", Outcome.VIOLATED),
    (BLOCKED, "never_three", Outcome.HOLDS),
    (UNTIL, "together", Outcome.VIOLATED),
    (BLOCKED_READ, "q", Outcome.VIOLATED),
    (PUBLISH, "seen", Outcome.HOLDS),
])
@pytest.mark.parametrize("fairness", [Fairness.NONE, Fairness.PROCESS_WEAK])
def test_the_automaton_does_not_read_states_inside_atomic(
        text: str, name: str, want: Outcome, fairness: Fairness) -> None:
    system = load_promela("atomic.pml", text).systems[0]
    prop = next(p for p in system.properties if p.name == name)
    assert check_ltl(system, prop, LtlOptions(fairness=fairness, timeout=60)).outcome is want
