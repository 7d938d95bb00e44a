"""Regression: a block variable of a library class (``var t = new Queue();`` inside an
effect) read as a number crashed the Python engine with an internal TypeError in a
model that has no library-class state variable: ``codegen._may_hold_tuples`` looked at
the state's variables only, so the operands of ``t + 1`` were not checked (``_num``).
It is now "value of the wrong kind", as for every other library value used as a number
(tests/regression/test_library_value_used_as_number.py). The CSP# front-end rejects
such a read, so the model is IR built by hand; the C engine meets the error in the same
state and the Python engine re-raises it there."""

from __future__ import annotations

import pytest

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import Call, LocalVar, ObjectType, Outcome, PropertyKind, SourceLanguage, Var
from bridge.semantics.codegen import _may_hold_tuples
from tests.conftest import in_ci
from tests.irbuild import add, assign, edge, int_var, process, prop, system


def _model(number: bool):
    """P: ``b{var t = new Queue(); x = t + 1;}`` (``number``) or ``x = t.Count() + 1``."""
    t = Var("t", "block")
    read = add(t, 1) if number else add(Call("Queue.Count", (t,)), 1)
    body = [LocalVar("t", ObjectType("Queue"), Call("Queue.new", ())), assign("x", read)]
    p = process("P", [edge(0, 1, effect=body, event="b")])
    return system([p], globals_=[int_var("x", 0)], language=SourceLanguage.CSP,
                  properties=[prop(PropertyKind.DEADLOCK_FREE)])


def test_a_block_library_variable_may_hold_a_tuple() -> None:
    assert _may_hold_tuples(_model(True))


@pytest.mark.parametrize("engine", ["python", "c", "auto"])
def test_a_block_library_variable_used_as_a_number_is_a_model_error(engine: str) -> None:
    if engine != "python" and find_compiler() is None and not in_ci():
        pytest.skip("no C compiler")
    ts = _model(True)
    if engine == "auto":
        driver.compile_model(ts)
    verdict = api.check_property(ts, ts.properties[0], api.CheckOptions(engine=engine))
    assert verdict.outcome is Outcome.VIOLATED, verdict
    assert verdict.reason == "value of the wrong kind"
    assert any("used as a number" in n for n in verdict.notes), verdict.notes
    assert verdict.trace is not None and verdict.trace.steps == ()
    if engine != "python":
        assert ("engine", "c") in verdict.statistics.extra, verdict.notes


def test_a_block_library_variable_used_as_a_set_is_fine() -> None:
    ts = _model(False)
    verdict = api.check_property(ts, ts.properties[0], api.CheckOptions(engine="python"))
    assert verdict.outcome is Outcome.VIOLATED and verdict.reason == "deadlock"
