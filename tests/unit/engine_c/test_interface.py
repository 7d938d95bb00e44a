"""What the C core offers a second search (the fair SCC search of phase 2): event names
of the steps, propositions through ``model_expr``, one store for any byte vector."""

from __future__ import annotations

import ctypes

import pytest

from bridge.engine_c import build, driver
from bridge.engine_c.codegen import _c_string
from tests.irbuild import G, add, assign, edge, int_var, lt, process, system

pytestmark = pytest.mark.skipif(build.find_compiler() is None, reason="no C compiler")


def test_event_names_are_exported():
    ts = system([process("P", [edge(0, 0, guard=lt(G("x"), 2), event="inc.0",
                                    effect=[assign("x", add(G("x"), 1))])])],
                globals_=[int_var("x", 0)])
    model = driver.compile_model(ts)
    name_of = model.library.bridge_event_name
    name_of.restype = ctypes.c_char_p
    name_of.argtypes = [ctypes.c_int32]
    assert name_of(0) == b"inc.0"
    assert name_of(1) is None


def test_c_strings_escape_everything_unusual():
    assert _c_string('a"b\\c\n') == '"a\\042b\\134c\\012"'
    assert _c_string("rule1.0.1") == '"rule1.0.1"'


def test_an_ir_field_the_generator_does_not_know_is_refused(monkeypatch: pytest.MonkeyPatch):
    """A construct added to the IR later (a new field with a non-default value) makes
    the C engine refuse the model instead of ignoring it."""
    from bridge.engine_c import gen_base as codegen
    from bridge.ir import Edge

    known = codegen._KNOWN_FIELDS[Edge] - {"label"}
    monkeypatch.setitem(codegen._KNOWN_FIELDS, Edge, known)
    plain = system([process("P", [edge(0, 0)])], globals_=[int_var("x", 0)])
    labelled = system([process("P", [edge(0, 0, label="here")])], globals_=[int_var("x", 0)])
    assert driver.supports(plain) == (True, "")
    ok, why = driver.supports(labelled)
    assert not ok and "Edge.label" in why
