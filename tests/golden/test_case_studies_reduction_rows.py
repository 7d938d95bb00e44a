"""Reduced case-study rows through ``bridge regress`` give the papers' verdicts.

- Process counter abstraction (paper 002 section 6 table, LE 1000 with cutoff 2): the
  ``le_pl`` rows of ``expected.toml`` that ask for ``reduction = "counter-abstraction"``
  give the table's verdicts (none: false; process-level weak and strong: true) on 1000
  processes, whose concrete interleaving is far out of reach.
- Symmetry reduction (paper 001 sections 4-5, sound under strong global fairness): the
  LE_C rows of 000 Table 2 under strong global fairness (N = 3, 5: *Yes*), run through
  regress with ``reduction = "symmetry"``, give the paper's verdict on the quotient
  (fewer states than the concrete search), and the 001 Table 1 symmetry rows give a
  definite verdict equal to the unreduced one.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bridge import regress

CASES = Path(__file__).resolve().parents[2] / "case_studies"
ROWS = regress.load_rows([CASES])


def test_the_reduced_rows_exist() -> None:
    counter = [r for r in ROWS if r.reduction == "counter-abstraction"]
    symmetry = [r for r in ROWS if r.reduction == "symmetry"]
    assert len(counter) >= 12 and len(symmetry) >= 4
    for row in counter:
        assert "fair-process-counter-abstraction.txt" in row.source, row.name
    for row in symmetry:
        # 001 Table 1 rows, or 000 Table 2 rows checked on the quotient (LE_R: bridge's
        # own use of 001 Theorem 4, said in the source)
        assert "global-fairness-symmetry-por.txt" in row.source \
            or "checked here on the symmetry quotient" in row.source, row.name
    por = [r for r in ROWS if r.reduction == "por"]
    assert {r.case for r in por} == {"ms"}
    assert all(r.fairness == "annotated" for r in por)


# Fast reduced rows of issue 13: LE_R and two-hop coloring on the symmetry quotient,
# KV (N = 3) and the anonymous stack (N = 5) on the process counter abstraction.
FAST_REDUCED = [r for r in ROWS if r.fast and r.reduction
                and r.case in ("le_r", "two_hop_coloring", "kv", "stack")]


@pytest.mark.parametrize("row", FAST_REDUCED, ids=lambda r: r.name)
def test_fast_reduced_row_uses_its_reduction(row: regress.Row) -> None:
    (result,) = regress.run_rows([row], regress.RunOptions(timeout=120.0))
    expected = regress.Status.REPORTED if row.expected == "unknown" else regress.Status.PASS
    assert result.status == expected, (result.got, result.message)
    # a refused reduction is an ERROR row; the message names what was used
    used = "symmetry: " if row.reduction == "symmetry" else "counter abstraction: "
    assert used in result.message, result.message


def test_fast_reduced_rows_cover_each_new_case() -> None:
    assert {r.case for r in FAST_REDUCED} == {"le_r", "two_hop_coloring", "kv", "stack"}


LE_1000 = [r for r in ROWS if r.case == "le_pl" and r.size == (("N", 1000),)
           and r.reduction == "counter-abstraction"]


@pytest.mark.parametrize("row", LE_1000, ids=lambda r: r.name)
def test_counter_abstraction_row_gives_the_papers_verdict(row: regress.Row) -> None:
    assert row.expected in ("holds", "violated") and row.cutoff == 2
    (result,) = regress.run_rows([row], regress.RunOptions(timeout=60.0))
    assert result.status == regress.Status.PASS, (result.got, result.message)
    assert "counter abstraction: 1000 identical instances" in result.message


def test_counter_abstraction_rows_cover_every_fairness() -> None:
    assert sorted(r.fairness for r in LE_1000) == ["none", "process-strong", "process-weak"]


@pytest.mark.parametrize("file", ["le_c_3.csp", "le_c_5.csp"])
def test_symmetry_row_gives_the_papers_verdict(file: str) -> None:
    (plain,) = [r for r in ROWS if r.case == "le_c" and r.file == file
                and r.fairness == "strong-global" and r.expected == "holds"]
    assert "Table 2" in plain.source
    reduced = dataclasses.replace(plain, reduction="symmetry")
    full, quotient = regress.run_rows([plain, reduced], regress.RunOptions(timeout=60.0))
    assert quotient.status == regress.Status.PASS, (quotient.got, quotient.message)
    assert "symmetry: " in quotient.message and "full group" in quotient.message
    assert full.status == regress.Status.PASS
    assert quotient.states is not None and full.states is not None
    assert quotient.states < full.states


def test_table_1_symmetry_rows_agree_with_the_unreduced_rows() -> None:
    reduced = [r for r in ROWS if r.reduction == "symmetry" and r.fast
               and "global-fairness-symmetry-por.txt" in r.source]
    assert reduced
    plain = [dataclasses.replace(r, reduction="") for r in reduced]
    results = regress.run_rows(reduced + plain, regress.RunOptions(timeout=60.0, jobs=2))
    for with_symmetry, without in zip(results[:len(reduced)], results[len(reduced):],
                                      strict=True):
        assert with_symmetry.status == regress.Status.REPORTED, with_symmetry
        assert with_symmetry.got in ("holds", "violated")
        assert with_symmetry.got == without.got, (with_symmetry.row.name, without.got)
