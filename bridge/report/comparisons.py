"""The report of ``bridge compare`` and ``bridge regress``: tables and plots.

Comparisons are the JSON of ``bridge compare --json`` (``bridge.compare.format_json``):
per property, one row per engine and encoding. Regression rows are the JSON of
``bridge regress --json`` (``bridge.regress.format_json``). Plots come from ``plots``
(matplotlib), or a sentence saying why they are missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bridge.report import plots
from bridge.report._html import esc, shorten, table, tag
from bridge.report.page import Document

_COMPARE_COLUMNS = ("engine", "encoding", "fairness", "verdict", "premises", "states",
                    "transitions", "buchi_states", "buchi_edges", "seconds", "memory_mb",
                    "note")
_NUMERIC = (4, 5, 6, 7, 8, 9, 10)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if value < 10 else f"{value:.1f}"
    return str(value)


def _plot(doc: Document, svg: str | None, empty: str) -> str:
    if svg is not None:
        return tag("div", svg, class_="plots")
    reason = plots.missing_reason()
    if reason:
        doc.problems.append(reason)
        return tag("p", esc(reason), class_="note")
    return tag("p", esc(empty), class_="note")


def add_comparisons(doc: Document, comparisons: Sequence[dict[str, Any]]) -> None:
    """Add one section per comparison (banner on disagreement, the encoding table, the
    bar plots) and, over all of them, time and Büchi size per number of premises."""
    for k, comparison in enumerate(comparisons, 1):
        anchor = f"c{k}"
        disagreement = bool(comparison.get("disagreement"))
        doc.entry(anchor, f"compare: {comparison.get('property')}",
                  tag("span", "DISAGREE", class_="badge violated") if disagreement else "")
        rows = comparison.get("rows") or []
        premises = plots.premises_of(comparison)
        for row in rows:
            row.setdefault("premises", None)
        cells = [[tag("b", esc(row.get("engine")))] + [
            tag("span", esc(_cell(row.get(c))), class_=f"badge {row.get('verdict')}")
            if c == "verdict" else esc(_cell(row.get(c)))
            for c in _COMPARE_COLUMNS[1:]] for row in rows]
        parts = [tag("h2", f"Comparison: {esc(comparison.get('property'))}"),
                 tag("p", (f"file <code>{esc(comparison['file'])}</code>, "
                           if comparison.get("file") else "")
                     + f"system <code>{esc(comparison.get('model'))}</code>, fairness "
                     f"<b>{esc(comparison.get('fairness'))}</b>"
                     + (f", {premises} fairness premises" if premises is not None else ""),
                     class_="meta")]
        if disagreement:
            parts.append(tag("p", "Engines checking the same fairness gave different "
                             "verdicts.", class_="disagree"))
        parts.append(table([c.replace("_", " ") for c in _COMPARE_COLUMNS], cells,
                           class_="compare sortable", numeric=_NUMERIC,
                           row_classes=[f"verdict-{row.get('verdict')}" for row in rows]))
        parts.append(_plot(doc, plots.comparison_bars(comparison, f"{anchor}-bars"),
                           "no engine row to plot"))
        doc.sections.append(tag("section", "".join(parts), id=anchor, class_="comparison"))
    if comparisons:
        anchor = "premises"
        doc.entry(anchor, "per number of premises")
        svg = plots.premise_lines(comparisons, f"{anchor}-plot")
        doc.sections.append(tag("section", tag("h2", "Time and automaton size per number "
                                               "of fairness premises")
                                + _plot(doc, svg, "no comparison encoded fairness as "
                                        "premises (e.g. fairness none)"), id=anchor))


_REGRESS_COLUMNS = ("model", "size", "property", "fairness", "reduction", "expected",
                    "got", "states", "seconds", "paper_seconds", "status", "message")


def add_regression(doc: Document, rows: Sequence[dict[str, Any]]) -> None:
    """Add the regression summary (rows per status), the results table coloured by
    status, and our time against the paper's (log-log)."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[str(row.get("status"))] = counts.get(str(row.get("status")), 0) + 1
    doc.entry("regress", "regression results",
              " ".join(tag("span", f"{n} {esc(s)}", class_=f"badge {esc(s)}")
                       for s, n in sorted(counts.items())))
    summary = " ".join(tag("span", f"{n} {esc(s)}", class_=f"badge {esc(s)}")
                       for s, n in sorted(counts.items()))
    cells = []
    for row in rows:
        values = [esc(_cell(row.get(c))) for c in _REGRESS_COLUMNS]
        status = str(row.get("status"))
        values[10] = tag("span", esc(status), class_=f"badge {status}")
        values[0] = tag("code", values[0])
        message = str(row.get("message") or "")
        values[11] = tag("span", esc(shorten(message, 90)), title=message or None)
        cells.append(values)
    parts = [tag("h2", "Regression: our verdicts against the papers'"),
             tag("p", summary, class_="meta"),
             tag("h3", "Our time against the paper's"),
             _plot(doc, plots.regress_scatter(rows, "regress-plot"),
                   "no row has both a paper time and ours"),
             tag("h3", "All rows (click a header to sort)"),
             table([c.replace("_", " ") for c in _REGRESS_COLUMNS], cells,
                   class_="regress sortable", numeric=(7, 8, 9),
                   row_classes=[f"status-{row.get('status')}" for row in rows])]
    doc.sections.append(tag("section", "".join(parts), id="regress", class_="regression"))
