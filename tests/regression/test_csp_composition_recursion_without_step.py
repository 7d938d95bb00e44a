"""Regression (found by the random CSP# models): a process that starts again with a
nested composition right after one ended, with no step in between
(``P0 = (b -> Skip ||| c -> Skip); P0();``), loaded without end: the leaf builder
followed the chain of compositions (``_alias`` and the ``(A || B); C`` step rule)
round the recursion forever (also when its arguments grow, ``P0(i) = (..); P0((i +
1) % 3)`` started from a global), so that even ``--timeout`` never answered. The chain is
now cut where it comes back to itself: a '|||' is then lowered as an interleaving
inside its process, a '||' is refused as an unsupported construct (exit 2)."""

from __future__ import annotations

import pytest

from bridge import api
from bridge.diagnostics import UnsupportedError
from bridge.frontends.csp import load_csp
from bridge.ir import Outcome
from tests.csp_deadline import load_within


@pytest.mark.parametrize(("body", "states", "transitions"), [
    ("(b -> Skip ||| c -> Skip); P0()", 3, 4),
    ("(b -> Skip ||| c -> Skip); (b -> Skip ||| c -> Skip); P0()", 6, 8),
    # three rounds (i = 1, 2, 0) of three states and four transitions
    ("((b.i -> Skip) ||| (c -> Skip)); P0((i + 1) % 3)", 9, 12),
])
def test_csp_interleaving_recursion_without_step(body: str, states: int,
                                                 transitions: int) -> None:
    head, start = ("P0(i)", "P0(1)") if "P0((" in body else ("P0", "P0()")
    text = f"{head} = {body};\nSys() = {start};\n#assert Sys() deadlockfree;\n"
    assert load_within(text) == ""
    model = load_csp("t.csp", text)
    [(system, prop)] = model.properties()
    for engine in ("python", "c"):
        verdict = api.check_property(system, prop, api.CheckOptions(engine=engine))
        assert verdict.outcome is Outcome.HOLDS
        assert (verdict.statistics.states, verdict.statistics.transitions) == (
            states, transitions)


@pytest.mark.parametrize("text", [
    "P0 = (b -> Skip || c -> Skip); P0();\nSys() = P0();\n",
    # the argument read from a global grows symbolically: the chain never repeats
    "var x = 1;\nP0(i) = (b -> Skip || c -> Skip); P0((i + 1) % 3);\nSys() = P0(x);\n",
])
def test_csp_parallel_recursion_without_step_is_refused(text: str) -> None:
    text += "#assert Sys() deadlockfree;\n"
    assert "UnsupportedError" in load_within(text)
    with pytest.raises(UnsupportedError, match="unsupported construct"):
        load_csp("t.csp", text)
