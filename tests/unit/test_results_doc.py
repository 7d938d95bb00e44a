"""``bridge regress --results FILE --update`` and ``--readme`` (issue 13 item 3): the
document's rows read back exactly as they were printed, a partial run replaces only
its own rows, and the README's copy of the tables follows the document."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from bridge import regress, results_doc

ROOT = Path(__file__).resolve().parents[2]

def _toml_row(size: int, fairness: str, source: str, extra: str = "") -> str:
    return (f'[[row]]\nfile = "m.csp"\nsize = {{ N = {size} }}\nassertion = 1\n'
            f'fairness = "{fairness}"\nexpected = "holds"\nsource = "{source}"\n{extra}')


TOML = "\n".join([
    _toml_row(2, "none", "paper, row A | with a pipe", 'note = "a note (with parentheses)"\n'),
    _toml_row(2, "none", "paper, row B (the same check)"),
    _toml_row(3, "weak", "paper, row C", 'paper_seconds = 5.5\npaper_reduction = "por"\n'),
])

MODEL = "#define N 2;\nvar x = 0;\nP() = a{x = 1 - x} -> P();\n#assert P() deadlockfree;\n"


@pytest.fixture()
def case(tmp_path: Path) -> Path:
    folder = tmp_path / "cases" / "m"
    folder.mkdir(parents=True)
    (folder / "expected.toml").write_text(TOML)
    (folder / "m.csp").write_text(MODEL)
    return tmp_path / "cases"


def _rows(case: Path) -> list[regress.Row]:
    return regress.load_rows([case])


def test_every_printed_outcome_reads_back(case: Path) -> None:
    rows = _rows(case)
    results = [
        regress.RowResult(rows[0], regress.Status.PASS, got="holds", states=12,
                          seconds=1.25),
        regress.RowResult(rows[1], regress.Status.ERROR, seconds=0.5,
                          message="a message (with parentheses) | and a pipe"),
        regress.RowResult(rows[2], regress.Status.LIMIT, got="unknown", states=99,
                          seconds=60.0, message="time limit reached before a verdict"),
    ]
    text = regress.format_results_document(results)
    back = results_doc.previous_results(text, rows)
    assert [dataclasses.replace(r, ratio_text="") for r in back] == results
    assert regress.format_results_document(back) == text
    # the ratio is kept as printed (from the unrounded seconds), not recomputed
    row = rows[2]
    measured = regress.RowResult(row, regress.Status.PASS, got="holds", seconds=0.853)
    line = regress.format_markdown([measured])
    assert "| 0.85 | 0.16 |" in line
    again = results_doc.previous_results(regress.format_results_document([measured]), [row])
    assert "| 0.85 | 0.16 |" in regress.format_markdown(again)


def test_a_row_the_document_lacks_is_not_run_yet(case: Path) -> None:
    rows = _rows(case)
    text = regress.format_results_document(
        [regress.RowResult(rows[0], regress.Status.PASS, got="holds", seconds=1.0)])
    back = results_doc.previous_results(text, rows)
    assert [r.status for r in back] == [regress.Status.PASS, regress.Status.SKIPPED,
                                        regress.Status.SKIPPED]
    assert back[2].message == results_doc.NOT_RUN


def test_merge_replaces_only_the_rows_run(case: Path) -> None:
    rows = _rows(case)
    old = [regress.RowResult(r, regress.Status.PASS, got="holds", seconds=9.0) for r in rows]
    again = _rows(case)[2]  # loaded anew, as a second run loads it
    new = [regress.RowResult(again, regress.Status.PASS, got="holds", seconds=1.0)]
    merged = results_doc.merge(old, new)
    assert [r.seconds for r in merged] == [9.0, 9.0, 1.0]


def test_readme_section_is_replaced_up_to_the_next_heading(case: Path) -> None:
    rows = _rows(case)
    results = [regress.RowResult(r, regress.Status.PASS, got="holds", seconds=2.0)
               for r in rows]
    readme = ("# x\n\n## Results\n\ntext\n\n### Summary per case study\n\nOLD-SUMMARY\n\n"
              "### All rows\n\nOLD-ROWS\n\n## Layout\n\nkept\n")
    out = results_doc.update_readme(readme, results)
    assert out.startswith("# x\n\n## Results\n\ntext\n\n### Summary per case study\n\n| case")
    assert "OLD-" not in out
    assert out.endswith("\n\n## Layout\n\nkept\n")
    assert "| m | 3 | 3 | 0 | 0 | 0 | 6.0 |" in out
    with pytest.raises(ValueError, match="Summary per case study"):
        results_doc.update_readme("# no tables\n", results)


def _regress(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bridge", "regress", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_cli_update_runs_only_the_selected_rows(case: Path) -> None:
    results = case / "RESULTS.md"
    readme = case.parent / "README.md"
    readme.write_text("# r\n\n### Summary per case study\n\nx\n\n## Layout\n")
    first = _regress(str(case), "--results", str(results), cwd=case.parent)
    assert first.returncode == 0, first.stderr
    text = results.read_text()
    # the N = 3 row is edited by hand, as an older run would have left it; a partial
    # re-run of the N = 2 rows keeps it
    line = next(x for x in text.splitlines() if "| N=3 |" in x)
    stale = line.replace("| pass |", "| limit (an older run) |")
    results.write_text(text.replace(line, stale))
    notes = "## Notes\n\nkept notes\n\n"
    results.write_text(results.read_text().replace("## Summary per case study",
                                                   notes + "## Summary per case study"))
    second = _regress(str(case), "--fairness", "none", "--results", str(results),
                      "--update", "--readme", str(readme), cwd=case.parent)
    assert second.returncode == 0, second.stderr
    assert "[2/2]" in second.stderr and "[3/" not in second.stderr  # the N = 2 rows
    after = results.read_text()
    assert "kept notes" in after
    assert after.count("| m/m.csp |") == 3
    kept = next(x for x in after.splitlines() if "| N=3 |" in x)
    assert "| limit (an older run; this row is the concrete state space" in kept
    assert "Totals: 1 limit, 2 pass" in after
    readme_text = readme.read_text()
    assert "| m/m.csp | N=2 |" in readme_text and readme_text.endswith("\n## Layout\n")


def test_cli_update_needs_results(case: Path) -> None:
    out = _regress(str(case), "--update", cwd=case.parent)
    assert out.returncode == 2 and "--results" in out.stderr


def test_cli_selects_rows_by_size_and_reduction(case: Path) -> None:
    out = _regress(str(case), "--size", "N=3", "--reduction", "none", cwd=case.parent)
    assert out.returncode == 0, out.stderr
    assert "[1/1]" in out.stderr and "N=3" in out.stdout and "N=2" not in out.stdout
    out = _regress(str(case), "--reduction", "symmetry", cwd=case.parent)
    assert out.returncode == 2 and "no rows selected" in out.stderr


def test_cli_update_refuses_a_document_of_other_case_studies(case: Path) -> None:
    """A results file away from its case studies would have lost every row."""
    elsewhere = case.parent / "elsewhere"
    elsewhere.mkdir()
    results = elsewhere / "RESULTS.md"
    first = _regress(str(case), "--results", str(results), cwd=case.parent)
    assert first.returncode == 0, first.stderr
    before = results.read_text()
    out = _regress(str(case), "--fairness", "weak", "--results", str(results), "--update",
                   cwd=case.parent)
    assert out.returncode == 2 and "would all be lost" in out.stderr, out.stderr
    assert results.read_text() == before
