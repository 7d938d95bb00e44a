"""Preprocessing like SPIN's cpp: macros, includes, conditionals, -D, line origins."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.diagnostics import ParseError, SemanticError
from bridge.frontends.promela import load_promela
from bridge.frontends.promela.preprocess import preprocess


def test_macros_with_arguments_and_line_origins(tmp_path: Path) -> None:
    model = tmp_path / "m.pml"
    model.write_text(
        "#define N 3\n"
        "#define ADD(a, b) ((a) + (b))\n"
        "/* a comment\n   over two lines */\n"
        "byte x = ADD(N,\n   1);\n"
        "byte y = N\n"
    )
    pre = preprocess(str(model))
    lines = pre.text.split("\n")
    k = next(i for i, line in enumerate(lines) if "byte x" in line)
    assert "((3) + (1))" in lines[k]
    assert pre.origin[k] == (str(model), 5)
    k = next(i for i, line in enumerate(lines) if "byte y" in line)
    assert pre.origin[k] == (str(model), 7)
    assert pre.defines["N"] == "3"


def test_include_is_relative_to_the_including_file(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "defs.h").write_text("#define LIMIT 4\nbyte shared;\n")
    (sub / "m.pml").write_text('#include "defs.h"\nactive proctype P() { shared = LIMIT }\n')
    system = load_promela(str(sub / "m.pml")).systems[0]
    assert [v.name for v in system.globals] == ["shared"]
    edge = system.processes[0].edges[0]
    assert edge.effect[0].value.value == 4


def test_errors_in_included_files_point_into_them(tmp_path: Path) -> None:
    (tmp_path / "bad.h").write_text("byte ok;\nbyte oops = zz;\n")
    (tmp_path / "m.pml").write_text('byte first;\n#include "bad.h"\nactive proctype P() { skip }\n')
    with pytest.raises(SemanticError) as info:
        load_promela(str(tmp_path / "m.pml"))
    span = info.value.diagnostics[0].span
    assert Path(span.file).name == "bad.h" and span.line == 2 and span.col == 13


def test_conditionals_and_command_line_defines(tmp_path: Path) -> None:
    model = tmp_path / "m.pml"
    model.write_text(
        "#ifdef FAST\nbyte mode = 1;\n#else\nbyte mode = 2;\n#endif\n"
        "#if N > 2\nbyte big;\n#endif\n"
        "active proctype P() { skip }\n"
    )
    plain = load_promela(str(model)).systems[0]
    assert [v.name for v in plain.globals] == ["mode"]
    assert plain.globals[0].init.value == 2
    fast = load_promela(str(model), defines={"FAST": "", "N": "5"}).systems[0]
    assert [v.name for v in fast.globals] == ["mode", "big"]
    assert fast.globals[0].init.value == 1


def test_missing_include_and_bad_directive_are_errors(tmp_path: Path) -> None:
    model = tmp_path / "m.pml"
    model.write_text('#include "nope.h"\n#frobnicate\nactive proctype P() { skip }\n')
    with pytest.raises(ParseError) as info:
        load_promela(str(model))
    messages = [d.message for d in info.value.diagnostics]
    assert any("nope.h" in m for m in messages)
    assert any("frobnicate" in m for m in messages)
    assert info.value.diagnostics[0].span.line == 1


def test_trigraphs_are_not_replaced() -> None:
    """gcc -E (what SPIN runs) ignores trigraphs: ``q??<v>`` stays a random poll."""
    pre = preprocess("t.pml", "chan q = [1] of { byte };\nbyte v;\n"
                     "active proctype P() { q??<v> }\n")
    assert "q??<v>" in pre.text


def test_invalid_define_name_is_rejected() -> None:
    with pytest.raises(ParseError):
        preprocess("t.pml", "byte x;\n", {"1bad": "2"})


def test_columns_on_macro_expanded_lines_point_into_the_original(tmp_path: Path) -> None:
    model = tmp_path / "m.pml"
    model.write_text("#define TWICE(v) ((v) + (v))\nbyte x;\n"
                     "active proctype P() {\n  x = TWICE(1) + zz\n}\n")
    with pytest.raises(SemanticError) as info:
        load_promela(str(model))
    span = info.value.diagnostics[0].span
    assert (span.line, span.col, span.end_col) == (4, 18, 20)
