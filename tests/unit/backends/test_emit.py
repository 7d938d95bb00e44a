"""emit_promela on hand-built IR: golden texts (deterministic output), the source map,
and refusals that name the construct."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.backends.spin.emit import emit_promela
from bridge.diagnostics import ConfigurationError, UnsupportedError
from bridge.ir import (
    Fairness,
    LtlEvent,
    LtlUnary,
    Property,
    PropertyKind,
    Run,
)
from tests.differential._spin_models import ALL
from tests.irbuild import edge, process, system

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "promela_out"

CASES = [
    ("fig2a", "plain", Fairness.NONE),
    ("fig2a", "premise", Fairness.WEAK),
    ("fig2a", "action-process", Fairness.WEAK),
    ("barrier", "premise", Fairness.STRONG_LOCAL),
    ("rendezvous", "plain", Fairness.NONE),
    ("starving", "premise", Fairness.PROCESS_WEAK),
]


@pytest.mark.parametrize(("name", "encoding", "fairness"), CASES)
def test_golden(name: str, encoding: str, fairness: Fairness, update_golden: bool) -> None:
    model = emit_promela(ALL[name](), encoding, fairness)
    again = emit_promela(ALL[name](), encoding, fairness)
    assert model.text == again.text  # deterministic
    path = GOLDEN / f"{name}_{encoding}_{fairness.value}.pml"
    if update_golden or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(model.text)
    assert model.text == path.read_text()


PROMELA_MODELS = Path(__file__).resolve().parents[2] / "models" / "promela"
ROUND_TRIP = ["m12_atomic", "m23_ltl_never", "m39_local_chan_array", "m45_provided_else",
              "m48_atomic_loop", "m50_atomic_if"]


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_golden_structured_round_trip(name: str, update_golden: bool) -> None:
    """Promela -> IR -> Promela (the layout of layout.py: atomic blocks, the never claim,
    provided clauses, local channel arrays); SPIN's counts are checked in
    tests/differential/test_roundtrip_spin.py."""
    from bridge.frontends.promela import load_promela

    path = PROMELA_MODELS / f"{name}.pml"
    system = load_promela(path.name, path.read_text()).systems[0]
    text = emit_promela(system, "plain", style="structured").text
    assert text == emit_promela(system, "plain", style="structured").text
    golden = GOLDEN / f"{name}_structured.pml"
    if update_golden or not golden.exists():
        golden.write_text(text)
    assert text == golden.read_text()


def test_never_claim_only_in_the_structured_style() -> None:
    from bridge.frontends.promela import load_promela

    path = PROMELA_MODELS / "m23_ltl_never.pml"
    system = load_promela(path.name, path.read_text()).systems[0]
    claim = next(p for p in system.properties if p.kind is PropertyKind.NEVER)
    emitted = emit_promela(system, "plain", property=claim)
    (prop,) = emitted.properties
    assert prop.check == "never" and prop.ltl_name == "never_0"
    assert emitted.spin_options(prop).acceptance
    assert "never {" in emitted.text
    with pytest.raises(UnsupportedError, match="never claim"):
        emit_promela(system, "premise", Fairness.WEAK, property=claim)


def test_source_map_points_at_edges() -> None:
    model = emit_promela(ALL["fig2a"](), "plain")
    events = sorted(info.event for info in model.source_map.lines.values() if info.event)
    assert events == ["a", "b"]
    lines = model.text.splitlines()
    for number, info in model.source_map.lines.items():
        assert "d_step" in lines[number - 1]
        assert "last = " in lines[number - 1] or info.event is None


def test_premise_counts_one_conjunct_per_action() -> None:
    model = emit_promela(ALL["barrier"](), "premise", Fairness.WEAK)
    prop = model.properties[0]
    assert prop.premises == len(model.actions) == 4
    assert prop.spot_formula is not None and prop.spot_formula.count("FG en_") == 4


def test_refusals_name_the_construct() -> None:
    with pytest.raises(UnsupportedError, match="strong global"):
        emit_promela(ALL["fig2a"](), "premise", Fairness.STRONG_GLOBAL)
    with pytest.raises(UnsupportedError, match="weak fairness only"):
        emit_promela(ALL["fig2a"](), "action-process", Fairness.STRONG_LOCAL)
    nxt = Property("x", PropertyKind.LTL, "X a", formula=LtlUnary("X", LtlEvent("a")), number=1)
    with pytest.raises(UnsupportedError, match="X"):
        emit_promela(ALL["fig2a"](), "plain", property=nxt)
    spawner = process("S", [edge(0, 1, effect=[Run("S", ())])])
    with pytest.raises(UnsupportedError, match="run S"):
        emit_promela(system([spawner]), "premise", Fairness.WEAK)
    with pytest.raises(ConfigurationError, match="allowed"):
        emit_promela(ALL["fig2a"](), "fancy")


def test_structured_style_for_promela_models() -> None:
    model = emit_promela(ALL["rendezvous"]())
    assert model.style == "structured"
    assert "active proctype S()" in model.text and "g_c!" in model.text
