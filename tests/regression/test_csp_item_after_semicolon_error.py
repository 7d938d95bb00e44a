"""Regression: text after an item's ';' that starts no item was reported at the ';'
as "unexpected ';'; expected ';'" (issue 15 item 3; a public model writes
``process MoveUp = {...}``, which is not CSP#: PAT rejects it, since ``process`` is no
keyword and a definition is ``Name(params) = process;``).

The error now points at what follows the ';' and names the items a file may hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.diagnostics import ParseError
from bridge.frontends.csp import load_csp

ITEMS = "a top-level item is a process definition"


def test_two_names_before_equals_are_named_at_their_line() -> None:
    text = '#define N 1;\n\nprocess MoveUp = {\n  N > 0\n};\n'
    with pytest.raises(ParseError) as info:
        load_csp("m.csp", text)
    message = str(info.value)
    assert "m.csp:3:1:" in message and "'process MoveUp' is no definition" in message
    assert ITEMS in message and "unexpected ';'" not in message


def test_junk_after_a_declaration_is_named(tmp_path: Path) -> None:
    path = tmp_path / "m.csp"
    path.write_text("var x;\n+ 3;\n")
    with pytest.raises(ParseError, match=r"m\.csp:2:1: .*unexpected '\+': " + ITEMS):
        load_csp(str(path))


def test_an_include_before_it_is_not_blamed(tmp_path: Path) -> None:
    """The error is in the including file, after its ``#include`` line."""
    (tmp_path / "w.csp").write_text("#define N 1;\n")
    main = tmp_path / "main.csp"
    main.write_text('#include "w.csp";\nprocess MoveUp = {\n  N > 0\n};\n')
    with pytest.raises(ParseError, match=r"main\.csp:2:1: 'process MoveUp' is no definition"):
        load_csp(str(main))
