"""HTML reports: checks, counterexamples, comparisons and regression runs as one
self-contained page (issue 14).

The room reads results, never computes them: its input is the plain JSON that
``bridge check --json``, ``bridge compare --json`` and ``bridge regress --json`` write
(``bridge.ir.serialize``, ``bridge.compare``, ``bridge.regress``), so a report drawn
right after a check and one drawn later from the saved JSON are the same page. It
imports only ``bridge.diagnostics`` and itself; ``bridge.api`` wires it to the engine.
Graphviz (``dot``) draws the graphs and matplotlib the plots; without them the report
says what is missing and shows the rest.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bridge.diagnostics import ConfigurationError
from bridge.report.comparisons import add_comparisons, add_regression
from bridge.report.msc import PAGE_SIZE
from bridge.report.page import Document
from bridge.report.results import add_check_results

__all__ = ["PAGE_SIZE", "Results", "parse_results", "render_report"]


@dataclass
class Results:
    """What one report shows: check results, comparisons, regression rows (JSON)."""

    checks: list[dict[str, Any]] = field(default_factory=list)
    comparisons: list[dict[str, Any]] = field(default_factory=list)
    regression: list[dict[str, Any]] = field(default_factory=list)

    def extend(self, other: Results) -> None:
        """Append ``other``'s results to these."""
        self.checks.extend(other.checks)
        self.comparisons.extend(other.comparisons)
        self.regression.extend(other.regression)

    def __bool__(self) -> bool:
        return bool(self.checks or self.comparisons or self.regression)


def _classify(items: Sequence[Any], name: str) -> Results:
    found = Results()
    for item in items:
        if not isinstance(item, dict):
            raise ConfigurationError(f"{name}: expected JSON objects, found {type(item).__name__}")
        if "rows" in item and "property" in item:
            found.comparisons.append(item)
        elif "status" in item and "expected" in item:
            found.regression.append(item)
        elif "verdict" in item and "assertion" in item:
            found.checks.append(item)
        else:
            raise ConfigurationError(
                f"{name}: not bridge results (an object with keys {sorted(item)[:6]}); "
                "expected the output of bridge check --json, or the files written by "
                "bridge compare --json FILE or bridge regress --json FILE")
    return found


def parse_results(text: str, name: str = "results") -> Results:
    """Return the results in ``text``: ``bridge check --json`` output (one object per
    line), or the JSON file of ``bridge compare --json`` / ``bridge regress --json``.
    Anything else raises ``ConfigurationError`` naming the file."""
    stripped = text.strip()
    if not stripped:
        raise ConfigurationError(f"{name}: empty file; expected the JSON output of "
                                 "bridge check --json, compare --json or regress --json")
    try:
        whole = json.loads(stripped)
    except json.JSONDecodeError:
        whole = None
        items = []
        for number, line in enumerate(stripped.splitlines(), 1):
            if not line.strip():
                continue
            try:
                items.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ConfigurationError(f"{name}:{number}:{error.colno}: not JSON: "
                                         f"{error.msg}") from None
        return _classify(items, name)
    return _classify(whole if isinstance(whole, list) else [whole], name)


def render_report(results: Results, title: str, subtitle: str = "",
                  page_size: int = PAGE_SIZE) -> tuple[str, list[str]]:
    """Return the HTML page of ``results`` and the problems met while drawing it
    (Graphviz or matplotlib missing), which the page also shows."""
    doc = Document(title, subtitle)
    add_check_results(doc, results.checks, page_size)
    add_comparisons(doc, results.comparisons)
    if results.regression:
        add_regression(doc, results.regression)
    return doc.html(), list(dict.fromkeys(doc.problems))
