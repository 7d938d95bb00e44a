"""Finite runs under fairness (issue 4, item e; nimble-code/Spin issue 38).

SPIN 6.5.2's ``pan -a -f`` reports no error for::

    byte n = 0;
    active proctype P() { n = 1 }
    active proctype Q() { n = 2 }
    ltl test { <>[](n == 1) }

although the run "P, then Q" ends with ``n == 2`` forever. Finite runs are extended by
stuttering (SPIN, PAT); a terminated state enables no action and no process, so its
stutter loop is fair under every notion and the property is violated under every one.

The same cases are checked here on explicit graphs (the engine alone) and through
``check_ltl`` on IR systems built by hand (engine + semantics), when the semantics
engine is available.
"""

from __future__ import annotations

import importlib

import pytest

from bridge.ir.property import Fairness
from tests.fairness.explicit import ExplicitLts, F, G, atom, feasible, violated

# States of the issue's model: 0: n=0 both pending; 1: n=1 (P done); 2: n=2 (Q done);
# 3: n=2 both done; 4: n=1 both done.
ISSUE_38 = ExplicitLts(
    {0: [("P", 1, (0,)), ("Q", 2, (1,))], 1: [("Q", 3, (1,))], 2: [("P", 4, (0,))], 3: [], 4: []},
    labels={1: ["n1"], 4: ["n1"]},
)

# One process increments n once and ends; the other loops forever on ``skip``.
# 0: n=0, 1: n=1 (P done, Q looping).
INCREMENT_AND_LOOP = ExplicitLts(
    {0: [("inc", 1, (0,)), ("skip", 0, (1,))], 1: [("skip", 1, (1,))]},
    labels={1: ["n1"]},
)

# One process increments n once and ends; nothing else: the run ends at n == 1.
INCREMENT_ALONE = ExplicitLts({0: [("inc", 1, (0,))], 1: []}, labels={1: ["n1"]})


@pytest.mark.parametrize("fairness", list(Fairness))
def test_issue_38_violated_under_every_notion(fairness):
    lasso_exists = violated(ISSUE_38, F(G(atom("n1"))), fairness)
    assert lasso_exists, f"<>[](n==1) must be violated under {fairness.value} (run P;Q ends with n==2)"


@pytest.mark.parametrize("fairness", list(Fairness))
def test_terminated_run_is_fair(fairness):
    """A system whose every run ends is feasible under every notion (stutter loop)."""
    lasso = feasible(INCREMENT_ALONE, fairness)
    assert lasso is not None
    assert len(lasso.loop) == 1  # the stutter self-loop at the end state


@pytest.mark.parametrize("fairness", list(Fairness))
def test_increment_alone_holds(fairness):
    assert not violated(INCREMENT_ALONE, F(G(atom("n1"))), fairness)


@pytest.mark.parametrize(
    "fairness, holds",
    [
        (Fairness.NONE, False),  # Q may loop forever before P moves
        (Fairness.WEAK, True),  # inc is enabled forever at n == 0
        (Fairness.STRONG_LOCAL, True),
        (Fairness.STRONG_GLOBAL, True),
        (Fairness.PROCESS_WEAK, True),  # P is enabled forever at n == 0
        (Fairness.PROCESS_STRONG, True),
    ],
)
def test_increment_and_loop(fairness, holds):
    assert violated(INCREMENT_AND_LOOP, F(G(atom("n1"))), fairness) is not holds


# ---------------------------------------------------------------------------------
# Through check_ltl on IR systems (front-end free; semantics engine required)

from bridge.ir.property import LtlState, LtlUnary, Property, PropertyKind  # noqa: E402
from tests.irbuild import G as Gv  # noqa: E402
from tests.irbuild import assign, edge, eq, int_var, process, system  # noqa: E402


def _issue_38_system(q_loops: bool = False):
    p = process("P", [edge(0, 1, effect=[assign("n", 1)], text="n = 1")], terminal=[1])
    if q_loops:
        q = process("Q", [edge(0, 0, text="skip")])
    else:
        q = process("Q", [edge(0, 1, effect=[assign("n", 2)], text="n = 2")], terminal=[1])
    return system([p, q], globals_=[int_var("n", 0)], name="issue38")


def _eventually_always_n1() -> Property:
    formula = LtlUnary("F", LtlUnary("G", LtlState(eq(Gv("n"), 1), "n==1")))
    return Property("test", PropertyKind.LTL, "<>[](n==1)", formula=formula)


@pytest.mark.parametrize("fairness", list(Fairness))
def test_issue_38_check_ltl(fairness):
    check = importlib.import_module("bridge.fairness.check")
    verdict = check.check_ltl(_issue_38_system(), _eventually_always_n1(), check.LtlOptions(fairness=fairness))
    assert verdict.outcome.value == "violated"
    assert verdict.lasso is not None
    # the loop is the stutter at the end state where n == 2
    assert all(s.stutter for s in verdict.lasso.loop)
    assert verdict.fairness.startswith(fairness.value)


@pytest.mark.parametrize(
    "fairness, holds",
    [
        (Fairness.NONE, False),
        (Fairness.WEAK, True),
        (Fairness.STRONG_LOCAL, True),
        (Fairness.STRONG_GLOBAL, True),
        (Fairness.PROCESS_WEAK, True),
        (Fairness.PROCESS_STRONG, True),
    ],
)
def test_increment_and_loop_check_ltl(fairness, holds):
    check = importlib.import_module("bridge.fairness.check")
    verdict = check.check_ltl(
        _issue_38_system(q_loops=True), _eventually_always_n1(), check.LtlOptions(fairness=fairness)
    )
    assert (verdict.outcome.value == "holds") is holds
    assert verdict.fairness == fairness.value


ISSUE_38_PML = """byte n = 0;
active proctype P() { n=1 }
active proctype Q() { n=2 }

ltl test { <>[](n==1) }
"""


@pytest.mark.parametrize("fairness", list(Fairness))
def test_issue_38_promela_source(fairness):
    """The model of the issue, verbatim, through the Promela front-end."""
    promela = importlib.import_module("bridge.frontends.promela")
    check = importlib.import_module("bridge.fairness.check")
    model = promela.load_promela("issue38.pml", ISSUE_38_PML)
    (ts, prop), = [(s, p) for s, p in model.properties() if p.kind is PropertyKind.LTL]
    verdict = check.check_ltl(ts, prop, check.LtlOptions(fairness=fairness))
    assert verdict.outcome.value == "violated"
    assert verdict.lasso is not None and all(s.stutter for s in verdict.lasso.loop)
    texts = [s.text for s in verdict.lasso.prefix.steps]
    assert texts.index("n=1") < texts.index("n=2")  # P first, then Q: n ends at 2
