"""report/msc.py: the message sequence chart: one column per instance, one row per
step, arrows for messages, a bar for barriers, the loop marked, long runs paginated."""

from __future__ import annotations

import re

from bridge.report.msc import sequence_chart
from bridge.report.run import run_view
from tests.unit.report.synthetic import long_lasso, step


def _link(file: str | None, line: int | None) -> str | None:
    return None if line is None else f"#src-0-{line}"


def test_a_lasso_of_ten_thousand_steps_is_paginated() -> None:
    result = long_lasso(4000, 6000)
    view = run_view(result, result["outline"])
    html = sequence_chart(view, "a1", _link)
    assert html.count('<script type="text/x-bridge-page"') == 49
    assert 'data-pages="50"' in html
    view_part = html[html.index('class="msc-view"'):html.index("<script")]
    # the page shown at first holds 200 steps, the rest wait as text
    assert view_part.count('class="step') == 200
    assert 'id="a1-step-1"' in view_part and 'id="a1-step-201"' not in view_part
    assert html.count('class="step') == 10_000
    # the loop starts on page 21 (step 4001), which marks it; the last page closes it
    assert 'data-loop-page="20"' in html
    page21 = html[html.index('id="a1-page-20"'):html.index('id="a1-page-21"')]
    assert "loop starts here" in page21 and 'class="loop-band"' in page21
    last = html[html.index('id="a1-page-49"'):]
    assert "back to step 4001" in last


def test_rows_link_to_source_lines_and_draw_interactions() -> None:
    steps = [
        step(1, "S", processes=["S", "R"], event="c.1",
             messages=[{"channel": "c", "sender": "S", "receiver": "R", "values": [1]}]),
        step(2, "L", processes=["L", "R2"], event="go", barrier=["L", "R2"]),
        step(3, "S", messages=[{"channel": "b", "sender": "S", "receiver": None,
                                "values": [2]}]),
        step(4, "R", messages=[{"channel": "b", "sender": None, "receiver": "R",
                                "values": [2]}]),
    ]
    result = {"trace": {"initial": {"S@": 0, "R@": 0, "L@": 0, "R2@": 0}, "steps": steps}}
    view = run_view(result)
    html = sequence_chart(view, "a2", _link)
    assert view.columns == ["S", "R", "L", "R2"]
    assert re.search(r'class="lifeline"', html) and html.count('class="msc-proc"') == 4
    assert 'class="msg rendezvous"' in html and "c!1" in html
    assert 'class="barrier"' in html and html.count('class="barrier-dot"') == 2
    assert 'class="msg buffered"' in html  # send (row 3) to receive (row 4)
    assert html.count('href="#src-0-') == 4
    assert "loop" not in html.lower().replace("loop-page", "")  # a finite trace
    assert "<script" not in html and "pager" not in html  # one page, no pager


def test_a_buffered_message_across_pages_names_the_other_step() -> None:
    steps = [step(1, "S", messages=[{"channel": "b", "sender": "S", "receiver": None,
                                     "values": [5]}])]
    steps += [step(n, "S") for n in range(2, 6)]
    steps.append(step(6, "R", messages=[{"channel": "b", "sender": None, "receiver": "R",
                                         "values": [5]}]))
    html = sequence_chart(run_view({"trace": {"initial": {}, "steps": steps}}), "a3",
                          _link, page_size=3)
    assert "received at step 6" in html and "sent at step 1" in html
