"""Small helpers for writing HTML and SVG as text (escaping, attributes, number ranges).

The report is assembled from strings: every value that comes from a model or a result
goes through ``esc`` (text and attribute values alike), so a model's names cannot
break the page.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from typing import Any


def esc(value: object) -> str:
    """Return ``value`` as text escaped for HTML/SVG content and attribute values."""
    return html.escape(str(value), quote=True)


def attrs(**values: object) -> str:
    """Return ``' a="1" b="x"'`` for the non-None values (``class_`` gives ``class``,
    ``data_step`` gives ``data-step``; True gives a bare attribute)."""
    parts = []
    for name, value in values.items():
        if value is None or value is False:
            continue
        key = name.rstrip("_").replace("_", "-")
        parts.append(f" {key}" if value is True else f' {key}="{esc(value)}"')
    return "".join(parts)


def tag(name: str, content: str = "", **values: object) -> str:
    """Return ``<name attrs>content</name>`` (``content`` is HTML, not escaped)."""
    return f"<{name}{attrs(**values)}>{content}</{name}>"


def shorten(text: str, limit: int) -> str:
    """Return ``text`` cut to ``limit`` characters with an ellipsis when longer."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: max(1, limit - 1)] + "…"


def value_text(value: Any) -> str:
    """Return a model value as the CLI prints it (``true``, ``[0, 1]``, ``-`` for None)."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    return str(value)


def ranges(numbers: Iterable[int], limit: int = 12) -> str:
    """Return ``1–3, 7, 9–12`` for sorted runs of numbers (at most ``limit`` runs, then
    ``… (n in all)``); ``-`` for none."""
    ordered = sorted(set(numbers))
    if not ordered:
        return "-"
    runs: list[tuple[int, int]] = []
    for n in ordered:
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    shown = [f"{a}" if a == b else f"{a}–{b}" for a, b in runs[:limit]]
    if len(runs) > limit:
        shown.append(f"… ({len(ordered)} in all)")
    return ", ".join(shown)


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], class_: str = "",
          row_classes: Sequence[str] | None = None, numeric: Sequence[int] = ()) -> str:
    """Return an HTML table; cells are HTML (escape text first). ``numeric``: indices
    of right-aligned columns; ``row_classes``: one CSS class per row."""
    head = "".join(tag("th", esc(h), class_="num" if i in numeric else None)
                   for i, h in enumerate(headers))
    body = []
    for k, row in enumerate(rows):
        cells = "".join(tag("td", cell, class_="num" if i in numeric else None)
                        for i, cell in enumerate(row))
        row_class = row_classes[k] if row_classes is not None else None
        body.append(tag("tr", cells, class_=row_class or None))
    return tag("div", tag("table", tag("thead", tag("tr", head))
                          + tag("tbody", "".join(body)), class_=class_ or None),
               class_="table-wrap")


def script_json(value: Any) -> str:
    """Return ``value`` as JSON that is safe inside a ``<script>`` element."""
    return json.dumps(value, separators=(",", ":")).replace("</", "<\\/")


def strip_xml_prolog(svg: str) -> str:
    """Return an SVG document without its ``<?xml ...?>`` line, DOCTYPE and comments
    before the root, ready to be inlined in HTML."""
    start = svg.find("<svg")
    return svg[start:].strip() if start >= 0 else svg


LAZY_TYPE = "text/x-bridge-lazy"  # HTML kept as text until its <details> is opened


def lazy_details(summary: str, content: str, open_: bool = False, **values: object) -> str:
    """Return a ``<details class="lazy">`` whose ``content`` (HTML) is kept as text in a
    script element of a type no browser runs, so it is neither parsed nor laid out
    until the reader opens it (the page script then inserts it). ``summary`` is HTML.
    The content cannot end the element early: all text in it is escaped."""
    classes = " ".join(["lazy", str(values.pop("class_", "") or "")]).strip()
    return tag("details", tag("summary", summary)
               + f'<script type="{LAZY_TYPE}">{content}</script>',
               class_=classes, open=open_, **values)
