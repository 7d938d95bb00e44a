"""``bridge check --html`` and ``bridge report`` (issue 14): the report written right
after a check and the one drawn later from the saved ``--json`` output are the same
page; bad input is a clear error with exit code 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.cli.conftest import run_bridge

MODEL = "tests/models/report/pingpong.pml"


def test_check_html_and_report_from_saved_json_are_the_same_page(tmp_path: Path) -> None:
    direct, later = tmp_path / "direct.html", tmp_path / "later.html"
    saved = run_bridge("check", MODEL, "--json", "--html", str(direct))
    assert saved.code == 1 and f"report written to {direct}" in saved.err
    results = tmp_path / "results.json"
    results.write_text(saved.out)
    objects = [json.loads(line) for line in saved.out.splitlines()]
    # the first object of the system carries the outline (processes and source)
    assert "outline" in objects[0] and all("outline" not in o for o in objects[1:])
    assert objects[0]["outline"]["sources"][MODEL].startswith("/* Report tests")
    drawn = run_bridge("report", str(results), "--html", str(later),
                       "--title", f"bridge check {MODEL}")
    assert drawn.code == 0, drawn.err
    assert later.read_text() == direct.read_text()
    page = direct.read_text()
    assert page.startswith("<!DOCTYPE html>") and 'class="msc"' in page
    # self-contained: nothing is fetched from elsewhere
    assert not re.search(r'(src|href)="(https?:|//)|url\((https?:|//)|@import|<link', page)
    assert not re.search(r"<script[^>]* src=", page)


def test_report_refuses_what_is_not_results(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}\n')
    done = run_bridge("report", str(bad), "--html", str(tmp_path / "x.html"))
    assert done.code == 2 and "not bridge results" in done.err
    bad.write_text("not json at all\n")
    done = run_bridge("report", str(bad), "--html", str(tmp_path / "x.html"))
    assert done.code == 2 and f"{bad}:1:1: not JSON" in done.err
    done = run_bridge("report", str(tmp_path / "none.json"), "--html", "x.html")
    assert done.code == 2 and "no such file" in done.err
    assert "Traceback" not in done.err


def test_an_unwritable_report_is_a_usage_error(tmp_path: Path) -> None:
    done = run_bridge("check", MODEL, "--html", str(tmp_path / "no" / "dir" / "r.html"))
    assert done.code == 2 and "cannot write" in done.err and "Traceback" not in done.err


def test_compare_shows_rows_as_they_finish_and_writes_html(tmp_path: Path) -> None:
    page, saved = tmp_path / "compare.html", tmp_path / "compare.json"
    done = run_bridge("compare", "case_studies/rw/rw.csp", "--assert", "2", "--fairness",
                      "weak", "--engines", "native,spot", "--jobs", "2",
                      "--html", str(page), "--json", str(saved))
    assert done.code == 0, done.err
    assert "2 engines, 2 at a time" in done.err
    assert "done native (weak): violated" in done.err and "done spot (weak)" in done.err
    html = page.read_text()
    assert 'class="compare sortable"' in html and 'class="plots"' in html
    assert json.loads(saved.read_text())[0]["file"] == "case_studies/rw/rw.csp"
    again = run_bridge("report", str(saved), "--html", str(tmp_path / "again.html"))
    assert again.code == 0 and 'class="compare sortable"' in (tmp_path / "again.html").read_text()


def test_regress_writes_json_and_html(tmp_path: Path) -> None:
    page, saved = tmp_path / "regress.html", tmp_path / "regress.json"
    done = run_bridge("regress", "case_studies/rw", "--fast", "--html", str(page),
                      "--json", str(saved), timeout=600)
    assert done.code == 0, done.err
    rows = json.loads(saved.read_text())
    assert rows and {r["status"] for r in rows} <= {"pass", "reported"}
    html = page.read_text()
    assert html.count('class="status-') >= len(rows) and 'class="regress sortable"' in html
