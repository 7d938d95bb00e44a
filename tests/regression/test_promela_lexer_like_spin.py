"""Regression: models SPIN 6.5.2 accepts that bridge refused because its token pass
differed from SPIN's lexer (each snippet is also in the spin-checked table of
``tests/unit/frontends/promela/test_parse.py`` or ``test_preprocess.py``):

* a name used before a ``proctype`` of that name was declared was taken for the
  proctype (``byte shuttle`` in one process, ``proctype shuttle`` later): SPIN's
  lexer knows the proctype only after its declaration;
* a comment spanning lines was removed together with its line breaks, so
  ``x = 1 /* ... */ x = 2`` over two lines lost its implied semicolon (gcc -E keeps
  tokens on their lines, SPIN ends the statement there).
"""

from __future__ import annotations

from bridge.frontends.promela import load_promela


def test_variable_named_like_a_later_proctype() -> None:
    text = ("active proctype P() {\n  byte shuttle;\n  shuttle = 1\n}\n"
            "proctype shuttle() { skip }\n")
    system = load_promela("names.pml", text).systems[0]
    assert any(v.name == "shuttle" for v in system.process("P").locals)


def test_comment_over_two_lines_ends_the_statement() -> None:
    text = "byte x;\nactive proctype P() {\n  x = 1 /* one\n  two */ x = 2\n}\n"
    edges = load_promela("comment.pml", text).systems[0].process("P").edges
    assert [e.text for e in edges] == ["x = 1", "x = 2"]
