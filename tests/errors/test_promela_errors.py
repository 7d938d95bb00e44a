"""Bad Promela inputs: each is rejected with the right error class, ``file:line:col``,
a message naming the construct, and a rendered source line with a caret.

The table is ``bridge.frontends.promela.catalogue.CATALOGUE`` (the same rows feed the
parser's hints); each row's snippet is also a fixture file named for its defect in
``tests/errors/promela/`` (a test keeps the two in sync).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import diagnostics
from bridge.diagnostics import ParseError, SemanticError, SourceError, UnsupportedError, render
from bridge.frontends.promela import load_promela
from bridge.frontends.promela.catalogue import CATALOGUE, BadInput

FIXTURES = Path(__file__).resolve().parent / "promela"
CLASSES = {"ParseError": ParseError, "SemanticError": SemanticError,
           "UnsupportedError": UnsupportedError}


def test_catalogue_is_large_enough() -> None:
    assert len(CATALOGUE) >= 25
    assert len({row.name for row in CATALOGUE}) == len(CATALOGUE)


@pytest.mark.parametrize("row", CATALOGUE, ids=lambda r: r.name)
def test_fixture_matches_catalogue(row: BadInput) -> None:
    assert (FIXTURES / f"{row.name}.pml").read_text() == row.source


@pytest.mark.parametrize("row", CATALOGUE, ids=lambda r: r.name)
def test_bad_input_is_reported_precisely(row: BadInput) -> None:
    path = FIXTURES / f"{row.name}.pml"
    with pytest.raises(SourceError) as info:
        load_promela(str(path))
    err = info.value
    assert type(err) is CLASSES[row.error], f"{type(err).__name__}: {err}"
    first = err.diagnostics[0]
    assert first.span is not None, err
    assert Path(first.span.file).name == path.name
    assert (first.span.line, first.span.col) == (row.line, row.col), str(err)
    text = render(first)
    assert row.fragment in text, text
    lines = text.splitlines()
    assert lines[0].startswith(f"{first.span.file}:{row.line}:{row.col}: error: ")
    source_line = row.source.splitlines()[row.line - 1]
    assert lines[1].endswith(source_line.expandtabs(1)), text
    assert lines[2].strip().startswith("|") and "^" in lines[2], text
    caret_col = lines[2].index("^") - lines[2].index("|") - 1
    assert caret_col == row.col, text


def test_text_argument_and_error_render_without_file(tmp_path: Path) -> None:
    """``text`` overrides the file; the diagnostic still renders with the given name."""
    err = None
    try:
        load_promela("virtual.pml", text="active proctype P() {\n  y = 1\n}\n")
    except SemanticError as exc:
        err = exc
    assert err is not None
    rendered = render(err.diagnostics[0], {"virtual.pml": "active proctype P() {\n  y = 1\n}\n"})
    assert rendered.startswith("virtual.pml:2:3: error: undeclared variable 'y'")
    assert "  y = 1" in rendered


def test_errors_are_never_python_tracebacks() -> None:
    """Every catalogue row raises a SourceError subclass, never another exception."""
    for row in CATALOGUE:
        try:
            load_promela(str(FIXTURES / f"{row.name}.pml"))
        except SourceError:
            continue
        pytest.fail(f"{row.name} was accepted")
    assert diagnostics.SourceError is SourceError
