"""Regression: a CSP# process whose parameter takes a value of the state on recursion
but is never read (``P(i) = a{n = (n + 1) % 3000} -> P(n); Sys() = P(0);``) was an
internal error (KeyError in the leaf builder, exit 4): the parameter's constant first
argument was recorded as the initial value of a local that the process's canonical
names had dropped, because nothing reads it. Such a value is now left out (the
location does not depend on it)."""

from __future__ import annotations

import pytest

from bridge import api
from bridge.frontends.csp import load_csp
from bridge.ir import Outcome


@pytest.mark.parametrize(("body", "states"), [
    ("a{n = (n + 1) % 3000} -> P(n)", 3000),           # i never read
    ("a{n = (n + 1) % 3000} -> P(n + 1)", 3000),       # i never read, computed
    ("a{n = (n + i + 1) % 3000} -> P(n)", 103),        # i read: n -> 2n + 1 from 0
    ("[i > 2] a{n = (n + 1) % 3000} -> P(n) [] b -> P(i)", 1),
])
def test_csp_unread_parameter_of_recursion(body: str, states: int) -> None:
    text = f"var n = 0;\nP(i) = {body};\nSys() = P(0);\n#assert Sys() deadlockfree;\n"
    model = load_csp("t.csp", text)
    [(system, prop)] = model.properties()
    for engine in ("python", "c"):
        verdict = api.check_property(system, prop, api.CheckOptions(engine=engine))
        assert verdict.outcome is Outcome.HOLDS
        assert verdict.statistics.states == states
