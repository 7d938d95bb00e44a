"""report/__init__.py, page.py, results.py: results files are recognised, the page is
self-contained and escapes what models name, the processes section stays bounded."""

from __future__ import annotations

import json

import pytest

from bridge.diagnostics import ConfigurationError
from bridge.report import Results, parse_results, render_report
from bridge.report.results import DRAWN_GRAPHS
from tests.unit.report.synthetic import long_lasso, outline


def test_results_files_are_recognised() -> None:
    check = long_lasso(2, 2)
    lines = json.dumps(check) + "\n" + json.dumps(check) + "\n"
    assert len(parse_results(lines).checks) == 2
    compared = json.dumps([{"model": "S", "property": "p", "fairness": "weak", "rows": []}])
    assert len(parse_results(compared).comparisons) == 1
    regressed = json.dumps([{"status": "pass", "expected": "holds"}])
    assert len(parse_results(regressed).regression) == 1
    with pytest.raises(ConfigurationError, match="f.json: not bridge results"):
        parse_results('{"a": 1}', "f.json")
    with pytest.raises(ConfigurationError, match="empty"):
        parse_results("  ", "f.json")


def test_names_from_the_model_are_escaped() -> None:
    check = long_lasso(1, 1)
    check["assertion"] = "<script>alert(1)</script>"
    check["lasso"]["loop"][0]["event"] = '"><img src=x>'
    page, _ = render_report(Results(checks=[check]), "t <b>")
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    assert "<img src=x>" not in page and "<title>t &lt;b&gt;</title>" in page


def test_many_process_templates_are_listed_not_drawn() -> None:
    check = long_lasso(1, 1)
    shape = outline(2)
    template = shape["processes"][0]
    shape["processes"] = [dict(template, name=f"P({k})", initial=k % 2)
                          for k in range(DRAWN_GRAPHS + 5)]
    # two signatures only (initial 0 or 1): identical templates are drawn once
    check["outline"] = shape
    page, _ = render_report(Results(checks=[check]), "t")
    assert page.count('class="lazy cfg"') == 2 and "not drawn" not in page
    for k, process in enumerate(shape["processes"]):
        process["edges"] = [dict(e, guard=f"x < {k}") for e in process["edges"]]
    page, _ = render_report(Results(checks=[check]), "t")
    assert page.count('class="lazy cfg"') == DRAWN_GRAPHS
    assert "5 more process templates, not drawn" in page
