"""Return the lark parse tree of preprocessed Promela (grammars/promela.lark).

The parser is LALR(1) over a token stream that reproduces SPIN 6.5.2's lexer
(``spinlex.c``: ``lex`` and ``yylex``) so that the same texts parse:

* **Implied semicolons.** A newline ends a statement (a ``;`` is inserted) when all of:
  we are inside the body of a proctype, ``init``, ``never``, ``trace``, ``inline`` or
  ``typedef`` (SPIN's ``in_seq``; not at the top level, where declarations may follow
  each other without a separator anyway, nor inside ``ltl``), outside parentheses (``par_cnt == 0``; brackets do not count),
  and the previous token is one of ``} ) ] od fi else break``, a name, a constant,
  ``++`` or ``--``. After ``}`` no ``;`` is inserted when the next word is ``unless``.
* **Repairs of yylex.** After ``else`` a ``;`` is inserted unless the next token is
  ``;``, ``->`` or ``fi``; after ``}`` one is inserted unless the next token is
  ``proctype init never :: fi od } unless ; ->`` or the end; a ``;``/``->`` directly
  followed by ``}``, ``->`` or ``;`` is dropped (the token after it is then passed on
  unchecked, as SPIN's ``hold`` does).
* **Name classes.** Names declared by ``proctype``, ``typedef`` and ``inline`` are
  returned as PNAME, UNAME and INAME (SPIN's lexer does the same from its symbol
  table); ``in`` is a keyword only inside ``for (...)``.
* **LTL mode.** Inside ``ltl [name] { ... }``: ``[]`` ``<>`` ``->`` ``<->`` ``/\\``
  ``\\/`` and the words ``U V W X always eventually until stronguntil weakuntil release
  next implies equivalent`` become temporal operator tokens.

Embedded C (``c_code``, ``c_expr``, ``c_decl``, ``c_state``, ``c_track``) is rejected as
soon as its keyword is met, before its C body could confuse the lexer.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import BasicLexer, Lexer, LexerState, TextSlice

import bridge.frontends as frontends
from bridge._resources import grammar_path
from bridge.diagnostics import ParseError, Span, UnsupportedError
from bridge.frontends.promela.preprocess import Preprocessed

_FOLLOWS = frozenset(
    {"RBRACE", "RPAR", "RSQB", "OD", "FI", "ELSE", "BREAK", "C_CODE", "C_EXPR", "C_DECL",
     "NAME", "NUMBER", "CHARLIT", "TRUE", "FALSE", "SKIP", "INCR", "DECR"}
)
_NO_SEMI_AFTER_BRACE = frozenset(
    {"PROCTYPE", "INIT", "NEVER", "SEP", "FI", "OD", "RBRACE", "UNLESS", "SEMI", "ARROW", "$END"}
)
_BODY_UNITS = frozenset(
    {"PROCTYPE", "D_PROCTYPE", "INIT", "NEVER", "TRACE", "NOTRACE", "INLINE", "TYPEDEF"}
)
_UNIT_WORDS = _BODY_UNITS | {"TYPEDEF", "LTL", "MTYPE", "OF", "ASGN"}
_LTL_WORDS = {
    "U": "UNTIL", "V": "RELEASE", "W": "WUNTIL", "X": "NEXT",
    "always": "ALWAYS", "eventually": "EVENTUALLY", "until": "UNTIL",
    "stronguntil": "UNTIL", "weakuntil": "WUNTIL", "release": "RELEASE",
    "next": "NEXT", "implies": "IMPLIES", "equivalent": "EQUIV",
}
_EMBEDDED_C = frozenset({"C_CODE", "C_DECL", "C_EXPR", "C_STATE", "C_TRACK"})

# Set by ``parse_promela`` for the custom lexer (lark instantiates it itself).
_CURRENT: list[Preprocessed] = []


def _adjacent(a: Token, b: Token) -> bool:
    return a.end_pos == b.start_pos


def _new(type_: str, value: str, at: Token) -> Token:
    return Token.new_borrow_pos(type_, value, at)


def _raw_tokens(basic: BasicLexer, state: LexerState, pre: Preprocessed | None) -> list[Token]:
    tokens: list[Token] = []
    for tok in basic.lex(state, None):
        if tok.type in _EMBEDDED_C:
            span = _span_of(tok, pre)
            raise UnsupportedError.at(
                span, f"embedded C ({tok.value}) is not supported by bridge",
                "bridge checks models natively; remove the C code or use SPIN itself",
            )
        tokens.append(tok)
    return tokens


def _convert(tokens: list[Token]) -> list[Token]:
    """Classify names (PNAME/UNAME/INAME/IN) and switch on LTL mode inside ltl blocks."""
    # name -> index of the token that declares it: SPIN's lexer knows a name as a
    # proctype (typedef, inline) only once its declaration has been read, so an
    # earlier use is a plain name (``byte shuttle`` before ``proctype shuttle``); ltl
    # blocks are parsed at the end (DEFER_LTL) and see every proctype, and an inline
    # body is lexed only where it is expanded, so it sees every declared name.
    pnames: dict[str, int] = {}
    unames: dict[str, int] = {}
    inames: dict[str, int] = {}
    declaring: set[int] = set()
    for i, tok in enumerate(tokens[:-1]):
        nxt = tokens[i + 1]
        if nxt.type != "NAME":
            continue
        if tok.type in ("PROCTYPE", "D_PROCTYPE"):
            pnames.setdefault(nxt.value, i + 1)
            declaring.add(i + 1)
        elif tok.type == "TYPEDEF":
            unames.setdefault(nxt.value, i + 1)
            declaring.add(i + 1)
        elif tok.type == "INLINE":
            inames.setdefault(nxt.value, i + 1)
            declaring.add(i + 1)
    out: list[Token] = []
    depth = 0
    ltl_depth: int | None = None  # brace depth of the ltl block's '{'
    pending_ltl = False
    inline_depth: int | None = None  # brace depth of an inline body's '{'
    pending_inline = False
    for_paren: int | None = None
    paren = 0
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        t = tok.type
        if t == "LTL" and depth == 0:
            pending_ltl = True
        elif t == "INLINE" and depth == 0:
            pending_inline = True
        elif t == "LBRACE":
            depth += 1
            if pending_ltl:
                ltl_depth, pending_ltl = depth, False
            if pending_inline:
                inline_depth, pending_inline = depth, False
        elif t == "RBRACE":
            if ltl_depth is not None and depth == ltl_depth:
                ltl_depth = None
            if inline_depth is not None and depth == inline_depth:
                inline_depth = None
            depth -= 1
        elif t == "LPAR":
            paren += 1
            if out and out[-1].type == "FOR":
                for_paren = paren
        elif t == "RPAR":
            if for_paren == paren:
                for_paren = None
            paren -= 1
        if t == "NAME" and i not in declaring:
            late = (ltl_depth is not None and depth >= ltl_depth) or inline_depth is not None
            if tok.value in pnames and (late or pnames[tok.value] < i):
                tok = _new("PNAME", tok.value, tok)
            elif tok.value in unames and (late or unames[tok.value] < i):
                tok = _new("UNAME", tok.value, tok)
            elif tok.value in inames and (late or inames[tok.value] < i):
                tok = _new("INAME", tok.value, tok)
            elif tok.value == "in" and for_paren == paren:
                tok = _new("IN", tok.value, tok)
        if ltl_depth is not None and depth >= ltl_depth:
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if tok.type == "NAME" and tok.value in _LTL_WORDS:
                tok = _new(_LTL_WORDS[tok.value], tok.value, tok)
            elif t == "ARROW":
                tok = _new("IMPLIES", "->", tok)
            elif nxt is not None and _adjacent(tok, nxt):
                pair = (t, nxt.type)
                merged = {
                    ("LSQB", "RSQB"): ("ALWAYS", "[]"),
                    ("LT", "GT"): ("EVENTUALLY", "<>"),
                    ("LT", "ARROW"): ("EQUIV", "<->"),
                    ("SLASH", "BACKSLASH"): ("ANDAND", "/\\"),
                    ("BACKSLASH", "SLASH"): ("OROR", "\\/"),
                }.get(pair)
                if merged is not None:
                    combined = _new(merged[0], merged[1], tok)
                    combined.end_pos = nxt.end_pos
                    combined.end_column = nxt.end_column
                    out.append(combined)
                    i += 2
                    continue
        out.append(tok)
        i += 1
    return out


def _implied_semis(tokens: list[Token]) -> list[Token]:
    """Insert SPIN's newline semicolons (spinlex.c ``lex``, case '\\n')."""
    out: list[Token] = []
    depth = 0
    paren = 0
    in_seq = False
    seq_depth = 0
    unit_word: str | None = None
    prev: Token | None = None
    for tok in tokens:
        t = tok.type
        if (
            prev is not None
            and in_seq
            and paren == 0
            and tok.line > (prev.end_line or prev.line)
            and prev.type in _FOLLOWS
            and not (prev.type == "RBRACE" and t == "UNLESS")
        ):
            semi = _new("SEMI", ";", prev)
            out.append(semi)
        if depth == 0 and paren == 0 and t in _UNIT_WORDS:
            unit_word = t
        if t == "LBRACE":
            if depth == 0 and unit_word in _BODY_UNITS:
                in_seq, seq_depth = True, 1
            depth += 1
        elif t == "RBRACE":
            if in_seq and depth == seq_depth:
                in_seq = False
            depth = max(depth - 1, 0)
            if depth == 0:
                unit_word = None
        elif t == "LPAR":
            paren += 1
        elif t == "RPAR":
            paren = max(paren - 1, 0)
        out.append(tok)
        prev = tok
    return out


def _yylex(tokens: list[Token]) -> Iterator[Token]:
    """Apply SPIN's yylex repairs (``else``/``}`` semicolons, dropped separators)."""
    stream = iter(tokens)
    end = Token("$END", "")

    def lex() -> Token:
        return next(stream, end)

    last: str | None = None
    hold: Token | None = None
    while True:
        if hold is not None:
            c, hold = hold, None
        else:
            c = lex()
            if last == "ELSE" and c.type not in ("SEMI", "ARROW", "FI"):
                hold, last = c, None
                yield _new("SEMI", ";", c) if c.type != "$END" else Token("SEMI", ";")
                continue
            if last == "RBRACE" and c.type not in _NO_SEMI_AFTER_BRACE:
                hold, last = c, None
                yield _new("SEMI", ";", c)
                continue
            if c.type in ("SEMI", "ARROW"):
                h = lex()
                if h.type in ("RBRACE", "ARROW", "SEMI"):
                    c = h
                else:
                    hold = h
        if c.type == "$END":
            return
        last = c.type
        yield c


class _SpinLexer(Lexer):
    """lark custom lexer: the basic lexer followed by SPIN's token-level rules."""

    def __init__(self, lexer_conf) -> None:  # type: ignore[no-untyped-def]
        self._basic = BasicLexer(lexer_conf)

    def lex(self, data: str) -> Iterator[Token]:  # type: ignore[override]
        pre = _CURRENT[-1] if _CURRENT else None
        raw = _raw_tokens(self._basic, LexerState(TextSlice.cast_from(data)), pre)
        yield from _yylex(_implied_semis(_convert(raw)))


@cache
def _parser() -> Lark:
    # lark keeps the LALR tables in a temporary file keyed by the grammar's hash
    # (building them took 0.3 s of every run)
    return frontends.lalr_parser(grammar_path("promela.lark").read_text(encoding="utf-8"),
                                 lexer=_SpinLexer, start=["start", "expr"])


def _span_of(tok: Token | None, pre: Preprocessed | None) -> Span | None:
    if tok is None or getattr(tok, "line", None) is None:
        return None
    width = max(len(str(tok.value)), 1)
    if pre is None:
        return Span("<input>", tok.line, tok.column, tok.line, tok.column + width)
    return pre.span(tok.line, tok.column, tok.line, tok.column + width, str(tok.value))


_TOKEN_TEXT = {
    "SEMI": "';'", "ARROW": "'->'", "SEP": "'::'", "RBRACE": "'}'", "LBRACE": "'{'",
    "RPAR": "')'", "LPAR": "'('", "RSQB": "']'", "LSQB": "'['", "COMMA": "','",
    "NAME": "a name", "NUMBER": "a number", "FI": "'fi'", "OD": "'od'", "ASGN": "'='",
    "COLON": "':'", "$END": "end of input",
}


def _end_span(pre: Preprocessed) -> Span:
    """Return the position just after the last non-blank line (where input ended)."""
    lines = pre.text.split("\n")
    for k in range(len(lines), 0, -1):
        if lines[k - 1].strip():
            return pre.span(k, len(lines[k - 1]) + 1)
    return pre.span(1, 1)


def _describe(tok: Token) -> str:
    if tok.type == "$END":
        return "end of input"
    if tok.type == "SEMI" and tok.value == ";":
        return "';' (or a line break ending the statement)"
    return repr(str(tok.value))


def parse_promela(pre: Preprocessed) -> Tree:
    """Return the parse tree of the preprocessed model ``pre``.

    Raises ``ParseError`` (``file:line:col``) on a syntax error, with the tokens that
    were expected and a hint from ``catalogue.py`` for known mistakes, and
    ``UnsupportedError`` for embedded C.
    """
    _CURRENT.append(pre)
    try:
        return _parser().parse(pre.text, start="start")
    except UnexpectedCharacters as exc:
        span = pre.span(exc.line, exc.column, exc.line, exc.column + 1)
        char = pre.text[exc.pos_in_stream] if exc.pos_in_stream < len(pre.text) else "?"
        hint = ()
        if char in "'\"":
            hint = ("strings appear only in printf; character constants are 'c'",)
        raise ParseError.at(span, f"syntax error: unexpected character {char!r}", *hint) from None
    except UnexpectedEOF as exc:
        span = _end_span(pre)
        expected = sorted(_TOKEN_TEXT.get(t, t.lower()) for t in exc.expected)[:8]
        raise ParseError.at(
            span, "syntax error: unexpected end of input", f"expected one of: {', '.join(expected)}"
        ) from None
    except UnexpectedToken as exc:
        tok = exc.token
        if tok.type == "$END":
            span = _end_span(pre)
        else:
            span = _span_of(tok, pre)
        expected = sorted({_TOKEN_TEXT.get(t, t.lower()) for t in exc.expected})
        notes: list[str] = []
        if expected:
            shown = ", ".join(expected[:10]) + (", ..." if len(expected) > 10 else "")
            notes.append(f"expected one of: {shown}")
        from bridge.frontends.promela.catalogue import hint_for

        hint = hint_for(exc, tok, pre)
        if hint:
            notes.append(f"hint: {hint}")
        raise ParseError.at(span, f"syntax error: unexpected {_describe(tok)}", *notes) from None
    except UnexpectedInput as exc:  # pragma: no cover - other lark input errors
        raise ParseError.at(None, f"syntax error: {exc}") from None
    finally:
        _CURRENT.pop()


def parse_expression(text: str) -> Tree:
    """Return the parse tree of one Promela expression (e.g. a ``#define`` body).

    Raises lark's exceptions on bad input (callers use it to probe macro bodies).
    """
    return _parser().parse(text, start="expr")
