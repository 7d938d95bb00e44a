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


def _slow_spot(system, prop, options):  # noqa: ANN001, ANN202 - stands in for a slow engine
    import time

    time.sleep(4)
    return [CompareRow("spot", "explicit product", options.fairness.value, "holds",
                       seconds=4.0)]


def test_engines_run_concurrently_and_rows_arrive_as_they_finish(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 14: a quick engine is not kept waiting behind a slow one (jobs > 1); the
    table keeps the engine order, and each row is announced when it is known."""
    import time

    import bridge.compare as module

    monkeypatch.setitem(module._RUNNERS, "spot", _slow_spot)
    system = ALL["fig2a"]()
    arrived: list[tuple[str, float]] = []
    started = time.monotonic()
    result = compare(system, system.properties[0], CompareOptions(
        fairness=Fairness.WEAK, engines=("spot", "native"), jobs=2),
        on_row=lambda row: arrived.append((row.engine, time.monotonic() - started)))
    assert [r.engine for r in result.rows] == ["spot", "native"]  # the engine order
    assert [engine for engine, _ in arrived] == ["native", "spot"]  # as they finished
    assert arrived[0][1] < arrived[1][1] - 1.0
    assert {r.engine: r.verdict for r in result.rows} == {"spot": "holds", "native": "holds"}
    sequential = compare(system, system.properties[0], CompareOptions(
        fairness=Fairness.WEAK, engines=("native",), jobs=1))
    assert sequential.rows[0].verdict == "holds"


def test_a_crashing_engine_is_an_error_row(monkeypatch: pytest.MonkeyPatch) -> None:
    import bridge.compare as module

    def crash(system, prop, options):  # noqa: ANN001, ANN202
        raise RuntimeError("boom")

    monkeypatch.setitem(module._RUNNERS, "spot", crash)
    system = ALL["fig2a"]()
    result = compare(system, system.properties[0], CompareOptions(
        fairness=Fairness.WEAK, engines=("native", "spot"), jobs=2))
    row = {r.engine: r for r in result.rows}["spot"]
    assert row.verdict == "error" and "RuntimeError: boom" in row.note


def test_compare_json_carries_premises_and_files() -> None:
    row = CompareRow("spin-premise", "enc", "weak", "timeout", seconds=60.0, premises=12)
    [item] = json.loads(format_json([Comparison("S", "p", "weak", (row,))], ["m.csp"]))
    assert item["file"] == "m.csp" and item["rows"][0]["premises"] == 12
