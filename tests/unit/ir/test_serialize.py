"""ir/serialize.py: tagged JSON reads back to the same IR; the flat verdict form."""

from __future__ import annotations

import json

import pytest

from bridge.diagnostics import Span
from bridge.ir import (
    FairnessWitness,
    Lasso,
    ModelFile,
    Outcome,
    Statistics,
    Trace,
    TraceStep,
    Verdict,
)
from bridge.ir.serialize import dumps, from_data, loads, to_data, verdict_to_json
from tests.unit.ir.test_printer import _sample


def test_ir_round_trips_through_json() -> None:
    model_file = ModelFile("m.pml", (_sample(),))
    text = dumps(model_file)
    json.loads(text)  # plain JSON
    assert loads(text) == model_file


def test_verdicts_round_trip() -> None:
    step = TraceStep("go", ("P(0)",), "x = 1", Span("m.pml", 3, 5), (("x", 0, 1),))
    v = Verdict("Sys", "[]<>go", Outcome.VIOLATED, "acceptance cycle", "weak",
                lasso=Lasso(Trace((("x", 0), ("a", (1, 2))), (step,)), (step,),
                            FairnessWitness("weak", engaged=("go",))),
                statistics=Statistics(10, 20, 0.5), notes=("n",))
    assert from_data(to_data(v)) == v


def test_defaults_are_left_out_and_enums_tagged() -> None:
    data = to_data(Statistics(states=3))
    assert data == {"$type": "Statistics", "states": 3}
    assert to_data(Outcome.HOLDS) == {"$enum": "Outcome", "value": "holds"}


def test_unknown_things_are_refused() -> None:
    with pytest.raises(TypeError):
        to_data(object())
    with pytest.raises(ValueError):
        from_data({"$type": "NoSuchNode"})
    with pytest.raises(ValueError):
        from_data({"plain": 1})


def test_flat_verdict_form() -> None:
    step = TraceStep("go", ("P(0)",), "x = 1", Span("m.pml", 3, 5), (("x", 0, 1),))
    v = Verdict("Sys", "Sys() deadlockfree", Outcome.VIOLATED, "deadlock",
                trace=Trace((("x", 0), ("arr", (0, 1))), (step,)),
                statistics=Statistics(4, 5, 0.25))
    obj = verdict_to_json(v, 2, "m.csp")
    assert obj["model"] == "m.csp" and obj["system"] == "Sys" and obj["number"] == 2
    assert obj["verdict"] == "violated" and obj["states"] == 4
    assert obj["trace"]["initial"] == {"x": 0, "arr": [0, 1]}
    assert obj["trace"]["steps"][0]["location"] == "m.pml:3:5"
    assert obj["trace"]["steps"][0]["changes"] == [{"variable": "x", "old": 0, "new": 1}]
    assert obj["lasso"] is None
    json.dumps(obj)


def test_flat_step_has_position_messages_and_barrier() -> None:
    from bridge.ir import Message

    rendezvous = TraceStep(None, ("P", "Q"), "c!1; c?x", Span("m.pml", 7, 3), (),
                           messages=(Message("c", "P", "Q", (1,)),))
    barrier = TraceStep("go", ("L()", "R()"), "go; go", None)
    send = TraceStep(None, ("P",), "d!2", None, messages=(Message("d", "P", None, (2,)),))
    lasso = Lasso(Trace((), (rendezvous, barrier)), (send,), FairnessWitness(
        "weak", ("a", "b"), ("a",), ("b",), "why", enabled_at=((0, 1),),
        engaged_at=((0,),)))
    obj = verdict_to_json(Verdict("S", "p", Outcome.VIOLATED, lasso=lasso))
    first, second = obj["lasso"]["prefix"]["steps"]
    assert (first["file"], first["line"], first["column"]) == ("m.pml", 7, 3)
    assert first["messages"] == [{"channel": "c", "sender": "P", "receiver": "Q",
                                  "values": [1]}]
    assert first["barrier"] == []  # a rendezvous is not a barrier
    assert second["barrier"] == ["L()", "R()"] and second["line"] is None
    assert obj["lasso"]["loop"][0]["messages"][0]["receiver"] is None
    witness = obj["lasso"]["witness"]
    assert witness["enabled_at"] == [[0, 1]] and witness["engaged_at"] == [[0]]
    assert "outline" not in obj
    json.dumps(obj)


def test_outline_has_processes_as_control_flow_graphs() -> None:
    from bridge.ir.serialize import system_outline

    system = _sample()
    outline = system_outline(system, {"m.pml": "text"})
    assert outline["system"] == system.name and outline["sources"] == {"m.pml": "text"}
    assert [p["name"] for p in outline["processes"]] == [p.name for p in system.processes]
    for process, shape in zip(system.processes, outline["processes"], strict=True):
        assert [loc["id"] for loc in shape["locations"]] == [loc.id for loc in
                                                             process.locations]
        assert [(e["source"], e["target"]) for e in shape["edges"]] == [
            (e.source, e.target) for e in process.edges]
        assert sum(loc["initial"] for loc in shape["locations"]) == 1
    assert len(outline["instances"]) == len(system.instances)
    obj = verdict_to_json(Verdict("S", "p", Outcome.HOLDS), outline=outline)
    assert obj["outline"] is outline
    json.dumps(obj)
