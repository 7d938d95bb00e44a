"""The progress line: silent for quick runs, one line per interval in logs, redrawn in
place on a terminal, with the engine's counts when it reports them."""

from __future__ import annotations

import io
import time

from bridge.commands._common import ProgressLine


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_quick_runs_print_nothing() -> None:
    stream = io.StringIO()
    with ProgressLine("check", stream=stream, delay=5, interval_plain=5):
        time.sleep(0.05)
    assert stream.getvalue() == ""


def test_plain_stream_gets_whole_lines_with_counts() -> None:
    stream = io.StringIO()
    with ProgressLine("check", stream=stream, interval_plain=0.05) as progress:
        progress.update(1200, 3400, 0.1)
        time.sleep(0.3)
    lines = stream.getvalue().splitlines()
    assert lines and all(line.startswith("check: ") for line in lines)
    assert "1200 states, 3400 transitions" in lines[-1]
    assert "\r" not in stream.getvalue()


def test_terminal_line_is_redrawn_and_cleared() -> None:
    stream = _Terminal()
    with ProgressLine("explore", stream=stream, delay=0.01) as progress:
        progress.restart("assertion 2/3")
        time.sleep(0.2)
    text = stream.getvalue()
    assert text.startswith("\r\x1b[K") and "assertion 2/3: " in text
    assert text.endswith("\r\x1b[K")


def test_can_be_turned_off(monkeypatch) -> None:
    monkeypatch.setenv("BRIDGE_PROGRESS", "0")
    stream = _Terminal()
    with ProgressLine("x", stream=stream, delay=0):
        time.sleep(0.1)
    assert stream.getvalue() == ""
