"""Bad CSP# inputs: each gives one diagnostic with the right place and message
(STYLE.md section 5; cspsharp.md). Rendered with ``bridge.diagnostics.render``: a
``file:line:col`` head, the source line and a caret, never a traceback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bridge.diagnostics import ParseError, SemanticError, SourceError, UnsupportedError, render
from bridge.frontends.csp import load_csp
from bridge.frontends.csp.catalogue import EXAMPLES

FIXTURES = Path(__file__).resolve().parent / "csp"

# (snippet, line, col, message fragment, error class, note fragment or None)
CASES = [
    ("P = a -> Skip\nQ = b -> Skip;\n#assert P deadlockfree;", 2, 1,
     "unexpected 'Q'; expected ';'", ParseError, "must end with ';'"),
    ("P = a = Skip;", 1, 7, "unexpected '='", ParseError, "'event -> Process'"),
    ("P -> a -> Skip;", 1, 3, "unexpected '->'; expected '(', '='", ParseError,
     "'Name(params) = process;'"),
    ("var x = 0;\nP = a{x = 1 y = 2} -> Skip;", 2, 13, "unexpected 'y'", ParseError,
     "inside an event block end with ';'"),
    ("var x = 0;\nP = a -> [x > 0] b -> Skip;", 2, 10, "unexpected '['", ParseError,
     "must be parenthesised"),
    ("P = ||| i:{0..2} Q(i);", 1, 18, "unexpected 'Q'; expected ';', '@'", ParseError,
     "needs '@'"),
    ("var x = 0;\nP = case { x > 0 a -> Skip };", 2, 18, "unexpected 'a'", ParseError,
     "'condition : process'"),
    ("P = a -> Skip", 1, 14, "unexpected end of file", ParseError, None),
    ("P = a -> Skip;\nvar x = 0 $;", 2, 11, "unexpected '$'", ParseError, "must end with ';'"),
    ("var x = 0;\nP = a -> Q();\n#assert P deadlockfree;", 2, 10, "undeclared process 'Q'",
     SemanticError, None),
    ("Quit = Skip;\nP = a -> Qiut();\n#assert P deadlockfree;", 2, 10,
     "undeclared process 'Qiut'", SemanticError, "did you mean 'Quit'"),
    ("Q(i) = b -> Skip;\nP = a -> Q();\n#assert P deadlockfree;", 2, 10,
     "process 'Q' takes 1 argument but 0 were given", SemanticError, "defined at t.csp:1:1"),
    ("var count = 0;\nP = a{cont = 1;} -> Skip;\n#assert P deadlockfree;", 2, 7,
     "undeclared variable 'cont'", SemanticError,
     "did you mean 'count'? It is declared at t.csp:1:5"),
    ("var x : {0..3} = 5;\nP = Skip;\n#assert P deadlockfree;", 1, 18,
     "initial value 5 of 'x' is outside its range {0..3}", SemanticError, None),
    ("var a[3] = [1, 2];\nP = Skip;", 1, 12, "has 3 elements but its initialiser has 2",
     SemanticError, None),
    ("var x = 0;\nP = a{x = true + 1;} -> Skip;\n#assert P deadlockfree;", 2, 11,
     "type clash: '+' needs integers, this is a boolean", SemanticError, None),
    ("var b = true;\nP = a{b = 3;} -> Skip;\n#assert P deadlockfree;", 2, 7,
     "type clash: assigning an int to a bool variable", SemanticError, None),
    ("var x = 0;\nP = [x + 1] a -> Skip;\n#assert P deadlockfree;", 2, 6,
     "a guard must be a boolean expression", SemanticError, None),
    ("var x = 0;\nP = [x && true] a -> Skip;\n#assert P deadlockfree;", 2, 6,
     "type clash: '&&' needs booleans", SemanticError, None),
    ("P = a -> Skip;\nP = b -> Skip;", 2, 1, "'P' is declared twice", SemanticError,
     "first declared at t.csp:1:1"),
    ("P(i) = a{i = 1;} -> Skip;\n#assert P(0) deadlockfree;", 1, 10,
     "cannot assign to 'i'", SemanticError, None),
    ("P = d!1 -> Skip;\n#assert P deadlockfree;", 1, 5, "undeclared channel 'd'",
     SemanticError, None),
    ("var x = 0;\nP = a -> Skip;\n#assert P reaches x;", 3, 19,
     "'reaches' needs a #define proposition", SemanticError, None),
    ("P = a -> Skip;\n#assert P |= [] foo;", 2, 17, "unknown LTL atom 'foo'", SemanticError,
     None),
    ("P = ping -> Skip;\n#assert P |= []<> pnig;", 2, 19, "unknown LTL atom 'pnig'",
     SemanticError, "did you mean 'ping'"),
    ("P = a -> Skip;\n#assert P |= [] (a U);", 2, 21, "unexpected ')' in LTL formula",
     ParseError, None),
    ("P = a -> Skip;\n#assert P |= [] a $ b;", 2, 19, "unexpected character '$'",
     ParseError, None),
    ("P = Wait[5]; Skip;", 1, 5, "unsupported construct: Wait[t]", UnsupportedError, None),
    ('#import "ValidityCheck";\nP = Skip;', 1, 9, "unsupported construct: #import of the C# "
     "library 'ValidityCheck'", UnsupportedError, "natively"),
    ("var x = 0;\nP = a{x = call(isLegal, 1);} -> Skip;\n#assert P deadlockfree;", 2, 11,
     "unsupported construct: call(isLegal, ...) (C# library function)", UnsupportedError,
     "#define macros and PAT.Math"),
    ("var x = 0;\nP = a{x = call(Pow, 2, 3);} -> Skip;\n#assert P deadlockfree;", 2, 11,
     "call(Pow, ...)", UnsupportedError, '#import "PAT.Math"'),
    ('#import "PAT.Lib.Queue";\nvar<Queue> q;\nvar x;\nP = a{x = q.Peek()} -> Skip;\n#assert P deadlockfree;', 4, 11,
     "method 'Peek' of Queue", UnsupportedError, "Queue.Clear"),
    ("var<Set> s;\nP = Skip;", 1, 1, "unknown library class 'Set'", SemanticError,
     '#import "PAT.Lib.Set"'),
    ('#import "PAT.Lib.Queue";\nvar<Queue> q;\nvar x;\nP = [q.Dequeue() > 0] a -> Skip;\n#assert P deadlockfree;', 4, 6,
     "'Dequeue' changes its Queue", SemanticError, None),
    ("#define f(i) i + 1;\nvar x;\nP = a{x = call(f, 1, 2)} -> Skip;\n#assert P deadlockfree;", 3, 11,
     "macro 'f' takes 1 argument but 2 were given", SemanticError, "defined at t.csp:1:9"),
    ("channel c[2] 1;\nP = c!1 -> Skip;\n#assert P deadlockfree;", 2, 5, "'c' is a channel array", SemanticError, None),
    ("P = a -> Skip;\n#assert P refines Qx;", 2, 19, "undeclared process 'Qx'",
     SemanticError, None),
    ("P = a -> (b -> Skip || c -> Skip); P;\n#assert P deadlockfree;", 1, 11,
     "'||' nested under recursion", UnsupportedError, None),
    ("var x = 0;\nA = a.x -> A;\nB = a.0 -> B;\nS = A || B;\n#assert S deadlockfree;", 2, 5,
     "alphabet of 'A()' in '||' cannot be computed", SemanticError, "#alphabet A"),
]


@pytest.mark.parametrize(
    "snippet, line, col, fragment, kind, note", CASES, ids=[str(i) for i in range(len(CASES))]
)
def test_bad_snippet(snippet: str, line: int, col: int, fragment: str, kind: type,
                     note: str | None) -> None:
    with pytest.raises(SourceError) as info:
        load_csp("t.csp", snippet)
    error = info.value
    assert type(error) is kind
    diag = error.diagnostics[0]
    assert diag.span is not None
    assert (diag.span.file, diag.span.line, diag.span.col) == ("t.csp", line, col), render(
        diag, {"t.csp": snippet})
    assert fragment in diag.message
    if note is not None:
        assert any(note in n for n in diag.notes), diag.notes
    text = render(diag, {"t.csp": snippet})
    assert text.startswith(f"t.csp:{line}:{col}: error: ")
    assert "Traceback" not in text
    caret_line = text.splitlines()[2]
    assert caret_line.index("^") == caret_line.index("|") + 2 + col - 1


@pytest.mark.parametrize("hint", list(EXAMPLES))
def test_catalogue_examples_get_their_hint(hint: str) -> None:
    for snippet in EXAMPLES[hint]:
        with pytest.raises(ParseError) as info:
            load_csp("t.csp", snippet)
        assert hint in info.value.diagnostics[0].notes, snippet


FIXTURE_CASES = [
    ("missing_semicolon.csp", 3, 1, "unexpected 'College'; expected ';'", ParseError),
    ("misspelt_variable.csp", 2, 10, "undeclared variable 'cuont'", SemanticError),
    ("wrong_arity.csp", 3, 24, "process 'Node' takes 2 arguments but 1 was given",
     SemanticError),
    ("out_of_range_initialiser.csp", 1, 22, "outside its range {0..40}", SemanticError),
    ("include_of_bad_file.csp", 3, 1, "unexpected 'College'", ParseError),
]


@pytest.mark.parametrize("name, line, col, fragment, kind", FIXTURE_CASES)
def test_bad_file(name: str, line: int, col: int, fragment: str, kind: type) -> None:
    path = FIXTURES / name
    with pytest.raises(SourceError) as info:
        load_csp(str(path))
    error = info.value
    assert type(error) is kind
    diag = error.diagnostics[0]
    assert diag.span is not None and (diag.span.line, diag.span.col) == (line, col)
    assert fragment in diag.message
    text = render(diag)  # reads the file named in the span
    assert f":{line}:{col}: error: " in text and "^" in text


def test_mutated_models_give_a_model_or_a_source_error() -> None:
    """Random small edits of the test models (insert/delete/replace a token) must never
    escape as anything but a ``SourceError`` (a crash would be a traceback).

    An edit inside a comment leaves the text the front end reads unchanged
    (``_code_lines``: the same lines, the same text outside comments), so it loads as the
    unedited model does (the other tests load every test model): it is not loaded again.
    54 of the 150 edits were such; they took 47 s of the test's 50 s, six reloads of the
    two lazily unfolded models (pat35_*lazy*.csp, 5-10 s each)."""
    import random

    models = Path(__file__).resolve().parents[1] / "models" / "csp"
    sources = [p.read_text(encoding="utf-8") for p in sorted(models.glob("*.csp"))]
    tokens = [";", "->", "(", ")", "[", "]", "{", "}", "[]", "|||", "||", "Skip", "x", "1",
              ".", "=", "==", "!", "?", "@", ":", ",", "if", "case", "atomic", "<>", "tau",
              "#define", "#assert", "var", "%", "-", "true"]
    rng = random.Random(20260522)
    loaded = 0
    for _ in range(150):
        src = rng.choice(sources)
        pos = rng.randrange(len(src))
        end = min(len(src), pos + rng.randrange(0, 6))
        mutated = src[:pos] + rng.choice(tokens + [""]) + src[end:]
        if _code_lines(mutated) == _code_lines(src):
            continue
        loaded += 1
        try:
            load_csp("m.csp", mutated)
        except SourceError as error:
            assert error.diagnostics and error.diagnostics[0].message
    assert loaded >= 75  # most edits are outside comments (96 of 150 today): loaded


# A string (kept whole: a comment mark inside it is text) or a comment (``//`` to the end
# of the line, ``/* */``), as ``parse._blank_comments`` reads them.
_STRING_OR_COMMENT = re.compile(r'"[^"]*"?|//[^\n]*|/\*.*?(?:\*/|\Z)', re.S)


def _code_lines(text: str) -> list[str]:
    """Return the lines of ``text`` without its comments (newlines kept) and without
    trailing blanks: two texts with equal code lines are the same model to the lexer."""
    kept = _STRING_OR_COMMENT.sub(
        lambda m: m.group() if m.group().startswith('"') else "\n" * m.group().count("\n"),
        text)
    return [line.rstrip() for line in kept.split("\n")]
