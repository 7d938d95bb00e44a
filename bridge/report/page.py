"""The report page: one self-contained HTML file (styles and scripts inline, graphs and
plots as inline SVG, the model's source embedded), with a table of contents.

``Document`` collects sections; graphs are queued in a ``GraphBatch`` while the
sections are written and drawn by one ``dot`` run when the page is finished
(``Document.html``). ``Sources`` embeds the model files and turns ``(file, line)`` into
a link to that line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bridge.report._assets import ERROR_TRAP, SCRIPT, STYLE
from bridge.report._html import esc, tag
from bridge.report.graphs import render_graphs


class Sources:
    """The source files embedded in a report (path -> text), numbered in order."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self._number: dict[str, int] = {}

    def add(self, files: Mapping[str, str]) -> None:
        """Embed ``files`` (a file already embedded keeps its first text)."""
        for path, text in files.items():
            if str(path) not in self.files:
                self._number[str(path)] = len(self.files)
                self.files[str(path)] = text

    def anchor(self, file: str | None, line: int | None) -> str | None:
        """Return ``#src-K-LINE`` for an embedded file's line, else None."""
        if file is None or line is None or file not in self._number:
            return None
        return f"#src-{self._number[file]}-{line}"

    def section(self) -> str:
        """Return the source listings, one per file, each line an anchor."""
        if not self.files:
            return ""
        parts = [tag("h2", "Source")]
        for k, (path, text) in enumerate(self.files.items()):
            lines = "".join(
                f'<span class="line" id="src-{k}-{n}"><a class="ln" '
                f'href="#src-{k}-{n}">{n}</a>{esc(line)}</span>'
                for n, line in enumerate(text.splitlines(), 1))
            parts.append(tag("details", tag("summary", tag("code", esc(path)))
                             + tag("pre", lines, class_="source"), open=True))
        return tag("section", "".join(parts), id="sources")


@dataclass
class GraphBatch:
    """Graphs waiting to be drawn: each ``add`` returns a placeholder that ``resolve``
    replaces by the SVG (or by a sentence saying why it is missing)."""

    items: list[tuple[str, str]] = field(default_factory=list)

    def add(self, prefix: str, source: str) -> str:
        """Queue a dot graph; return its placeholder text."""
        self.items.append((prefix, source))
        return f"\x00graph{len(self.items) - 1}\x00"

    def resolve(self, text: str, problems: list[str]) -> str:
        """Return ``text`` with every placeholder replaced; why graphs are missing goes
        to ``problems``."""
        if not self.items:
            return text
        rendered = render_graphs(self.items)
        if rendered.problem:
            problems.append(rendered.problem)
        for k, svg in enumerate(rendered.svgs):
            shown = svg if svg is not None else tag(
                "p", esc(rendered.problem or "this graph could not be drawn"),
                class_="note missing-graph")
            text = text.replace(f"\x00graph{k}\x00", shown)
        return text


@dataclass
class Document:
    """A report being written: title, subtitle, table of contents, sections."""

    title: str
    subtitle: str = ""
    toc: list[tuple[str, str, str]] = field(default_factory=list)  # (id, label, badge)
    sections: list[str] = field(default_factory=list)
    sources: Sources = field(default_factory=Sources)
    graphs: GraphBatch = field(default_factory=GraphBatch)
    problems: list[str] = field(default_factory=list)

    def entry(self, anchor: str, label: str, badge: str = "") -> None:
        """Add a table-of-contents line linking to ``#anchor`` (``badge``: HTML)."""
        self.toc.append((anchor, label, badge))

    def html(self) -> str:
        """Return the finished page (graphs drawn; problems listed at the top)."""
        body = "".join(self.sections) + self.sources.section()
        body = self.graphs.resolve(body, self.problems)
        if self.sources.files:
            self.entry("sources", "Source")
        toc = tag("nav", tag("ul", "".join(
            tag("li", tag("a", esc(label), href=f"#{anchor}") + (" " + badge if badge else ""))
            for anchor, label, badge in self.toc)), class_="toc")
        warnings = "".join(tag("p", esc(problem), class_="warning")
                           for problem in dict.fromkeys(self.problems))
        header = tag("header", tag("h1", esc(self.title))
                     + (tag("p", esc(self.subtitle)) if self.subtitle else ""), class_="top")
        return (
            "<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta name="generator" content="bridge">'
            f"<title>{esc(self.title)}</title>"
            f"<script>{ERROR_TRAP}</script><style>{STYLE}</style></head>"
            f"<body>{header}<div class=\"layout\">{toc}<main>{warnings}{body}</main></div>"
            f"<script>{SCRIPT}</script></body></html>\n"
        )
