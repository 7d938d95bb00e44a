"""The fast case-study rows again, with the reductions asked for (issue 7 item 4: "the
case studies run with each applicable reduction give the expected verdicts").

Each fast LTL row is checked through ``bridge.api`` with ``por=True`` (partial order
reduction, applied where sound: no, weak, process-weak fairness and annotations,
refused otherwise) and with ``symmetry=True`` (applied where the symmetry is verified
on the IR, with no or strong global fairness). Whether a reduction was applied or
refused, the verdict must be the paper's; the verdict's notes must say what happened
to the reduction (it is never dropped silently). Symmetry is also covered family by
family in tests/unit/reductions/test_symmetry.py.

Only sizes up to 4 are run: the POR wrapper builds the whole reduced graph before the
fair search starts (it cannot stop at the first counterexample), which makes
le_or_fixed_5 under weak fairness take a minute with --por against 0.1 s without.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bridge import api, regress
from bridge.ir.property import PropertyKind

CASES = Path(__file__).resolve().parents[2] / "case_studies"
# rows that already ask for a reduction (``reduction`` key) are run as they are by
# test_case_studies.py; adding a second reduction to them is not what they test
ROWS = [r for r in regress.load_rows([CASES])
        if r.fast and not r.missing and r.expected != "unknown" and not r.reduction
        and all(value <= 4 for _name, value in r.size)]


def _ltl_rows() -> list[regress.Row]:
    chosen = []
    for row in ROWS:
        model = regress.load_row_model(row)
        ((_system, prop),) = api.select_properties(model, row.assertion)
        if prop.kind is PropertyKind.LTL:
            chosen.append(row)
    return chosen


LTL_ROWS = _ltl_rows()


@pytest.mark.parametrize("reduction", ["por", "symmetry"])
@pytest.mark.parametrize("row", LTL_ROWS, ids=lambda r: r.name)
def test_fast_row_with_reduction(row: regress.Row, reduction: str) -> None:
    model = regress.load_row_model(row)
    options = dataclasses.replace(regress._options(row, timeout=120, max_states=None),
                                  **{reduction: True})
    (verdict,) = api.check(model, row.assertion, options)
    assert verdict.outcome.value == row.expected, (row.name, verdict.reason, verdict.notes)
    said = " ".join(verdict.notes).lower()
    assert ("por" if reduction == "por" else "symmetry") in said, verdict.notes


def test_some_rows_are_checked() -> None:
    assert len(LTL_ROWS) >= 20


# ---------------------------------------------------------------------------------
# Milner's cyclic scheduler (000 Table 3): the reduced and the full search agree on
# every size the full search finishes here in a few seconds.

MS = CASES / "ms"


def _ms_model(tmp_path: Path, name: str, n: int):
    text = (MS / name).read_text().replace("#define N 3;", f"#define N {n};")
    # a second assertion that fails (work.0 happens again and again), so that the
    # reduced search must also find counterexamples
    text += "\n#assert Scheduler() |= <>[] !work.0;\n"
    path = tmp_path / f"{Path(name).stem}_{n}.csp"
    path.write_text(text)
    return api.load_model(str(path))


@pytest.mark.parametrize("n", [3, 4, 5, 6])
@pytest.mark.parametrize("name,fairness", [
    ("ms_annotated.csp", None),  # sf on the communications (000 section 5.3)
    ("ms.csp", "none"),  # no fairness ([]<> work.0 holds even so: the ring stops without it)
])
def test_ms_with_and_without_por(tmp_path: Path, n: int, name: str, fairness: str | None) -> None:
    model = _ms_model(tmp_path, name, n)
    chosen = api.parse_fairness(fairness) if fairness else None
    full = api.check(model, None, api.CheckOptions(fairness=chosen, timeout=120))
    reduced = api.check(model, None, api.CheckOptions(fairness=chosen, timeout=120, por=True))
    assert [v.outcome.value for v in full] == [v.outcome.value for v in reduced] \
        == ["holds", "violated"]
    for verdict, unreduced in zip(reduced, full, strict=True):
        assert any(note.startswith("por: partial order reduction applied")
                   for note in verdict.notes)
        assert verdict.statistics.transitions <= unreduced.statistics.transitions
    assert reduced[0].statistics.transitions < full[0].statistics.transitions


def test_ms_whole_system_strong_local_refuses_por(tmp_path: Path) -> None:
    model = _ms_model(tmp_path, "ms.csp", 3)
    strong_local = api.parse_fairness("strong-local")
    (verdict,) = api.check(model, 1, api.CheckOptions(fairness=strong_local, por=True, timeout=120))
    assert verdict.outcome.value == "holds"
    assert any("unsound under strong-local fairness" in note for note in verdict.notes)
