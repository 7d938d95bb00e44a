"""Source spans, diagnostics and the BridgeError family; ``render`` formats them.

This module imports nothing of ours (STYLE.md section 1). Parsers and lowering passes
never print: they collect ``Diagnostic``s and raise one ``SourceError`` at the end of a
phase; the CLI and the tests render them with ``render``.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Span:
    """A region of a source file: 1-based lines and columns, columns in characters.

    ``end_line``/``end_col`` are inclusive-exclusive in the usual caret sense: the caret
    run covers columns ``col .. end_col - 1`` on ``line`` (at least one caret).
    """

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @property
    def location(self) -> str:
        """Return ``file:line:col``."""
        return str(self)


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One message about the input, with where it is and optional notes/hint."""

    severity: Severity
    span: Span | None
    message: str
    notes: tuple[str, ...] = ()


class BridgeError(Exception):
    """Root of every error bridge raises on purpose."""


class SourceError(BridgeError):
    """Bad input: carries one or more diagnostics (the first is the headline)."""

    def __init__(self, diagnostics: Sequence[Diagnostic] | Diagnostic) -> None:
        if isinstance(diagnostics, Diagnostic):
            diagnostics = (diagnostics,)
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        first = self.diagnostics[0] if self.diagnostics else None
        text = first.message if first else "source error"
        if first is not None and first.span is not None:
            text = f"{first.span}: {text}"
        super().__init__(text)

    @classmethod
    def at(cls, span: Span | None, message: str, *notes: str) -> SourceError:
        """Return an error of this class with one diagnostic."""
        return cls(Diagnostic(Severity.ERROR, span, message, tuple(notes)))


class ParseError(SourceError):
    """The text does not follow the grammar."""


class SemanticError(SourceError):
    """The text parses but means nothing valid (undeclared name, arity, type, range)."""


class UnsupportedError(SemanticError):
    """A construct that bridge recognises but does not (yet) support."""


class ConfigurationError(BridgeError, ValueError):
    """An option value that is not allowed; the message names the allowed ones."""


class ModelRuntimeError(BridgeError):
    """A model error met while executing the model (index out of range, div by zero,
    range violation, failed assert).

    The explorer turns it into a ``Verdict`` with a ``Trace``; it never escapes to the
    user as an exception (STYLE.md section 2).
    """

    def __init__(self, message: str, span: Span | None = None, kind: str = "error") -> None:
        self.span = span
        self.kind = kind
        super().__init__(message)


@dataclass
class BackendError(BridgeError):
    """An external tool (spin, cc, pan) failed or timed out."""

    command: Sequence[str]
    returncode: int | None
    stderr_tail: str = ""
    timed_out: bool = False
    message: str = field(default="")

    def __post_init__(self) -> None:
        what = "timed out" if self.timed_out else f"exited with status {self.returncode}"
        head = self.message or f"{' '.join(self.command[:3])} {what}"
        Exception.__init__(self, head)

    def __str__(self) -> str:  # dataclass would otherwise print the fields
        return self.args[0] if self.args else "backend error"


class ResourceLimitReached(BridgeError):
    """A state, time or memory limit stopped a run before a verdict (exit code 3)."""

    def __init__(self, message: str, statistics: object | None = None) -> None:
        self.statistics = statistics
        super().__init__(message)


# The time limit of the work under way (``time_limit``), for passes that have no search
# options to carry one: loading and unfolding a model. A ``time.perf_counter()`` value.
_DEADLINE: ContextVar[float | None] = ContextVar("bridge_deadline", default=None)


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Run the block under a time limit of ``seconds`` (None: none, or the enclosing
    one): long passes call ``check_time_limit``, which raises ``ResourceLimitReached``
    past it."""
    if seconds is None:
        yield
        return
    deadline = time.perf_counter() + seconds
    outer = _DEADLINE.get()
    token = _DEADLINE.set(deadline if outer is None else min(outer, deadline))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def past_time_limit() -> bool:
    """Return True when the time limit of ``time_limit`` has passed."""
    deadline = _DEADLINE.get()
    return deadline is not None and time.perf_counter() > deadline


def check_time_limit(what: str) -> None:
    """Raise ``ResourceLimitReached`` ("time limit reached <what>") when the time limit
    of ``time_limit`` has passed."""
    if past_time_limit():
        raise ResourceLimitReached(f"time limit reached {what}")


# ---------------------------------------------------------------------------------
# Rendering


def _source_line(span: Span, sources: dict[str, str] | None) -> str | None:
    text: str | None = None
    if sources is not None and span.file in sources:
        text = sources[span.file]
    else:
        try:
            text = Path(span.file).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    lines = text.splitlines()
    if 1 <= span.line <= len(lines):
        return lines[span.line - 1].expandtabs(1)
    return None


def render(diagnostic: Diagnostic, sources: dict[str, str] | None = None) -> str:
    """Return the diagnostic as text: ``file:line:col: error: msg``, source line, caret.

    ``sources`` maps file names to their text for inputs that are not files on disk
    (tests, stdin); otherwise the file is read from disk.
    """
    head = f"{diagnostic.severity.value}: {diagnostic.message}"
    lines: list[str] = []
    span = diagnostic.span
    if span is None:
        lines.append(head)
    else:
        lines.append(f"{span}: {head}")
        source = _source_line(span, sources)
        if source is not None:
            number = str(span.line)
            gutter = " " * len(number)
            width = 1
            if span.end_line in (0, span.line) and span.end_col > span.col:
                width = span.end_col - span.col
            width = max(1, min(width, max(1, len(source) - span.col + 1)))
            lines.append(f" {number} | {source}")
            lines.append(f" {gutter} | {' ' * (span.col - 1)}{'^' * width}")
    for note in diagnostic.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines)


def render_all(diagnostics: Iterable[Diagnostic], sources: dict[str, str] | None = None) -> str:
    """Return every diagnostic rendered, separated by blank lines."""
    return "\n\n".join(render(d, sources) for d in diagnostics)
