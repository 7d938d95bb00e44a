"""report/run.py: a JSON result becomes the run the report draws; the two halves of a
buffered message are paired (FIFO per channel, by value, across the loop's rounds)."""

from __future__ import annotations

from bridge.report.run import MessageLink, match_messages, run_view, step_line
from tests.unit.report.synthetic import long_lasso, step


def _send(n: int, channel: str, value: int) -> dict:
    return step(n, "S", messages=[{"channel": channel, "sender": "S", "receiver": None,
                                   "values": [value]}])


def _receive(n: int, channel: str, value: int | None) -> dict:
    return step(n, "R", messages=[{"channel": channel, "sender": None, "receiver": "R",
                                   "values": None if value is None else [value]}])


def test_fifo_pairs_per_channel_and_by_value() -> None:
    steps = [_send(1, "c", 1), _send(2, "c", 2), _send(3, "d", 9), _receive(4, "c", 2),
             _receive(5, "d", None), _receive(6, "c", 1)]
    links = match_messages(steps, None)
    # a receive of value 2 takes the send of 2 (a random receive ?? pairs right)
    assert links[(3, 0)] == MessageLink(1) and links[(1, 0)] == MessageLink(3)
    assert links[(4, 0)] == MessageLink(2)  # unknown values: the oldest on its channel
    assert links[(5, 0)] == MessageLink(0)


def test_a_message_that_goes_round_the_loop_is_wrapped() -> None:
    # loop = [receive, send]: each round receives what the previous round sent
    steps = [_receive(1, "c", 7), _send(2, "c", 7)]
    links = match_messages(steps, 0)
    assert links[(0, 0)] == MessageLink(1, wrapped=True)
    assert links[(1, 0)] == MessageLink(0, wrapped=True)
    assert match_messages(steps, None) == {}  # a finite trace: never received


def test_run_view_of_a_lasso() -> None:
    result = long_lasso(4, 6, processes=3)
    view = run_view(result, result["outline"])
    assert view is not None and len(view.steps) == 10 and view.loop_start == 4
    assert view.loop_length == 6 and view.in_loop(4) and not view.in_loop(3)
    assert view.columns == ["P(0)", "P(1)", "P(2)"]
    assert run_view({"trace": None, "lasso": None}) is None


def test_step_line_reads_old_json() -> None:
    assert step_line({"location": "dir/m.pml:12:5"}) == ("dir/m.pml", 12)
    assert step_line({"line": 3, "file": "m.csp"}) == ("m.csp", 3)
    assert step_line({"location": None}) == (None, None)
