"""The message sequence chart of a run, as inline SVG (iSpin's MSC view, for lassos).

One column per process instance, one row per step. A step of one process is a dot on
its lifeline; a rendezvous is an arrow from sender to receiver in its row; a buffered
message is an arrow from the row of the send to the row of the receive; a CSP barrier
is a bar joining every participant, with arrowheads at both ends. The loop of a lasso
is shaded, opened by a "loop starts here" rule and closed by an arrow back to its
first step. The left gutter numbers the steps and links each to its source line; the
right one shows the statement and the variables it changed.

Long runs are paginated: each page of ``page_size`` steps is its own SVG, kept as
unparsed text until the reader turns to it (the page's script swaps pages), so a lasso
of 10,000 steps costs the browser the parsing and layout of one page. A message whose other
half lies on another page is drawn as a stub that names that step.
"""

from __future__ import annotations

from collections.abc import Callable

from bridge.report._html import esc, shorten, tag, value_text
from bridge.report.run import RunView, step_line

PAGE_SIZE = 200
ROW = 22
HEADER = 36
GUTTER = 200
TEXT_WIDTH = 520
TEXT_OFFSET = 34  # from the last lifeline to the statement column (the loop arrow between)
SourceLink = Callable[[str | None, int | None], str | None]
PAGE_TYPE = "text/x-bridge-page"  # pages waiting as text (see sequence_chart)


def step_anchor(anchor: str, number: int) -> str:
    """Return the element id of step ``number`` (1-based) of the chart ``anchor``."""
    return f"{anchor}-step-{number}"


def _column_width(columns: list[str]) -> int:
    longest = max((len(name) for name in columns), default=8)
    return max(96, min(180, longest * 7 + 18))


def _changes_text(step: dict) -> str:
    return ", ".join(f"{c.get('variable')}: {value_text(c.get('old'))}→"
                     f"{value_text(c.get('new'))}" for c in step.get("changes", ()))


def _message_label(message: dict) -> str:
    values = message.get("values")
    shown = "" if values is None else ",".join(value_text(v) for v in values)
    mark = "!" if message.get("sender") else "?"
    return f"{message.get('channel', '?')}{mark}{shown}"


def _event_text(step: dict) -> str:
    if step.get("stutter"):
        return "(stutter)"
    return step.get("event") or "τ"


class _Page:
    """The SVG of steps ``first`` to ``last`` (0-based, exclusive) of a run."""

    def __init__(self, view: RunView, anchor: str, first: int, last: int,
                 link: SourceLink) -> None:
        self.view, self.anchor, self.first, self.last, self.link = (
            view, anchor, first, last, link)
        self.width = _column_width(view.columns)
        self.index = {name: k for k, name in enumerate(view.columns)}
        self.rows: dict[int, int] = {}  # step index -> row number on this page
        row = 0
        for i in range(first, last):
            if i == view.loop_start:
                row += 1  # the "loop starts here" rule
            self.rows[i] = row
            row += 1
        self.closing_row = row if last == len(view.steps) and view.loop_start is not None \
            else None
        self.row_count = row + (1 if self.closing_row is not None else 0)
        self.parts: list[str] = []

    def x(self, column: str) -> float:
        return GUTTER + self.index.get(column, 0) * self.width + self.width / 2

    def y(self, row: int) -> float:
        return HEADER + row * ROW + ROW / 2

    @property
    def columns_right(self) -> float:
        return GUTTER + len(self.view.columns) * self.width

    def render(self) -> str:
        view = self.view
        total_width = self.columns_right + TEXT_OFFSET + TEXT_WIDTH
        height = HEADER + self.row_count * ROW + 10
        marker = f"{self.anchor}-arrowhead"
        out = self.parts
        out.append(
            f'<svg class="msc-page" xmlns="http://www.w3.org/2000/svg" '
            f'width="{total_width:.0f}" height="{height}" '
            f'viewBox="0 0 {total_width:.0f} {height}" data-first="{self.first + 1}" '
            f'data-last="{self.last}">'
            f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="9" refY="5" '
            'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
            '<path d="M0,0 L10,5 L0,10 z" class="msc-head"/></marker></defs>')
        self._loop_band(height)
        for k, name in enumerate(view.columns):
            cx = GUTTER + k * self.width + self.width / 2
            out.append(f'<line class="lifeline" x1="{cx:.1f}" y1="{HEADER - 6}" '
                       f'x2="{cx:.1f}" y2="{height - 4}"/>')
            out.append(f'<text class="msc-proc" x="{cx:.1f}" y="{HEADER - 14}" '
                       f'text-anchor="middle">{esc(shorten(name, self.width // 7))}'
                       f'<title>{esc(name)}</title></text>')
        for label, x in (("#", 8), ("line", 46), ("event", 92)):
            out.append(f'<text class="msc-head-text" x="{x}" y="{HEADER - 14}">{label}</text>')
        out.append(f'<text class="msc-head-text" x="{self.columns_right + TEXT_OFFSET:.0f}" '
                   f'y="{HEADER - 14}">statement · changes</text>')
        for i in range(self.first, self.last):
            if i == view.loop_start:
                self._loop_rule(self.rows[i] - 1)
            self._step(i, marker)
        if self.closing_row is not None:
            self._loop_close(marker)
        out.append("</svg>")
        return "".join(out)

    def _loop_band(self, height: int) -> None:
        view = self.view
        if view.loop_start is None or self.last <= view.loop_start:
            return
        first = max(self.first, view.loop_start)
        top_row = self.rows[first] - (1 if first == view.loop_start else 0)
        top = HEADER + top_row * ROW
        bottom = HEADER + self.row_count * ROW
        self.parts.append(f'<rect class="loop-band" x="2" y="{top}" '
                          f'width="{self.columns_right + 22:.0f}" height="{bottom - top}"/>')

    def _loop_rule(self, row: int) -> None:
        y = HEADER + row * ROW + ROW / 2
        # the label sits in the left gutter, where a wide chart is read
        self.parts.append(
            f'<line class="loop-rule" x1="{GUTTER - 8}" y1="{y}" '
            f'x2="{self.columns_right + 20:.0f}" y2="{y}"/>'
            f'<text class="loop-label" x="8" y="{y + 4}">↓ loop starts here</text>'
            f'<text class="loop-label" x="{self.columns_right + TEXT_OFFSET:.0f}" '
            f'y="{y + 4}">loop starts here (repeats forever)</text>')

    def _loop_close(self, marker: str) -> None:
        view = self.view
        assert view.loop_start is not None and self.closing_row is not None
        start_number = view.loop_start + 1
        y_end = self.y(self.closing_row)
        x = self.columns_right + 16
        target = self.rows.get(view.loop_start)
        if target is not None:
            y_top = self.y(target)
            self.parts.append(
                f'<path class="loop-back" d="M{x - 14:.0f},{y_end} H{x:.0f} V{y_top} '
                f'H{x - 6:.0f}" marker-end="url(#{marker})"/>')
        href = f"#{step_anchor(self.anchor, start_number)}"
        self.parts.append(
            f'<a href="{href}"><text class="loop-label" x="8" y="{y_end + 4}">'
            f'↺ back to step {start_number}</text></a>'
            f'<a href="{href}"><text class="loop-label" '
            f'x="{self.columns_right + TEXT_OFFSET:.0f}" y="{y_end + 4}">'
            f'↺ back to step {start_number}: the loop repeats forever</text></a>')

    def _step(self, i: int, marker: str) -> None:
        view, out = self.view, self.parts
        step = view.steps[i]
        number = i + 1
        y = self.y(self.rows[i])
        top = y - ROW / 2
        classes = "step" + (" in-loop" if view.in_loop(i) else "") + (
            " stutter" if step.get("stutter") else "")
        out.append(f'<g class="{classes}" id="{step_anchor(self.anchor, number)}" '
                   f'data-step="{number}">')
        out.append(f'<rect class="row-hit" x="0" y="{top}" '
                   f'width="{self.columns_right + TEXT_OFFSET + TEXT_WIDTH:.0f}" height="{ROW}"/>')
        statement, changes = step.get("text") or "", _changes_text(step)
        summary = f"step {number}: {_event_text(step)} by {', '.join(step.get('processes', ())) or '-'}"
        out.append(f"<title>{esc(summary)}\n{esc(statement)}\n{esc(changes)}</title>")
        out.append(f'<text class="msc-num" x="8" y="{y + 4}">{number}</text>')
        file, line = step_line(step)
        href = self.link(file, line)
        if line is not None:
            text = f'<text class="msc-line" x="46" y="{y + 4}">L{line}</text>'
            out.append(f'<a href="{esc(href)}">{text}</a>' if href else text)
        out.append(f'<text class="msc-event" x="92" y="{y + 4}">'
                   f'{esc(shorten(_event_text(step), 15))}</text>')
        self._interaction(i, step, y, marker)
        right = self.columns_right + TEXT_OFFSET
        shown = shorten(statement, 48)
        if changes:
            shown = f"{shown}  ·  {shorten(changes, 72)}" if shown else shorten(changes, 110)
        out.append(f'<text class="msc-text" x="{right:.0f}" y="{y + 4}">{esc(shown)}</text>')
        out.append("</g>")

    def _interaction(self, i: int, step: dict, y: float, marker: str) -> None:
        out = self.parts
        processes = [p for p in step.get("processes", ()) if p in self.index]
        messages = step.get("messages") or []
        if step.get("stutter") or not processes and not messages:
            out.append(f'<text class="msc-idle" x="{GUTTER + 6}" y="{y + 4}">'
                       f'{"the run stays in this state (deadlock or end)" if step.get("stutter") else "internal step"}'
                       "</text>")
            return
        drawn: set[str] = set()
        for m, message in enumerate(messages):
            sender, receiver = message.get("sender"), message.get("receiver")
            label = esc(shorten(_message_label(message), 28))
            if sender and receiver:  # rendezvous: one arrow in this row
                x1, x2 = self.x(sender), self.x(receiver)
                out.append(f'<line class="msg rendezvous" x1="{x1:.1f}" y1="{y}" '
                           f'x2="{x2 - (5 if x2 > x1 else -5):.1f}" y2="{y}" '
                           f'marker-end="url(#{marker})"/>')
                out.append(f'<text class="msg-label" x="{(x1 + x2) / 2:.1f}" y="{y - 4}" '
                           f'text-anchor="middle">{label}</text>')
                drawn.update((sender, receiver))
            elif sender:
                self._buffered_send(i, m, sender, label, y, marker)
            elif receiver:
                self._buffered_receive(i, m, receiver, y)
        barrier = step.get("barrier") or []
        if len(barrier) > 1:
            xs = sorted(self.x(p) for p in barrier if p in self.index)
            out.append(f'<line class="barrier" x1="{xs[0] + 5:.1f}" y1="{y}" '
                       f'x2="{xs[-1] - 5:.1f}" y2="{y}" marker-start="url(#{marker})" '
                       f'marker-end="url(#{marker})"/>')
            out.append(f'<text class="msg-label" x="{(xs[0] + xs[-1]) / 2:.1f}" '
                       f'y="{y - 4}" text-anchor="middle">'
                       f'{esc(shorten(_event_text(step), 28))}</text>')
        for p in processes:
            kind = "barrier-dot" if p in barrier else "dot"
            out.append(f'<circle class="{kind}" cx="{self.x(p):.1f}" cy="{y}" r="4.5"/>')

    def _buffered_send(self, i: int, m: int, sender: str, label: str, y: float,
                       marker: str) -> None:
        out = self.parts
        link = self.view.links.get((i, m))
        x1 = self.x(sender)
        peer = None if link is None else self.view.steps[link.peer]
        receiver = None
        if peer is not None:
            receiver = next((msg.get("receiver") for msg in peer.get("messages", ())
                             if msg.get("receiver")), None)
        if link is not None and receiver is not None and not link.wrapped \
                and link.peer in self.rows:
            x2, y2 = self.x(receiver), self.y(self.rows[link.peer])
            out.append(f'<line class="msg buffered" x1="{x1:.1f}" y1="{y}" '
                       f'x2="{x2:.1f}" y2="{y2 - 5:.1f}" marker-end="url(#{marker})"/>')
            out.append(f'<text class="msg-label" x="{x1 + 6:.1f}" y="{y - 4}">{label}</text>')
            return
        where = "never received in this run" if link is None else (
            f"received at step {link.peer + 1}" + (" (next round)" if link.wrapped else ""))
        direction = 1 if receiver is None or self.x(receiver) >= x1 else -1
        out.append(f'<line class="msg buffered stub" x1="{x1:.1f}" y1="{y}" '
                   f'x2="{x1 + direction * 36:.1f}" y2="{y + 8}" marker-end="url(#{marker})"/>')
        out.append(f'<text class="msg-label" x="{x1 + 6:.1f}" y="{y - 4}">{label} → '
                   f'{esc(where)}</text>')

    def _buffered_receive(self, i: int, m: int, receiver: str, y: float) -> None:
        link = self.view.links.get((i, m))
        if link is not None and not link.wrapped and link.peer in self.rows:
            return  # drawn by the send
        where = "sent before this page" if link is None else (
            f"sent at step {link.peer + 1}" + (" (previous round)" if link.wrapped else ""))
        if link is None:
            where = "sender not in this run"
        x = self.x(receiver)
        self.parts.append(f'<text class="msg-label" x="{x + 6:.1f}" y="{y - 4}">'
                          f'← {esc(where)}</text>')


def sequence_chart(view: RunView, anchor: str, link: SourceLink,
                   page_size: int = PAGE_SIZE) -> str:
    """Return the chart of ``view`` as HTML: a pager (when there is more than one page),
    the first page shown, and every other page kept as text for the page script."""
    total = len(view.steps)
    pages = max(1, -(-total // page_size))
    bounds = [(k * page_size, min(total, (k + 1) * page_size)) for k in range(pages)]
    svgs = [_Page(view, anchor, a, b, link).render() for a, b in bounds]
    loop_page = None if view.loop_start is None or total == 0 else min(
        pages - 1, view.loop_start // page_size)
    # Page 1 is shown; the others are kept as text (a script element of a type no
    # browser runs is neither parsed nor laid out) until the reader turns to them.
    # The markup cannot end the element early: every text in it is escaped.
    templates = "".join(f'<script type="{PAGE_TYPE}" id="{anchor}-page-{k}">{svg}</script>'
                        for k, svg in enumerate(svgs) if k > 0)
    pager = ""
    if pages > 1:
        loop_button = "" if loop_page is None else tag(
            "button", "loop", type="button", data_go="loop",
            title=f"go to the page where the loop starts (step {view.loop_start + 1})")
        pager = tag("div", "".join([
            tag("button", "|◀", type="button", data_go="first", title="first page"),
            tag("button", "◀", type="button", data_go="prev", title="previous page"),
            tag("span", f"steps 1–{bounds[0][1]} of {total} (page 1 of {pages})",
                class_="pager-status"),
            tag("button", "▶", type="button", data_go="next", title="next page"),
            tag("button", "▶|", type="button", data_go="last", title="last page"),
            loop_button,
            '<label>step <input type="number" min="1" '
            f'max="{total}" class="pager-step"></label>',
        ]), class_="pager")
    caption = f"{total} steps" + ("" if view.loop_start is None else
                                  f": prefix of {view.loop_start}, loop of "
                                  f"{view.loop_length}") + (
        f"; {pages} pages of {page_size}" if pages > 1 else "")
    return tag("div", tag("p", esc(caption), class_="caption") + pager
               + tag("div", svgs[0], class_="msc-view") + templates,
               class_="msc", id=f"{anchor}-msc", data_pages=pages, data_page_size=page_size,
               data_total=total, data_loop_page=loop_page)
