"""One test per fast row of ``case_studies/*/expected.toml``, plus checks of the rows.

Each fast row is checked with ``bridge.regress.check_row`` (through ``bridge.api``)
and must give the paper's verdict; rows whose verdict the papers do not give
(``expected = "unknown"``) must still give a definite verdict. A row is skipped only
when a room it needs (front-end, fair checker) is not part of this build, and the skip
says which.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

from bridge import regress
from bridge.diagnostics import ConfigurationError

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "case_studies"
PAPERS = ("pat-verification-under-fairness.txt", "global-fairness-symmetry-por.txt",
          "fair-process-counter-abstraction.txt", "population-protocols-in-spin.txt")

ALL_ROWS = regress.load_rows([CASES])
FAST_ROWS = [r for r in ALL_ROWS if r.fast and not r.missing]


def test_generated_models_are_current() -> None:
    spec = importlib.util.spec_from_file_location("cs_generate", CASES / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for path, text in module.render_all().items():
        assert path.read_text() == text, f"{path} is stale: run case_studies/generate.py"


def test_every_row_cites_a_paper() -> None:
    assert len(ALL_ROWS) > 100
    for row in ALL_ROWS:
        assert any(paper in row.source for paper in PAPERS), row.name
        if row.expected != "unknown":
            # a definite verdict names its table/section
            assert re.search(r"Table \d|section \d", row.source), row.name


def test_every_case_folder_has_expected_toml() -> None:
    folders = [p for p in CASES.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))]
    for folder in folders:
        assert (folder / "expected.toml").is_file(), folder


def test_instantiate_rewrites_the_size() -> None:
    text = "#define N 3;\nvar x[N];\n"
    assert regress.instantiate(text, (("N", 7),), "csp").startswith("#define N 7;")
    assert regress.instantiate("#define N 3\nbyte a[N];\n", (("N", 5),),
                               "promela").startswith("#define N 5\n")
    with pytest.raises(ConfigurationError, match="no '#define M"):
        regress.instantiate(text, (("M", 2),), "csp")


def test_a_malformed_row_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "m.csp").write_text("#define N 3;\n")
    (tmp_path / "expected.toml").write_text(
        '[[row]]\nfile = "m.csp"\nassertion = 1\nfairness = "fair-ish"\n'
        'expected = "holds"\nsource = "x"\n')
    with pytest.raises(ConfigurationError, match="fairness 'fair-ish'"):
        regress.load_rows([tmp_path])


# The rooms a row needs: (module, attribute) per model language, and the fair checker.
def test_fast_rows_exist_and_fit_ci() -> None:
    # every case study with a model has CI coverage, and the CI set stays small
    assert len(FAST_ROWS) >= 30
    with_model = {r.case for r in ALL_ROWS if not r.missing}
    # ms (every row > 60 s here) has no CI row; le_pl's CI rows are its counter-
    # abstraction rows (reduction key; unreduced N = 10 takes 20-60 s); the other
    # engineer's folders choose their own fast rows
    assert {r.case for r in FAST_ROWS} >= with_model - {"kv", "stack", "ml", "le_t",
                                                          "two_hop_coloring",
                                                          "orienting_rings", "ms"}


@pytest.mark.parametrize("row", FAST_ROWS, ids=[r.name for r in FAST_ROWS])
def test_fast_row(row: regress.Row) -> None:
    result = regress.run_rows([row], regress.RunOptions(timeout=120.0))[0]
    detail = f"{row.name}: {result.status} got={result.got} {result.message} ({row.source})"
    if row.expected == "unknown":
        assert result.status == regress.Status.REPORTED, detail
        assert result.got in ("holds", "violated"), detail
    else:
        assert result.status == regress.Status.PASS, detail


def test_a_note_is_kept_and_shown(tmp_path: Path) -> None:
    (tmp_path / "m.csp").write_text("#define N 3;\n")
    (tmp_path / "expected.toml").write_text(
        '[[row]]\nfile = "m.csp"\nassertion = 1\nfairness = "weak"\n'
        'expected = "holds"\nsource = "x"\nnote = """two\n  lines"""\n')
    row = regress.load_rows([tmp_path])[0]
    assert row.note == "two lines"
    text = regress.format_markdown([regress.RowResult(row, regress.Status.MISMATCH,
                                                      got="violated")])
    assert "[note: two lines]" in text


def test_results_document_summarises_each_case() -> None:
    rows = [r for r in ALL_ROWS if r.case == "tc_r"][:3]
    results = [regress.RowResult(rows[0], regress.Status.PASS, got="holds", seconds=1.5),
               regress.RowResult(rows[1], regress.Status.MISMATCH, got="violated",
                                 seconds=2.0),
               regress.RowResult(rows[2], regress.Status.LIMIT, got="unknown", seconds=60.0)]
    text = regress.format_results_document(results, "## Notes\nkept\n")
    assert "| tc_r | 3 | 1 | 1 | 0 | 1 | 63.5 |" in text
    assert text.index("## Notes") < text.index("## Summary per case study") \
        < text.index("## All rows")
