"""ir/validate.py: well-formed IR passes; each kind of breakage is reported."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bridge.ir import Const, Instance, InstanceRef, Interleave, ModelFile, RemoteLabel, Run
from bridge.ir.validate import validate_model_file, validate_system
from tests.irbuild import G, L, assign, edge, process, system
from tests.unit.ir.test_printer import _sample


def test_sample_is_valid() -> None:
    assert validate_system(_sample()) == []
    assert validate_model_file(ModelFile("m", (_sample(),))) == []


def _messages(ts) -> str:
    return "\n".join(d.message for d in validate_system(ts))


@pytest.mark.parametrize(
    ("ts", "fragment"),
    [
        (system([process("P", [edge(0, 5)], n_locations=2)]), "location L5 does not exist"),
        (system([process("P", [edge(0, 0, effect=[assign("nope", 1)])])],),
         "global variable 'nope' is not declared"),
        (system([process("P", [edge(0, 0, guard=L("v"))])]),
         "local variable 'v' is not declared"),
        (system([process("P", [edge(0, 0, effect=[Run("Q", ())])])]),
         "run of unknown process 'Q'"),
        (system([process("P", [edge(0, 0, guard=RemoteLabel("P", None, "cs"))])]),
         "has no label 'cs'"),
        (system([process("P", [edge(0, 0)])], instances=[Instance("Q")]),
         "unknown process 'Q'"),
        (system([process("P", [edge(0, 0)], parameters=["i"])]),
         "has 0 argument(s), expected 1"),
        (system([process("P", [edge(0, 0)])], composition=Interleave((InstanceRef(3),))),
         "composition names instance #3"),
        (system([process("P", [edge(0, 0)]), process("Q", [edge(0, 0)])],
                composition=InstanceRef(0)), "leaves out instance(s) [1]"),
        (system([process("P", [edge(0, 0)], initial=0)], globals_=[]), None),
    ],
)
def test_breakage_is_reported(ts, fragment) -> None:
    text = _messages(ts)
    if fragment is None:
        assert text == ""
    else:
        assert fragment in text


def test_bad_initial_location_and_duplicates() -> None:
    p = process("P", [edge(0, 0)])
    broken = replace(p, initial=7)
    ts = system([broken, p], instances=[Instance("P")])
    text = _messages(ts)
    assert "initial location L7 does not exist" in text
    assert "process 'P' is defined more than once" in text


def test_local_names_include_parameters() -> None:
    p = process("P", [edge(0, 0, guard=L("i"), effect=[assign("x", L("i"))])],
                parameters=["i"])
    from tests.irbuild import int_var

    ts = system([p], globals_=[int_var("x")], instances=[Instance("P", (Const(0),))])
    assert validate_system(ts) == []
    undeclared = system([replace(p, edges=(edge(0, 0, guard=G("y")),))],
                        instances=[Instance("P", (Const(0),))])
    assert "global variable 'y' is not declared" in _messages(undeclared)


def test_never_claim_and_receive_condition_are_checked() -> None:
    from bridge.ir import Receive, RecvBind

    bad_never = process("never", [edge(0, 3)], n_locations=1)
    ts = replace(system([process("P", [edge(0, 0)])]), never=bad_never)
    assert "process never edge e0: location L3 does not exist" in _messages(ts)
    recv = edge(0, 0, comm=Receive(G("c"), (RecvBind(L("v")),), condition=G("nope")))
    ts = system([process("P", [recv])])
    assert "global variable 'nope' is not declared" in _messages(ts)
