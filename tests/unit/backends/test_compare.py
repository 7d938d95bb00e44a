"""compare: rows, disagreement flag, report formats; translate and ltl2ba verbs."""

from __future__ import annotations

import importlib
import json

import pytest

from bridge.compare import (
    CompareOptions,
    CompareRow,
    Comparison,
    compare,
    format_csv,
    format_json,
    format_markdown,
    format_table,
    ltl_to_automaton,
)
from bridge.diagnostics import ConfigurationError
from bridge.ir import Fairness
from tests.differential._spin_models import ALL


def _comparison(*verdicts: tuple[str, str]) -> Comparison:
    rows = tuple(CompareRow(f"e{k}", "enc", fair, v) for k, (fair, v) in enumerate(verdicts))
    return Comparison("m", "p", "weak", rows)


def test_disagreement_only_between_rows_of_the_same_fairness() -> None:
    assert not _comparison(("weak", "holds"), ("none", "violated")).disagreement
    assert not _comparison(("weak", "holds"), ("weak", "timeout")).disagreement
    assert _comparison(("weak", "holds"), ("weak", "violated")).disagreement
    loud = format_table(_comparison(("weak", "holds"), ("weak", "violated")))
    assert "DISAGREEMENT" in loud


def test_formats() -> None:
    c = _comparison(("weak", "holds"), ("none", "violated"))
    assert format_markdown([c]).count("\n") == 4
    assert format_csv([c]).splitlines()[0].startswith("model,property,engine")
    assert json.loads(format_json([c]))[0]["rows"][1]["verdict"] == "violated"


@pytest.mark.spin
def test_compare_fig2a_weak() -> None:
    system = ALL["fig2a"]()
    result = compare(system, system.properties[0], CompareOptions(
        fairness=Fairness.WEAK, timeout=60,
        engines=("native", "spin-premise-spot", "spin-action-process", "spin-plain", "spot")))
    verdicts = {r.engine: r.verdict for r in result.rows}
    assert verdicts == {"native": "holds", "spin-premise-spot": "holds",
                        "spin-action-process": "holds", "spin-plain": "violated",
                        "spot": "holds"}
    assert not result.disagreement


def test_compare_rejects_unknown_engines() -> None:
    system = ALL["fig2a"]()
    with pytest.raises(ConfigurationError, match="allowed"):
        compare(system, system.properties[0], CompareOptions(engines=("nusmv",)))


@pytest.mark.spin
def test_ltl2ba_both_translators_agree() -> None:
    spot = importlib.import_module("spot")
    for formula in ["G(p -> F q)", "GF p -> GF q", "p U (q | G r)"]:
        a = spot.automaton(ltl_to_automaton(formula, "spot", "hoa"))
        b = spot.automaton(ltl_to_automaton(formula, "spin", "hoa"))
        assert spot.are_equivalent(a, b)
        assert spot.are_equivalent(a, spot.formula(formula))
    assert ltl_to_automaton("G p", "spot", "never").startswith("never")


@pytest.mark.spin
def test_spin_f_row_agrees_with_native_process_weak() -> None:
    system = ALL["rendezvous"]()
    prop = next(p for p in system.properties if p.number == 2)
    result = compare(system, prop, CompareOptions(
        fairness=Fairness.PROCESS_WEAK, timeout=60, engines=("native", "spin-f")))
    verdicts = [r.verdict for r in result.rows]
    assert verdicts[0] in ("holds", "violated") and verdicts == [verdicts[0]] * 2
