"""Parse PAT's LTL syntax (the text after ``|=``) into the IR's ``Ltl`` AST.

cspsharp.md section 6: operators ``[]``/``G``, ``<>``/``F``, ``X``, ``U``, ``R``/``V``,
``!``, ``&&``/``/\\``, ``||``/``\\/``, ``->``, ``<->``; precedence as in PAT's ltl2ba
port: unary operators take a single factor and bind tightest, then ``U``/``R``/``V``
(left-associative), then ``&&``, ``||``, ``->``, ``<->`` all at one level,
left-associative (``p || q -> r`` is ``(p || q) -> r``; ``a -> b && c`` is
``(a -> b) && c``). Atoms: ``#define`` propositions (state atoms, expanded), boolean
constants, events ``name.c1.c2`` (components are integers or constants, or
parenthesised constant expressions), channel events ``c.v``, ``c!v``, ``c?v``, and
``init``. Any other identifier is an error, as in PAT.
"""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

from bridge.diagnostics import ParseError, SemanticError, SourceError, Span
from bridge.ir import LtlBinary, LtlConst, LtlEvent, LtlState, LtlUnary
from bridge.ir.property import Ltl

if TYPE_CHECKING:  # pragma: no cover
    from bridge.frontends.csp.context import Lowerer

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<op><->|->|\[\]|<>|&&|\|\||/\\|\\/|!|\(|\))
  | (?P<atom>[A-Za-z_][A-Za-z0-9_]*(?:[.!?](?:-?[0-9]+|[A-Za-z_][A-Za-z0-9_]*|\([^()]*\)))*)
  | (?P<string>"[^"]*")
    """,
    re.VERBOSE,
)
_UNARY = {"[]": "G", "G": "G", "<>": "F", "F": "F", "X": "X", "!": "!"}
_UNTIL = {"U": "U", "R": "R", "V": "R"}
_BINARY = {"&&": "&&", "/\\": "&&", "||": "||", "\\/": "||", "->": "->", "<->": "<->"}


class _Tok:
    __slots__ = ("kind", "text", "col")

    def __init__(self, kind: str, text: str, col: int) -> None:
        self.kind = kind
        self.text = text
        self.col = col


def _tokens(text: str, span: Span) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ParseError.at(_at(span, pos, 1, text), f"unexpected character {text[pos]!r} in LTL formula")
        kind = m.lastgroup or ""
        if kind != "ws":
            word = m.group(0)
            if kind == "atom" and word in ("G", "F", "X", "U", "R", "V"):
                kind = "op"
            out.append(_Tok(kind, word, pos))
        pos = m.end()
    return out


def _at(span: Span, offset: int, width: int, text: str = "") -> Span:
    """Return the span of ``width`` characters at ``offset`` into the formula text
    (which starts at ``span``; ``text`` is needed when it runs over several lines)."""
    before = text[:offset]
    lines = before.count("\n")
    if lines == 0:
        return Span(span.file, span.line, span.col + offset, span.line,
                    span.col + offset + width)
    col = offset - before.rfind("\n")
    return Span(span.file, span.line + lines, col, span.line + lines, col + width)


def _at_text(parser: _Parser, offset: int, width: int) -> Span:
    return _at(parser.span, offset, width, parser.text)


class _Parser:
    def __init__(self, text: str, span: Span, low: Lowerer) -> None:
        self.text = text
        self.span = span
        self.low = low
        self.toks = _tokens(text, span)
        self.pos = 0

    def peek(self) -> _Tok | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def error(self, tok: _Tok | None, expected: str) -> ParseError:
        if tok is None:
            return ParseError.at(
                _at_text(self, len(self.text.rstrip()), 1),
                f"unexpected end of LTL formula; expected {expected}",
            )
        return ParseError.at(
            _at_text(self, tok.col, len(tok.text)), f"unexpected '{tok.text}' in LTL formula; expected {expected}"
        )

    def parse(self) -> Ltl:
        if not self.toks:
            raise self.error(None, "a formula")
        f = self.binary()
        tok = self.peek()
        if tok is not None:
            raise self.error(tok, "an operator (&&, ||, ->, <->, U, R) or the end of the formula")
        return f

    def binary(self) -> Ltl:
        left = self.until()
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.text in _BINARY:
            self.pos += 1
            right = self.until()
            left = LtlBinary(_BINARY[tok.text], left, right, _at_text(self, tok.col, len(tok.text)))
        return left

    def until(self) -> Ltl:
        left = self.unary()
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.text in _UNTIL:
            self.pos += 1
            right = self.unary()
            left = LtlBinary(_UNTIL[tok.text], left, right, _at_text(self, tok.col, 1))
        return left

    def unary(self) -> Ltl:
        tok = self.peek()
        if tok is None:
            raise self.error(None, "a proposition, an event or '('")
        if tok.kind == "op" and tok.text in _UNARY:
            self.pos += 1
            operand = self.unary()
            return LtlUnary(_UNARY[tok.text], operand, _at_text(self, tok.col, len(tok.text)))
        if tok.kind == "op" and tok.text == "(":
            self.pos += 1
            inner = self.binary()
            close = self.peek()
            if close is None or close.text != ")":
                raise self.error(close, "')'")
            self.pos += 1
            return inner
        if tok.kind in ("atom", "string"):
            self.pos += 1
            return self.atom(tok)
        raise self.error(tok, "a proposition, an event or '('")

    def atom(self, tok: _Tok) -> Ltl:
        span = _at_text(self, tok.col, len(tok.text))
        if tok.kind == "string":
            return self.quoted(tok.text[1:-1], span)
        return self.named(tok.text, span)

    def named(self, word: str, span: Span) -> Ltl:
        """Return the atom written ``word`` (a name, possibly with components)."""
        low = self.low
        if word == "true":
            return LtlConst(True, span)
        if word == "false":
            return LtlConst(False, span)
        if word == "init":
            return LtlEvent("init", span)
        if word == "tau":
            raise SemanticError.at(span, "'tau' cannot be used in an LTL formula")
        m = re.match(r"[A-Za-z_][A-Za-z0-9_]*", word)
        assert m is not None
        base = m.group(0)
        rest = word[m.end():]
        if not rest:
            if base in low.props:
                return LtlState(low._proposition(base, span), base, span)
            if base in low.constants and isinstance(low.constants[base], bool):
                return LtlState(_const(low.constants[base]), base, span)
        if base in low.event_bases or base in low.channels:
            return LtlEvent(base + self.components(rest, span), span)
        if base in low.globals:
            raise SemanticError.at(
                span,
                f"'{base}' is a variable; an LTL atom must be a #define proposition or an event",
                f"write '#define p {base} ...;' and use 'p'",
            )
        known = sorted(set(low.props) | low.event_bases | set(low.channels))
        close = difflib.get_close_matches(base, known, n=1)
        notes = [f"did you mean '{close[0]}'?"] if close else []
        raise SemanticError.at(
            span, f"unknown LTL atom '{base}': not an event, channel or #define proposition",
            *notes,
        )

    def quoted(self, inner: str, span: Span) -> Ltl:
        """Return the atom of a quoted proposition: a name as usual, otherwise a
        state expression over the model's variables and constants."""
        from bridge.frontends.csp.expressions import Ctx
        from bridge.frontends.csp.fold import without_spans
        from bridge.frontends.csp.parse import parse_expression

        text = inner.strip()
        m = _TOKEN.fullmatch(text)
        if m is not None and m.lastgroup == "atom":
            return self.named(text, span)
        try:
            expr = self.low.bool_expr(
                parse_expression(text, span), Ctx(), "a quoted proposition"
            )
        except SourceError as error:  # report it at the string, not inside it
            first = error.diagnostics[0]
            raise type(error).at(span, first.message, *first.notes) from None
        # positions inside the string are not file positions: keep none
        return LtlState(without_spans(expr), text, span)

    def components(self, rest: str, span: Span) -> str:
        out = []
        pos = 0
        while pos < len(rest):
            sep = rest[pos]
            pos += 1
            m = re.match(r"-?[0-9]+|[A-Za-z_][A-Za-z0-9_]*|\([^()]*\)", rest[pos:])
            assert m is not None
            piece = m.group(0)
            pos += m.end()
            out.append(sep + str(self.component_value(piece, span)))
        return "".join(out)

    def component_value(self, piece: str, span: Span) -> int:
        low = self.low
        if re.fullmatch(r"-?[0-9]+", piece):
            return int(piece)
        if piece.startswith("("):
            from bridge.frontends.csp.parse import parse_expression

            e = parse_expression(piece, span)
            try:
                value = low.const_value(e)
            except Exception:  # noqa: BLE001 - reported below
                value = None
        else:
            value = low.constants.get(piece)
        if value is None or isinstance(value, bool):
            raise SemanticError.at(
                span, f"event component '{piece}' in an LTL formula must be a constant integer"
            )
        return value


def _const(value: bool):
    from bridge.ir import Const

    return Const(value)


def parse_ltl(text: str, span: Span | None, low: Lowerer) -> Ltl:
    """Return the LTL formula of ``text`` (PAT syntax) with atoms resolved against the
    model's events, channels, propositions and constants."""
    if span is None:
        span = Span(low.path, 1, 1)
    return _Parser(text, span, low).parse()
