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
