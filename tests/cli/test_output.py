"""How results are printed: valuations, step tables with the loop marker, verdict blocks."""

from __future__ import annotations

import io

from rich.console import Console

from bridge.commands import _common
from bridge.diagnostics import Span
from bridge.ir import FairnessWitness, Lasso, Outcome, Statistics, Trace, TraceStep, Verdict


def _render(fn, *args) -> str:
    buffer = io.StringIO()
    out = Console(file=buffer, width=120, color_system=None, soft_wrap=True)
    fn(out, *args)
    return buffer.getvalue()


def test_valuation_shows_locations_and_arrays() -> None:
    text = _common.valuation_text((("x", 0), ("flag", (True, False)), ("P(0)@", 3)))
    assert text == "x=0, flag=[true, false], P(0)@L3"
    assert _common.valuation_text(()) == "(no variables)"


def test_lasso_block() -> None:
    go = TraceStep("go", ("P(0)",), "x = 1", Span("m.csp", 7, 3), (("x", 0, 1),))
    back = TraceStep(None, ("P(0)",), "x = 0", Span("m.csp", 8, 3), (("x", 1, 0),))
    verdict = Verdict("Sys", "Sys() |= []<>done", Outcome.VIOLATED, "acceptance cycle",
                      "weak", lasso=Lasso(Trace((("x", 0),), (go,)), (back, go),
                                          FairnessWitness("weak", engaged=("go",))),
                      statistics=Statistics(4, 6, 0.5), notes=("a note",))
    text = _render(_common.print_verdict, 2, verdict)
    lines = text.splitlines()
    assert lines[0] == "[2] Sys() |= []<>done  VIOLATED (acceptance cycle)"
    assert "fairness: weak; states 4, transitions 6, 0.500 s (8 states/s)" in lines[1]
    assert "  note: a note" in lines
    assert "counterexample (infinite run):" in text and "initial state: x=0" in text
    marker = next(i for i, line in enumerate(lines) if "loop starts here" in line)
    rows = [line for line in lines if line[:1].isdigit()]
    assert [r.split()[0] for r in rows] == ["1", "2", "3"]
    assert lines.index(rows[0]) < marker < lines.index(rows[1])
    assert "τ" in rows[1] and "x: 1→0" in rows[1] and " 8 " in rows[1]
    assert "engaged in the loop: go" in text


def test_summary_table_has_a_model_column_for_several_models() -> None:
    verdict = Verdict("S", "p", Outcome.HOLDS, statistics=Statistics(1, 2, 0.01))
    one = _render(lambda out: out.print(_common.summary_table([("a.csp", 1, "p", verdict)])))
    many = _render(lambda out: out.print(_common.summary_table(
        [("a.csp", 1, "p", verdict), ("b.pml", 1, "q", verdict)], show_model=True)))
    assert "model" not in one.splitlines()[0] and "HOLDS" in one
    assert many.splitlines()[0].split()[0] == "model" and "b.pml" in many
