"""A strong globally fair part too large to print a loop (``api.LOOP_PRINT_NODES``) is
checked as a whole by ``api._compiled._certified_part``, whose reason named every such part an
"acceptance cycle": a never claim that terminated, or a non-progress cycle, found by
the C engine then read differently from the Python engine's verdict. The reason now
names the part as the Python engine does (``check_automaton(part_reason=...)``)."""

from __future__ import annotations

import pytest

from bridge import api
from bridge.engine_c.build import find_compiler
from bridge.frontends.promela import load_promela
from bridge.ir import Fairness, Outcome, PropertyKind
from tests.conftest import in_ci

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

TERMINATES = """
byte x;
active proctype P() { do :: x < 4 -> x++ :: x == 4 -> x = 0 od }
never { do :: x == 3 -> break :: else od }
"""

NO_PROGRESS = """
byte x;
active proctype P() { do :: x = (x + 1) % 3 :: x == 5 -> progress: skip od }
"""


@pytest.mark.parametrize(("text", "kind", "head"), [
    (TERMINATES, PropertyKind.NEVER, "never claim terminated (the claim reached its"),
    (NO_PROGRESS, PropertyKind.NON_PROGRESS, "non-progress cycle"),
])
def test_a_part_checked_as_a_whole_keeps_the_kinds_reason(
        monkeypatch: pytest.MonkeyPatch, text: str, kind: PropertyKind, head: str) -> None:
    monkeypatch.setattr(api._compiled, "LOOP_PRINT_NODES", 2)
    system = load_promela("m.pml", text).systems[0]
    prop = next(p for p in system.properties if p.kind is kind)
    options = dict(fairness=Fairness.STRONG_GLOBAL)
    c = api.check_property(system, prop, api.CheckOptions(engine="c", **options))
    python = api.check_property(system, prop, api.CheckOptions(engine="python", **options))
    assert c.outcome is python.outcome is Outcome.VIOLATED
    assert python.reason.startswith(head)
    assert c.reason.startswith(python.reason + ": the trace reaches a terminal accepting "
                               "component")
    assert c.trace is not None and c.lasso is None  # checked as a whole: no loop printed
