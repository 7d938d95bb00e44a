"""What the commands share: common arguments, the progress line, result tables.

Output goes through rich (tables; no colour when stdout is not a terminal, so pasted
and captured output is plain text). Errors are not handled here: ``bridge/cli.py``
turns every ``BridgeError`` into its exit code.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any, TextIO

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from bridge import api
from bridge.diagnostics import ConfigurationError, SourceError, render_all
from bridge.ir.model import ModelFile
from bridge.ir.verdict import Lasso, Outcome, Statistics, Trace, TraceStep, Verdict

# ---------------------------------------------------------------------------------
# Arguments


def _int_at_least(text: str, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"expected a number >= {minimum}, not {value}")
    return value


def positive_int(text: str) -> int:
    """Return ``text`` as an int >= 1 (argparse type)."""
    return _int_at_least(text, 1)


def non_negative_int(text: str) -> int:
    """Return ``text`` as an int >= 0 (argparse type)."""
    return _int_at_least(text, 0)


def positive_float(text: str) -> float:
    """Return ``text`` as a number of seconds > 0 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, not {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, not {text}")
    return value


def fairness_type(text: str) -> Any:
    """Return the fairness named ``text`` (argparse type; lists the names if unknown)."""
    try:
        return api.parse_fairness(text)
    except ConfigurationError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def annotation_type(text: str) -> Any:
    """Return ``(mark, event)`` for ``sf:EVENT`` (argparse type)."""
    try:
        return api.parse_annotation(text)
    except ConfigurationError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_model_arguments(parser: argparse.ArgumentParser, several: bool = False) -> None:
    """Add MODEL (``models``: one or more when ``several``) and ``-D NAME[=VALUE]``."""
    if several:
        parser.add_argument("models", metavar="MODEL", nargs="+",
                            help="model file(s): .pml/.prm/.promela (Promela) or .csp (CSP#)")
    else:
        parser.add_argument("model", metavar="MODEL",
                            help="model file: .pml/.prm/.promela (Promela) or .csp (CSP#)")
    parser.add_argument("-D", dest="defines", action="append", default=[],
                        metavar="NAME[=VALUE]",
                        help="define a Promela preprocessor macro (repeatable)")


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--max-states`` and ``--timeout`` (each per assertion / system)."""
    parser.add_argument("--max-states", type=positive_int, default=None, metavar="N",
                        help="stop after N states (exit code 3 if no verdict yet)")
    parser.add_argument("--timeout", type=positive_float, default=None, metavar="S",
                        help="stop after S seconds (exit code 3 if no verdict yet)")
    parser.add_argument("--max-memory", type=positive_int, default=None, metavar="MB",
                        help="stop when the state store (C engine) or the process (Python "
                             "engine) needs more than MB megabytes (exit code 3)")


def add_engine_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--engine auto|c|python``."""
    parser.add_argument("--engine", choices=api.ENGINES, default="auto",
                        help="auto (default): the compiled C engine when a C compiler is "
                             "present and it supports the model and property, else the "
                             "Python engine, with a note saying why; c: the C engine or an "
                             "error; python: the reference engine")


def max_memory_bytes(args: argparse.Namespace) -> int | None:
    """Return ``--max-memory`` in bytes (None when not given)."""
    mb = getattr(args, "max_memory", None)
    return None if mb is None else mb * 1024 * 1024


def parse_defines(items: Sequence[str]) -> dict[str, str]:
    """Return ``{"N": "3", "DEBUG": "1"}`` for ``["N=3", "DEBUG"]`` (cpp's -D)."""
    defines: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not name.isidentifier():
            raise ConfigurationError(f"-D {item!r}: expected NAME or NAME=VALUE with NAME "
                                     "an identifier")
        defines[name] = value if sep else "1"
    return defines


def add_html_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """Add ``--html FILE`` (write the self-contained HTML report of ``what``)."""
    parser.add_argument("--html", metavar="FILE", default=None,
                        help=f"also write {what} as one self-contained HTML page "
                             "(Graphviz draws the graphs, matplotlib the plots)")


def write_report(path: str, title: str, **results: Any) -> None:
    """Write the HTML report of ``results`` (``api.render_report`` keywords) to
    ``path``; say on stderr where it went and what it could not draw."""
    page, problems = api.render_report(title, **results)
    api.write_text(path, page)
    for problem in problems:
        print(f"bridge: note: {problem}", file=sys.stderr)
    print(f"bridge: report written to {path}", file=sys.stderr)


def load(args: argparse.Namespace) -> ModelFile:
    """Return the model named on the command line, with its -D macros."""
    return load_path(args.model, args.defines, getattr(args, "timeout", None))


def load_path(path: str, defines: Sequence[str], timeout: float | None = None) -> ModelFile:
    """Return the model in ``path`` with the ``-D`` items ``defines``; ``timeout`` (the
    command's ``--timeout``) bounds the lazy unfolding of its processes."""
    return api.load_model(path, parse_defines(defines) or None, timeout)


def describe_error(error: BaseException) -> str:
    """Return the text the CLI prints for an error bridge raised on purpose:
    rendered diagnostics (``file:line:col: error: ...``, source line, caret) for a
    ``SourceError``, else ``bridge: error: message``."""
    if isinstance(error, SourceError):
        return render_all(error.diagnostics)
    return f"bridge: error: {error}"


# ---------------------------------------------------------------------------------
# Progress line


class ProgressLine:
    """A progress line on stderr for long runs (DESIGN.md section 8).

    Silent for the first ``delay`` seconds on a terminal (``interval_plain`` seconds
    otherwise), so quick runs print nothing. On a terminal it redraws one line in place;
    otherwise it writes a line every ``interval_plain`` seconds, so logs stay short.
    States/transitions appear when the engine reports them through ``update``
    (``CheckOptions.progress``); else the elapsed time only.
    """

    def __init__(self, label: str = "working", stream: TextIO | None = None,
                 delay: float = 2.0, interval_plain: float = 30.0) -> None:
        self.stream = stream or sys.stderr
        self.label = label
        self.tty = self.stream.isatty()
        self.delay = delay if self.tty else interval_plain
        self.interval = 0.5 if self.tty else interval_plain
        self.enabled = os.environ.get("BRIDGE_PROGRESS", "1") != "0"
        self.states = 0
        self.transitions = 0
        self._start = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._drawn = False

    def update(self, states: int, transitions: int, seconds: float | None = None) -> None:
        """Record the engine's latest counts (called from the engine; ``seconds``, the
        engine's own clock, is not needed: the line times itself)."""
        self.states, self.transitions = states, transitions

    def restart(self, label: str) -> None:
        """Start timing a new item (the next assertion)."""
        self.label = label
        self.states = self.transitions = 0
        self._start = time.monotonic()

    def _line(self) -> str:
        elapsed = time.monotonic() - self._start
        parts = [f"{self.label}: {elapsed:.0f} s"]
        if self.states:
            rate = self.states / elapsed if elapsed > 0 else 0.0
            parts.append(f"{self.states} states, {self.transitions} transitions, "
                         f"{rate:.0f} states/s")
        return ", ".join(parts)

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        while not self._stop.is_set():
            if self.tty:
                self.stream.write("\r\x1b[K" + self._line())
                self._drawn = True
            else:
                self.stream.write(self._line() + "\n")
            self.stream.flush()
            if self._stop.wait(self.interval):
                break

    def __enter__(self) -> ProgressLine:
        if self.enabled:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


# ---------------------------------------------------------------------------------
# Output


def console() -> Console:
    """Return a console on stdout: plain text, 120 columns, when not a terminal."""
    if sys.stdout.isatty():
        return Console(highlight=False)
    return Console(file=sys.stdout, highlight=False, width=120, color_system=None,
                   force_terminal=False, soft_wrap=True)


_OUTCOME_STYLE = {Outcome.HOLDS: "bold green", Outcome.VIOLATED: "bold red",
                  Outcome.UNKNOWN: "bold yellow"}


def outcome_text(outcome: Outcome) -> Text:
    """Return HOLDS / VIOLATED / UNKNOWN, styled."""
    return Text(outcome.value.upper(), style=_OUTCOME_STYLE[outcome])


def format_seconds(seconds: float) -> str:
    """Return seconds with a precision that suits their size."""
    return f"{seconds:.3f}" if seconds < 10 else f"{seconds:.1f}"


def statistics_text(statistics: Statistics) -> str:
    """Return ``states 12, transitions 30, 0.004 s (3000 states/s)``."""
    text = (f"states {statistics.states}, transitions {statistics.transitions}, "
            f"{format_seconds(statistics.seconds)} s")
    if statistics.seconds >= 0.001 and statistics.states:
        text += f" ({statistics.states / statistics.seconds:.0f} states/s)"
    return text


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return str(value)


def valuation_text(initial: Sequence[tuple[str, Any]]) -> str:
    """Return ``x=0, flag=[0, 0], P(0)@L3``: a name ending in ``@`` is an instance's
    control location (the explorer's convention), shown with the location id that
    ``bridge show`` prints."""
    return ", ".join(f"{name}L{value}" if name.endswith("@") else f"{name}={_value(value)}"
                     for name, value in initial) or "(no variables)"


def step_table(steps: Sequence[TraceStep], loop: Sequence[TraceStep] = (),
               title: str | None = None) -> Table:
    """Return the steps (then the loop of a lasso) as a table: #, event, process,
    statement, source line, changed variables."""
    table = Table(box=box.SIMPLE_HEAD, title=title, title_justify="left", pad_edge=False,
                  show_edge=False)
    for name in ("#", "event", "process", "statement", "line", "changes"):
        table.add_column(name, overflow="fold")
    number = 0

    def add(step: TraceStep) -> None:
        nonlocal number
        number += 1
        event = "(stutter)" if step.stutter else (step.event or "τ")
        changes = ", ".join(f"{name}: {_value(old)}→{_value(new)}"
                            for name, old, new in step.changes)
        line = "" if step.span is None else str(step.span.line)
        table.add_row(str(number), Text(event), Text(", ".join(step.processes)),
                      Text(step.text), line, Text(changes))

    for step in steps:
        add(step)
    if loop:
        table.add_row("", Text("── loop starts here (repeats forever) ──", style="italic"),
                      "", "", "", "")
        for step in loop:
            add(step)
    return table


def print_trace(out: Console, trace: Trace, title: str | None = None) -> None:
    """Print a finite run: the initial valuation, then the step table."""
    out.print(Text(f"  initial state: {valuation_text(trace.initial)}"))
    if trace.steps:
        out.print(step_table(trace.steps, title=title))
    else:
        out.print("  (no steps)")


def print_lasso(out: Console, lasso: Lasso) -> None:
    """Print an infinite run: initial valuation, prefix and loop, and why it is fair."""
    out.print(Text(f"  initial state: {valuation_text(lasso.prefix.initial)}"))
    out.print(step_table(lasso.prefix.steps, lasso.loop))
    witness = lasso.witness
    if witness is not None:
        out.print(Text(f"  the loop is fair under {witness.fairness}"
                       + (f": {witness.explanation}" if witness.explanation else "")))
        for label, names in (("engaged in the loop", witness.engaged),
                             ("enabled everywhere in the loop", witness.enabled_everywhere),
                             ("enabled somewhere in the loop", witness.enabled_somewhere)):
            if names:
                out.print(Text(f"    {label}: {', '.join(names)}"))


def print_verdict(out: Console, number: int, verdict: Verdict, label: str | None = None
                  ) -> None:
    """Print one assertion's result: headline (``label``, default the verdict's property),
    statistics, notes, counterexample."""
    head = Text(f"[{number}] {label or verdict.property}  ")
    head.append(outcome_text(verdict.outcome))
    if verdict.reason:
        head.append(f" ({verdict.reason})")
    out.print(head)
    out.print(Text(f"  fairness: {verdict.fairness}; {statistics_text(verdict.statistics)}"))
    if verdict.value is not None:
        out.print(Text(f"  value: {_value(verdict.value)}"))
    for note in verdict.notes:
        out.print(Text(f"  note: {note}"))
    if verdict.lasso is not None:
        out.print("  counterexample (infinite run):" if verdict.outcome is Outcome.VIOLATED
                  else "  witness (infinite run):")
        print_lasso(out, verdict.lasso)
    elif verdict.trace is not None:
        out.print("  counterexample:" if verdict.outcome is Outcome.VIOLATED
                  else "  witness:")
        print_trace(out, verdict.trace)


def summary_table(rows: Sequence[tuple[str, int, str, Verdict]], show_model: bool = False
                  ) -> Table:
    """Return one row per assertion: (model,) #, assertion, fairness, verdict, counts,
    time."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    columns = [("#", "right"), ("assertion", "left"), ("fairness", "left"),
               ("verdict", "left"), ("states", "right"), ("transitions", "right"),
               ("seconds", "right")]
    if show_model:
        columns.insert(0, ("model", "left"))
    for name, justify in columns:
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for model, number, label, verdict in rows:
        s = verdict.statistics
        cells = [str(number), Text(label), verdict.fairness,
                 outcome_text(verdict.outcome), str(s.states), str(s.transitions),
                 format_seconds(s.seconds)]
        if show_model:
            cells.insert(0, Text(model))
        table.add_row(*cells)
    return table
