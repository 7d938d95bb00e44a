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


# ---------------------------------------------------------------------------------
# Files as SPIN's cpp reads them (each case checked against spin -a when installed)

_SPIN_FILES: list[tuple[str, dict[str, bytes], bool]] = [
    # a comment over two lines leaves a line break, which ends the statement
    ("comment_ends_statement", {"m.pml": b"byte x;\nactive proctype P() {\n  x = 1 /* a\n"
                                          b"  b */ x = 2\n}\n"}, True),
    # ... so an operator after it starts a new (bad) statement, as in SPIN
    ("comment_then_operator", {"m.pml": b"byte x;\nactive proctype P() {\n  x = 1 /* a\n"
                                         b"  b */ + 2\n}\n"}, False),
    ("comment_in_define", {"m.pml": b"#define N 2 /* two\n lines */\n"
                                     b"byte x = N;\nactive proctype P() { x = 1 }\n"}, True),
    ("byte_order_mark", {"m.pml": b"\xef\xbb\xbfbyte x;\nactive proctype P() { x = 1 }\n"}, True),
    ("latin1_comment", {"m.pml": b"/* caf\xe9 */\nbyte x;\nactive proctype P() { x = 1 }\n"},
     True),
    ("latin1_include_with_bom", {
        "inc.h": b"\xef\xbb\xbf/* \xe9t\xe9 */\nbyte y;\n",
        "m.pml": b'#include "inc.h"\nactive proctype P() { y = 1 }\n'}, True),
    ("crlf_line_ends", {"m.pml": b"byte x;\r\nactive proctype P() {\r\n  x = 1\r\n  x = 2\r\n}\r\n"},
     True),
]


def _bridge_loads(directory: Path) -> bool:
    from bridge.api import load_model
    from bridge.diagnostics import SourceError

    try:
        load_model(str(directory / "m.pml"))
    except SourceError:
        return False
    return True


@pytest.mark.parametrize("name,files,accepted", _SPIN_FILES, ids=[c[0] for c in _SPIN_FILES])
def test_files_load_as_spin_reads_them(name: str, files: dict[str, bytes], accepted: bool,
                                        tmp_path: Path) -> None:
    for file, data in files.items():
        (tmp_path / file).write_bytes(data)
    assert _bridge_loads(tmp_path) == accepted


@pytest.mark.spin
@pytest.mark.parametrize("name,files,accepted", _SPIN_FILES, ids=[c[0] for c in _SPIN_FILES])
def test_file_table_matches_installed_spin(name: str, files: dict[str, bytes], accepted: bool,
                                           tmp_path: Path) -> None:
    import shutil
    import subprocess

    if shutil.which("spin") is None:
        pytest.skip("spin is not installed")
    for file, data in files.items():
        (tmp_path / file).write_bytes(data)
    done = subprocess.run(["spin", "-a", "m.pml"], cwd=tmp_path, capture_output=True,
                          text=True, errors="replace", timeout=60)
    assert (done.returncode == 0 and "Error" not in done.stdout) == accepted, done.stdout


def test_blanked_comments_keep_lines_and_columns() -> None:
    from bridge.frontends.promela.preprocess import blank_comments

    text = 'x = 1 /* a\nb */ y // z\n"/* no */" \'/\'\n#define A 1 /* c\nd */ + 2\ne\n'
    out = blank_comments(text)
    assert out.split("\n")[:3] == ["x = 1     ", "     y     ", '"/* no */" \'/\'']
    # in a directive the comment is one blank and its line break follows the directive
    assert out.split("\n")[3:] == ["#define A 1   + 2", "", "e", ""]
