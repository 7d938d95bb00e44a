"""report/graphs.py: the lasso and the processes as Graphviz graphs; long lassos are
folded; dot runs once for every graph of a report."""

from __future__ import annotations

import re

import pytest

from bridge.report.graphs import LASSO_NODES, cfg_dot, dot_string, lasso_dot, render_graphs
from bridge.report.run import run_view
from tests.unit.report.synthetic import long_lasso, outline


def _href(n: int) -> str:
    return f"#a1-step-{n}"


def test_a_short_lasso_has_every_state_and_the_edge_back() -> None:
    result = long_lasso(2, 3)
    source = lasso_dot(run_view(result, result["outline"]), "a1", _href)
    states = set(re.findall(r"^\s+(s\d+) \[", source, re.M))
    assert states == {"s0", "s1", "s2", "s3", "s4"}
    assert "s4 -> s2" in source and "constraint=false" in source  # the loop closes
    assert "cluster_a1_loop" in source and 'href="#a1-step-5"' in source
    assert "x = 3" in source  # a node shows what changed on the way in


def test_a_lasso_of_ten_thousand_steps_is_folded() -> None:
    result = long_lasso(4000, 6000)
    source = lasso_dot(run_view(result, result["outline"]), "a1", _href)
    states = re.findall(r"^\s+(s\d+|fold\d+) \[", source, re.M)
    assert len(states) <= LASSO_NODES + 2
    assert sum(s.startswith("fold") for s in states) == 2  # one in the prefix, one in the loop
    assert "states folded" in source and "s9999 -> s4000" in source


def test_dot_strings_are_quoted() -> None:
    assert dot_string('a "b" \\c') == '"a \\"b\\" \\\\c"'


def test_cfg_has_locations_edges_and_links() -> None:
    process = outline(2)["processes"][0]
    source = cfg_dot(process, "g", lambda f, line: f"#src-0-{line}")
    assert "start -> L0" in source and "L0 -> L1" in source and "L1 -> L0" in source
    assert "[x < 5]" in source and 'href="#src-0-3"' in source


@pytest.mark.graphviz
def test_dot_draws_every_graph_in_one_run() -> None:
    process = outline(2)["processes"][0]
    rendered = render_graphs([("g1", cfg_dot(process, "g1", lambda f, n: None)),
                              ("g2", "digraph { a -> b }")])
    assert rendered.problem == ""
    assert all(svg is not None and svg.startswith("<svg") for svg in rendered.svgs)
    for prefix, svg in zip(("g1", "g2"), rendered.svgs, strict=True):
        ids = re.findall(r'\bid="([^"]*)"', svg)
        assert ids and all(i.startswith(prefix + "-") for i in ids)


@pytest.mark.graphviz
def test_a_broken_graph_does_not_spoil_the_others() -> None:
    rendered = render_graphs([("ok", "digraph { a -> b }"), ("bad", "digraph { a -> }")])
    assert rendered.svgs[0] is not None and rendered.svgs[1] is None
    assert "Graphviz failed" in rendered.problem


def test_without_dot_the_report_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shutil.which", lambda name: None)
    rendered = render_graphs([("g", "digraph { a }")])
    assert rendered.svgs == (None,) and "apt-get install graphviz" in rendered.problem
