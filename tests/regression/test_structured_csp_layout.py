"""Regressions of the structured Promela layout on CSP# models (found while reviewing
the new layout, bridge/backends/spin/layout.py):

* a ``Stop`` location reached from two places was referenced by ``goto`` but never
  written (spin: "undefined label");
* a do-nothing loop ``R() = c -> R()`` became ``L0: skip; goto L0``, which pan refuses
  as an unconditional self-loop;
* a CSP# ``atomic`` went to the structured style and so got Promela's atomic rule
  (only the last mover holds control, regained by moving), not the IR/CSP# rule the
  native checker uses (an enabled instance at an atomic location has priority): the
  SPIN verdict could differ. Such models now go to the explicit-pc style.
"""

from __future__ import annotations

import pytest

from bridge.backends.spin.emit import emit_promela
from bridge.backends.spin.run import run_spin
from bridge.fairness.check import LtlOptions, check_ltl
from bridge.frontends.csp import load_csp
from bridge.ir import Fairness, Outcome

pytestmark = pytest.mark.spin

STOP_TWICE = """var x = 0;
P() = a{x = 1} -> Q() [] b{x = 2} -> Q();
Q() = Stop;
R() = c -> R();
S() = P() ||| R();
#define moved (x > 0);
#assert S() |= <> moved;
"""

# After a, P blocks inside atomic; c enables it again. Under the CSP# rule P moves
# first (b), so x == 1 && z == 1 never holds; under Promela's rule Q could do d first.
ATOMIC_REGAIN = """var x = 0;
var y = 0;
var z = 0;
P() = atomic{a{x = 1} -> W()};
W() = [y == 1] b{x = 2} -> Stop;
Q() = c{y = 1} -> d{z = 1} -> Stop;
S() = P() ||| Q();
#define bad (x == 1 && z == 1);
#assert S() |= [] !bad;
"""


@pytest.mark.parametrize(("name", "text", "style"), [
    ("stop_twice", STOP_TWICE, "structured"),
    ("atomic_regain", ATOMIC_REGAIN, "explicit-pc"),
])
def test_spin_verdict_equals_native(name: str, text: str, style: str) -> None:
    system = load_csp(f"{name}.csp", text).systems[0]
    prop = system.properties[0]
    native = check_ltl(system, prop, LtlOptions(fairness=Fairness.NONE, timeout=60)).outcome
    emitted = emit_promela(system, "plain", property=prop)
    assert emitted.style == style
    result = run_spin(emitted.text, emitted.spin_options(emitted.properties[0], timeout=60))
    assert result.complete or result.errors, emitted.text
    assert (Outcome.VIOLATED if result.errors else Outcome.HOLDS) == native, emitted.text


def test_atomic_regain_holds_natively() -> None:
    system = load_csp("atomic_regain.csp", ATOMIC_REGAIN).systems[0]
    verdict = check_ltl(system, system.properties[0], LtlOptions(timeout=60))
    assert verdict.outcome is Outcome.HOLDS
