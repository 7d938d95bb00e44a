"""The results document (``case_studies/RESULTS.md``) and the README's copy of its tables,
updated in place (issue 13 item 3).

``bridge regress --results FILE --update`` re-runs only the selected rows: the rows of
FILE's "All rows" table that were not selected keep their outcome (verdict, seconds,
states, status and message, as the run that wrote them printed them), so one slow row
can be measured again without the hours of the whole suite. ``--readme FILE`` copies the
document's two tables (the summary per case study and all rows) into the README
between the headings ``### Summary per case study`` and the next ``## `` heading.

Rows are matched to ``expected.toml`` by what the table prints of them: model, size,
property, fairness, reduction and source (the source alone tells apart the rows that
share one check). A row of ``expected.toml`` that the table lacks is ``skipped``
("not run yet").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bridge.regress import Row, RowResult, Status, format_case_summary, format_markdown

_CELL = re.compile(r"(?<!\\)\|")
_STATUSES = (Status.PASS, Status.MISMATCH, Status.REPORTED, Status.LIMIT, Status.ERROR,
             Status.MISSING, Status.SKIPPED)
NOT_RUN = "not run yet"


def _unmd(text: str) -> str:
    return text.strip().replace("\\|", "|")


def _identity(row: Row) -> tuple[str, ...]:
    model = f"{row.case}/{row.file}" if row.file else row.case
    return (model, row.size_text, f"#{row.assertion}", row.fairness, row.reduction_text)


def _table_lines(text: str) -> list[list[str]]:
    """Return the cells of every data line of the document's "All rows" table."""
    start = text.find("## All rows")
    if start < 0:
        return []
    out: list[list[str]] = []
    for line in text[start:].splitlines():
        if not line.startswith("| ") or line.startswith("| model |"):
            continue
        cells = [_unmd(c) for c in _CELL.split(line)[1:-1]]
        if len(cells) == 13:
            out.append(cells)
    return out


def _outcome(row: Row, cells: list[str]) -> RowResult:
    """Return the result a table line printed for ``row``."""
    got, seconds, states, status_cell = cells[7], cells[8], cells[10], cells[11]
    note = f" [note: {_unmd(row.note)}]" if row.note else ""
    if note and status_cell.endswith(note):
        status_cell = status_cell[:-len(note)]
    elif " [note: " in status_cell:  # the note changed in expected.toml since
        status_cell = status_cell[:status_cell.index(" [note: ")]
    status, _, rest = status_cell.partition(" ")
    if status not in _STATUSES:
        raise ValueError(f"unknown status {status!r}")
    message = rest[1:-1] if rest.startswith("(") and rest.endswith(")") else ""
    if row.paper_reduction:  # ``limit_text`` appends this; it is appended again
        suffix = (f"; this row is the concrete state space: the paper's result used "
                  f"{row.paper_reduction}, whose row is listed with it")
        if message.endswith(suffix):
            message = message[:-len(suffix)]
    return RowResult(row, status, got=got,
                     states=None if states == "-" else int(states),
                     seconds=None if seconds == "-" else float(seconds),
                     message=message, ratio_text=cells[9])


def previous_results(text: str, rows: Sequence[Row]) -> list[RowResult]:
    """Return, for each of ``rows``, the outcome the document ``text`` printed for it
    (``skipped``, "not run yet", when it has none)."""
    lines = _table_lines(text)
    known = {_identity(r) for r in rows}
    if lines and not any(tuple(c[:5]) in known for c in lines):
        raise ValueError("none of its rows is a row of the case studies given (its rows "
                         "would all be lost)")
    used = [False] * len(lines)
    by_identity: dict[tuple[str, ...], list[int]] = {}
    for i, cells in enumerate(lines):
        by_identity.setdefault(tuple(cells[:5]), []).append(i)
    results: list[RowResult] = []
    for row in rows:
        candidates = [i for i in by_identity.get(_identity(row), []) if not used[i]]
        exact = [i for i in candidates if lines[i][12] == _unmd(row.source)]
        pick = (exact or candidates or [None])[0]
        result = None
        if pick is not None:
            try:
                result = _outcome(row, lines[pick])
                used[pick] = True
            except ValueError:
                result = None
        results.append(result or RowResult(row, Status.SKIPPED, message=NOT_RUN))
    return results


def merge(old: Sequence[RowResult], new: Sequence[RowResult]) -> list[RowResult]:
    """Return ``old`` (one result per row, in the document's order) with the rows that
    ``new`` ran replaced by their new results."""
    fresh = {(r.row.case, r.row.index): r for r in new}  # a row's place in its toml
    return [fresh.get((r.row.case, r.row.index), r) for r in old]


def document_tables(results: Sequence[RowResult]) -> str:
    """Return the README's copy: the summary per case study and all rows."""
    return ("### Summary per case study\n\n" + format_case_summary(results)
            + "\n### All rows\n\n" + format_markdown(results))


def update_readme(readme: str, results: Sequence[RowResult]) -> str:
    """Return ``readme`` with the section from ``### Summary per case study`` to the
    next ``## `` heading replaced by ``document_tables(results)``; raise ``ValueError``
    when the README has no such section."""
    start = readme.find("### Summary per case study")
    if start < 0:
        raise ValueError("the README has no '### Summary per case study' section")
    end = readme.find("\n## ", start)
    tail = "" if end < 0 else readme[end:]
    return readme[:start] + document_tables(results) + tail
