"""Return Promela text after C preprocessing, with a map back to original file lines.

SPIN runs ``gcc -E`` on every model before it lexes it (promela-spin.md section 2):
``#define`` (with arguments), ``#include "f"`` (relative to the including file),
``#if/#ifdef/#ifndef/#else/#elif/#endif``, ``#undef`` and ``-D NAME[=VALUE]``. We use
the maintained pure-Python preprocessor ``pcpp`` instead of a hand-written one.

pcpp keeps the line structure of its input (a macro call spread over several lines is
joined and followed by blank lines, exactly like gcc) and writes ``#line N "file"``
markers where lines jump (includes, removed blocks). ``preprocess`` strips the markers,
replacing each by an empty line, and records for every output line the original
``(file, line)``; columns are those of the output text, which equal the source columns
on every line without macro expansions. Line breaks matter after preprocessing because
SPIN 6 lets a newline end a statement (see ``parse.py``).
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import pcpp
import pcpp.preprocessor

from bridge.diagnostics import Diagnostic, ParseError, Severity, Span

_LINE_MARKER = re.compile(r'^\s*#\s*(?:line\s+)?(\d+)(?:\s+"((?:[^"\\]|\\.)*)")?.*$')


@dataclass
class Preprocessed:
    """Preprocessed text plus where each of its lines came from.

    ``origin[k]`` is the ``(file, line)`` of output line ``k + 1``. ``sources`` maps each
    file read to its text (for rendering diagnostics). ``defines`` are the object-like
    macros defined at the end of the file (name -> replacement text), used to resolve
    ``#define`` names in ``ltl`` formulas and as named propositions.
    """

    text: str
    origin: list[tuple[str, int]]
    sources: dict[str, str] = field(default_factory=dict)
    defines: dict[str, str] = field(default_factory=dict)

    def span(self, line: int, col: int, end_line: int = 0, end_col: int = 0,
             hint: str | None = None) -> Span:
        """Return the original-source span of an output position (1-based).

        On a line changed by macro expansion the output column is not the source
        column; with ``hint`` (the text at the position) the column of the hint's
        first occurrence in the original line is used when the hint occurs there.
        """
        if 1 <= line <= len(self.origin):
            f, ln = self.origin[line - 1]
        elif self.origin:
            f, ln = self.origin[-1]
        else:
            f, ln = "<input>", line
        if end_line and end_line != line:
            end_col = 0
        if hint:
            original = self._original_line(f, ln)
            produced = self._lines[line - 1] if 1 <= line <= len(self.origin) else None
            if original is not None and produced is not None and original != produced:
                found = original.find(hint)
                if found >= 0:
                    width = (end_col - col) if end_col > col else len(hint)
                    col = found + 1
                    end_col = col + width if end_col else 0
        return Span(f, ln, col, ln, end_col)

    def _original_line(self, file: str, line: int) -> str | None:
        lines = self._source_lines.get(file)
        if lines is None:
            text = self.sources.get(file)
            if text is None:
                return None
            lines = self._source_lines[file] = text.split("\n")
        return lines[line - 1] if 1 <= line <= len(lines) else None

    @cached_property
    def _lines(self) -> list[str]:
        return self.text.split("\n")

    @cached_property
    def _source_lines(self) -> dict[str, list[str]]:
        return {}


def read_source(path: str) -> str:
    """Return the text of a model file as SPIN's cpp sees it: UTF-8 or, failing that,
    Latin-1 (cpp reads bytes; such bytes can only be in comments and strings), without
    a leading byte-order mark (gcc skips it)."""
    with open(path, "rb") as handle:
        data = handle.read().removeprefix(b"\xef\xbb\xbf")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _no_trigraphs(text: str) -> str:
    return text


def blank_comments(text: str) -> str:
    """Return ``text`` with every comment turned into blanks of the same shape.

    gcc -E (SPIN's preprocessor) keeps every token on its source line and column, so
    a comment that spans lines leaves its line breaks behind, and those end statements
    in SPIN (``x = 1 /* ...\n... */ x = 2`` is two statements). pcpp would join the
    lines instead, so comments are blanked here, before pcpp runs. A comment inside a
    directive is one blank (the directive goes on past it, as in C) and its line
    breaks follow the directive's end. Strings and character constants are skipped.
    """
    out: list[str] = []
    i, n = 0, len(text)
    line_start, directive, owed = True, False, 0
    while i < n:
        c = text[i]
        if c == "\n":
            if directive and not (out and out[-1].endswith("\\")):
                directive = False
                out.append("\n" * (owed + 1))
                owed = 0
            else:
                out.append(c)
            line_start = True
            i += 1
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n) if j < n and text[j] == c else j
            out.append(text[i:j])
            line_start, i = False, j
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                out.append(text[i:])  # unterminated: pcpp reports it
                break
            comment = text[i:end + 2]
            if directive:
                out.append(" ")
                owed += comment.count("\n")
            else:
                out.append(re.sub(r"[^\n]", " ", comment))
            i = end + 2
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
            continue
        if line_start and c == "#":
            directive = True
        if not c.isspace():
            line_start = False
        out.append(c)
        i += 1
    if owed:
        out.append("\n" * owed)
    return "".join(out)


def _display_name(reported: str, path: str, base: str) -> str:
    """Return ``path`` itself for the main file, else the include's path as reported."""
    candidates = (reported, os.path.join(base, reported), os.path.join(os.getcwd(), reported))
    main = os.path.abspath(path) if path else ""
    for candidate in candidates:
        if os.path.abspath(candidate) == main:
            return path
    for candidate in candidates:
        if os.path.exists(candidate):
            return os.path.relpath(candidate) if not os.path.isabs(path) else os.path.abspath(candidate)
    return reported


class _Preprocessor(pcpp.Preprocessor):
    """pcpp with errors collected as diagnostics instead of printed."""

    def __init__(self) -> None:
        super().__init__()
        self.diagnostics: list[Diagnostic] = []
        self.opened: dict[str, str] = {}
        self.line_directive = "#line"
        self.compress = 0

    def on_error(self, file: str, line: int, msg: str) -> None:  # noqa: D401
        self.diagnostics.append(
            Diagnostic(Severity.ERROR, Span(str(file), int(line or 1), 1), f"preprocessor: {msg}")
        )
        self.return_code += 1

    def on_file_open(self, is_system_include: bool, includepath: str):  # type: ignore[no-untyped-def]
        # pcpp probes candidate paths with this: a missing one must raise OSError
        text = read_source(includepath)  # as cpp reads it, bytes (pcpp's open is UTF-8)
        self.opened[includepath] = text
        self.opened[os.path.relpath(includepath)] = text
        self.opened[os.path.abspath(includepath)] = text
        return io.StringIO(blank_comments(text))

    def on_directive_unknown(self, directive, toks, ifpassthru, precedingtoks):  # type: ignore[no-untyped-def]
        name = directive.value
        if name in ("pragma", "ident"):
            return True  # swallowed
        if name == "error":
            text = "".join(t.value for t in toks).strip()
            self.on_error(directive.source, directive.lineno, f"#error {text}")
            return True
        self.on_error(directive.source, directive.lineno, f"unknown directive #{name}")
        return True

    def on_comment(self, tok) -> bool:  # type: ignore[no-untyped-def]
        return False  # drop comments (gcc -E does)


def preprocess(
    path: str, text: str | None = None, defines: Mapping[str, str] | None = None
) -> Preprocessed:
    """Return the preprocessed model ``path`` (or ``text`` given for it).

    ``defines`` are ``-D`` options: ``{"N": "3", "DEBUG": ""}`` (an empty value means
    ``1``, as with ``gcc -DNAME``). Raises ``ParseError`` for preprocessor errors (bad
    directive, missing include) with the directive's file and line.
    """
    if text is None:
        text = read_source(path)
    # a byte-order mark (read as UTF-8, or as Latin-1 by a caller), as gcc -E skips it
    text = text.removeprefix("\ufeff").removeprefix("\xef\xbb\xbf")
    pp = _Preprocessor()
    base = os.path.dirname(os.path.abspath(path)) if path else os.getcwd()
    pp.add_path(base)
    for name, value in (defines or {}).items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ParseError.at(None, f"invalid macro name in -D option: {name!r}")
        pp.define(f"{name} {value if value not in (None, '') else '1'}")
    # gcc -E (as SPIN runs it, -std=gnu99) ignores trigraphs; pcpp would turn the
    # random-poll ``q??<v>`` into ``q?{v>``. Switch pcpp's trigraph pass off meanwhile.
    saved = pcpp.preprocessor.trigraph
    pcpp.preprocessor.trigraph = _no_trigraphs
    try:
        pp.parse(blank_comments(text), path)
        out = io.StringIO()
        pp.write(out)
    finally:
        pcpp.preprocessor.trigraph = saved
    if pp.diagnostics:
        raise ParseError(pp.diagnostics)
    sources = {path: text}
    sources.update(pp.opened)
    lines: list[str] = []
    origin: list[tuple[str, int]] = []
    current_file, current_line = path, 1
    for raw in out.getvalue().split("\n"):
        marker = _LINE_MARKER.match(raw) if raw.lstrip().startswith("#") else None
        if marker is not None:
            current_line = int(marker.group(1))
            if marker.group(2) is not None:
                current_file = _display_name(marker.group(2), path, base)
            lines.append("")
            origin.append((current_file, max(current_line - 1, 1)))
            continue
        lines.append(raw)
        origin.append((current_file, current_line))
        current_line += 1
    macros: dict[str, str] = {}
    for name, macro in pp.macros.items():
        if getattr(macro, "arglist", None) is None and name not in ("__FILE__", "__LINE__"):
            macros[name] = "".join(t.value for t in macro.value).strip()
    return Preprocessed("\n".join(lines), origin, sources, macros)
