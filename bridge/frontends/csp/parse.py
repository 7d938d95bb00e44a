"""Parse CSP# text into the syntax tree of ``syntax.py`` (cspsharp.md sections 1-4).

``parse_csp`` returns a ``Program``; ``#include``d files are parsed and merged (paths
relative to the including file). Errors are ``ParseError``s with a span and a message
listing the expected tokens in words, plus a hint from ``catalogue.py`` when the mistake
is a known one (lark's ``match_examples``). Constructs of the timed/probabilistic PAT
modules are rejected with ``UnsupportedError``; ``#import``s are recorded and judged by
the lowering. A UTF-8 byte-order mark is skipped; a file included twice is read once;
the main file's assertions come first (PAT's numbering).

The spots of the language that are not LALR(1) (a ';' that ends a definition versus one
that composes sequentially, the '(' of a macro's parameters, the '.' of a method call)
are settled by ``mark_item_ends`` before lark runs; see the comment at the top of
``grammars/csp.lark``.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from lark import Lark, Token, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.visitors import Transformer_NonRecursive

import bridge.frontends as frontends
from bridge._resources import grammar_path
from bridge.diagnostics import ParseError, Span, UnsupportedError
from bridge.frontends.csp import syntax as s

END_MARK = "\u204f"
BOM = "\ufeff"
_WINDOWS_PATH = re.compile(r"^[A-Za-z]:[\\/]|^\\\\")

_ITEM_KEYWORDS = ("var", "hvar", "channel", "enum")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Constructs of other PAT modules: (regex, name). Only matched outside comments.
_UNSUPPORTED = (
    (re.compile(r"\bWait\s*\["), "Wait[t] (PAT real-time module)"),
    (re.compile(r"\bwithin\s*\["), "within[t] (PAT real-time module)"),
    (re.compile(r"\bdeadline\s*\["), "deadline[t] (PAT real-time module)"),
    (re.compile(r"\btimeout\s*\["), "timeout[t] (PAT real-time module)"),
    (re.compile(r"\bwaituntil\s*\["), "waituntil[t] (PAT real-time module)"),
    (re.compile(r"->>"), "urgent prefix '->>' (PAT real-time module)"),
    (re.compile(r"\bpcase\s*\{"), "pcase (PAT probabilistic module)"),
    (re.compile(r"\bprob\s*\("), "prob (PAT probabilistic module)"),
)
MACRO_OPEN = "\u2045"
METHOD_DOT = "\u2024"
# ``#define name(a, b) body``: a macro when a parameter list of names is followed by a
# body (``#define p(x == 1);`` and ``#define q(x);`` are a proposition and a constant).
_MACRO = re.compile(
    r"#[ \t]*define\s+[A-Za-z_][A-Za-z0-9_]*(\()\s*(?:[A-Za-z_][A-Za-z0-9_]*"
    r"(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)?\s*\)\s*(?=[^\s;])"
)
# ``obj.Method(`` (a method of a library object), not ``ev.call(`` (an event component).
_METHOD = re.compile(r"(?<=[A-Za-z0-9_)\]])\s*(\.)\s*(?!call\b)[A-Za-z_][A-Za-z0-9_]*\s*\(")


@cache
def _parser() -> Lark:
    # lark keeps the LALR tables in a temporary file keyed by the grammar's hash
    # (building them takes about two seconds)
    return frontends.lalr_parser(grammar_path("csp.lark").read_text(encoding="utf-8"),
                                 lexer="contextual")


# ---------------------------------------------------------------------------------
# Pre-lexing: comments, item-ending semicolons, unsupported constructs


def _blank_comments(text: str) -> str:
    """Return ``text`` with comments and string contents replaced by spaces (newlines
    kept), so offsets and line numbers are unchanged."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
        elif c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if text[k] != "\n":
                    out[k] = " "
            i = j
        elif c == '"':
            j = text.find('"', i + 1)
            j = n if j < 0 else j
            for k in range(i + 1, j):
                if text[k] != "\n":
                    out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _starts_item(clean: str, pos: int) -> bool:
    """Return True if a top-level item (or the end of the file) starts at/after ``pos``."""
    n = len(clean)
    while pos < n and clean[pos].isspace():
        pos += 1
    if pos >= n or clean[pos] == "#":
        return True
    m = _IDENT.match(clean, pos)
    if m is None:
        return False
    word = m.group(0)
    if word in _ITEM_KEYWORDS:
        return True
    pos = m.end()
    while pos < n and clean[pos].isspace():
        pos += 1
    if pos < n and clean[pos] == "(":
        depth = 0
        while pos < n:
            if clean[pos] == "(":
                depth += 1
            elif clean[pos] == ")":
                depth -= 1
                if depth == 0:
                    pos += 1
                    break
            elif clean[pos] in ";{}":
                return False
            pos += 1
        while pos < n and clean[pos].isspace():
            pos += 1
    return pos < n and clean[pos] == "=" and not clean.startswith("==", pos)


def mark_item_ends(text: str) -> str:
    """Return ``text`` with every item-ending ';' replaced by ``END_MARK``."""
    clean = _blank_comments(text)
    out = list(text)
    for m in _MACRO.finditer(clean):
        out[m.start(1)] = MACRO_OPEN
    for m in _METHOD.finditer(clean):
        out[m.start(1)] = METHOD_DOT
    depth = 0
    skip_to = -1
    for i, c in enumerate(clean):
        if i < skip_to:
            continue
        if c == "|" and clean.startswith("|=", i):
            # LTL text runs to the next ';' whatever its brackets (PAT does the same).
            end = clean.find(";", i)
            if end >= 0:
                out[end] = END_MARK
                skip_to = end + 1
                depth = 0
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
        elif c == ";" and depth == 0 and _starts_item(clean, i + 1):
            out[i] = END_MARK
    return "".join(out)


def _check_unsupported(path: str, text: str) -> None:
    clean = _blank_comments(text)
    for pattern, what in _UNSUPPORTED:
        m = pattern.search(clean)
        if m is not None:
            span = _offset_span(path, text, m.start(), m.end())
            raise UnsupportedError.at(span, f"unsupported construct: {what}")


def _offset_span(path: str, text: str, start: int, end: int) -> Span:
    line = text.count("\n", 0, start) + 1
    col = start - (text.rfind("\n", 0, start) + 1) + 1
    end_col = col + max(1, min(end, len(text)) - start)
    return Span(path, line, col, line, end_col)


# ---------------------------------------------------------------------------------
# Error messages


def _ends_item_before_junk(error: UnexpectedToken, expected: set[str] | frozenset[str]) -> bool:
    """Return True if the parser met a ';' where an item could end (``_END``) but the
    ';' was not marked as an item end: the text after it starts no top-level item."""
    return (error.token.value == ";" and "_END" in expected
            and getattr(error.token, "end_pos", None) is not None)


def _junk_after_item(path: str, text: str, semicolon: Token) -> ParseError:
    """Return the error for text after an item's ';' that starts no item, at that text."""
    clean = _blank_comments(text)
    pos = int(semicolon.end_pos or 0)
    while pos < len(clean) and clean[pos].isspace():
        pos += 1
    m = _IDENT.match(clean, pos)
    word = m.group(0) if m else clean[pos:pos + 1]
    second = _IDENT.match(clean[m.end():].lstrip()) if m else None
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    span = Span(path, line, col, line, col + max(1, len(word)))
    what = (f"'{word} {second.group(0)}' is no definition" if second is not None
            else f"unexpected '{word}'")
    return ParseError.at(
        span,
        f"{what}: a top-level item is a process definition 'Name(params) = process;', "
        "a declaration (var, hvar, channel, enum) or a directive (#define, #assert, "
        "#alphabet, #import, #include)",
    )


_TOKEN_WORDS = {
    "_END": "';'",
    "MACRO_OPEN": "'('",
    "METHOD_DOT": "'.'",
    "SEMICOLON": "';'",
    "NAME": "a name",
    "INT": "a number",
    "STRING": "a string",
    "LTL_TEXT": "an LTL formula",
    "FAIRNESS": "wf/sf/wl/sl",
    "DEFINE": "'#define'",
    "ASSERT": "'#assert'",
    "ALPHABET": "'#alphabet'",
    "INCLUDE": "'#include'",
    "IMPORT": "'#import'",
    "MINMAX": "'min' or 'max'",
    "WITH": "'with'",
    "REFINES": "'refines'",
    "REFMODEL": "'<F>' or '<FD>'",
    "$END": "end of file",
}


def _token_word(name: str) -> str:
    if name in _TOKEN_WORDS:
        return _TOKEN_WORDS[name]
    try:
        pattern = _parser().get_terminal(name).pattern
    except KeyError:
        return name
    value = pattern.value
    if pattern.type == "str":
        return f"'{value}'"
    return name.lower()


_FIRST_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\|\|\||\|\||->|<->|==|!=|<=|>=|&&|\S")


def _first_word(token: Token) -> str:
    """Return the text of the first real token of ``token`` (lark's error lexer may
    hand back a longer terminal, e.g. LTL text, where no terminal fits)."""
    value = str(token.value)
    if token.type in ("LTL_TEXT", "STRING") or len(value) > 1 and " " in value:
        m = _FIRST_WORD.match(value.lstrip())
        if m is not None:
            return m.group(0)
    return value


def _describe(token: Token) -> str:
    if token.type == "$END":
        return "end of file"
    if token.type == "_END" or token.value == END_MARK:
        return "';'"
    return f"'{_first_word(token)}'"


def expected_words(expected: set[str] | frozenset[str]) -> str:
    """Return the expected terminal names as readable words, sorted, deduplicated."""
    words = sorted({_token_word(name) for name in expected if name != "$END"})
    if len(words) > 12:
        words = words[:12] + ["..."]
    return ", ".join(words)


def _syntax_error(path: str, text: str, error: UnexpectedInput) -> ParseError:
    from bridge.frontends.csp.catalogue import hint_for

    line = getattr(error, "line", 1) or 1
    col = getattr(error, "column", 1) or 1
    expected: set[str] | frozenset[str] = getattr(error, "expected", None) or set()
    interactive = getattr(error, "interactive_parser", None)
    if interactive is not None:
        # LALR merges states, so lark's own list can be too wide; ask the parser
        # which terminals it would really accept here.
        try:
            expected = interactive.accepts()
        except Exception:  # noqa: BLE001 - the wider list is still correct
            pass
    if isinstance(error, UnexpectedToken) and _ends_item_before_junk(error, expected):
        # The ';' would end the item, but what follows starts no item ('process P =
        # {...}'): name what follows, not the ';'.
        return _junk_after_item(path, text, error.token)
    if isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "$END":
            lines = text.splitlines() or [""]
            line, col = len(lines), len(lines[-1]) + 1
            span = Span(path, line, col, line, col + 1)
        else:
            lead = len(str(token.value)) - len(str(token.value).lstrip())
            col += lead if "\n" not in str(token.value)[:lead] else 0
            span = Span(path, line, col, line, col + max(1, len(_first_word(token))))
        message = f"unexpected {_describe(token)}; expected {expected_words(expected)}"
    elif isinstance(error, UnexpectedCharacters):
        span = Span(path, line, col, line, col + 1)
        ch = text[error.pos_in_stream] if error.pos_in_stream < len(text) else "?"
        message = f"unexpected character {ch!r}"
        if error.allowed:
            message += f"; expected {expected_words(error.allowed)}"
    elif isinstance(error, UnexpectedEOF):
        lines = text.splitlines() or [""]
        span = Span(path, len(lines), len(lines[-1]) + 1)
        message = f"unexpected end of file; expected {expected_words(expected)}"
    else:  # pragma: no cover - lark has no other kinds
        span = Span(path, line, col)
        message = str(error)
    hint = hint_for(error, _parser(), text)
    notes = (hint,) if hint else ()
    return ParseError.at(span, message, *notes)


# ---------------------------------------------------------------------------------
# Tree -> syntax


def _span(path: str, meta: object) -> Span:
    if getattr(meta, "empty", True):
        return Span(path, 1, 1)
    return Span(
        path,
        meta.line,  # type: ignore[attr-defined]
        meta.column,  # type: ignore[attr-defined]
        meta.end_line,  # type: ignore[attr-defined]
        meta.end_column,  # type: ignore[attr-defined]
    )


def _tspan(path: str, token: Token) -> Span:
    end_col = token.end_column if token.end_line == token.line else token.column + len(token)
    return Span(path, token.line or 1, token.column or 1, token.line or 1, end_col or 1)


_BINOPS = {
    "or_": "||", "and_": "&&", "xor_": "xor", "bitand": "&", "bitor": "|", "bitxor": "^",
    "eq": "==", "ne": "!=", "lt": "<", "gt": ">", "le": "<=", "ge": ">=",
    "add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%",
}


class _Builder(Transformer_NonRecursive):
    """Turn lark's tree into ``syntax`` nodes (spans from ``propagate_positions``);
    iterative, so deeply nested prefixes do not hit Python's recursion limit."""

    def __init__(self, path: str, text: str) -> None:
        super().__init__(visit_tokens=False)
        self.path = path
        self.text = text

    def _sp(self, meta: object) -> Span:
        return _span(self.path, meta)

    def _source(self, meta: object) -> str:
        start = getattr(meta, "start_pos", None)
        end = getattr(meta, "end_pos", None)
        if start is None or end is None:
            return ""
        return " ".join(self.text[start:end].replace(END_MARK, ";").split())

    # -- expressions ----------------------------------------------------------------
    @v_args(meta=True)
    def int_lit(self, meta, children):
        return s.SInt(int(children[0]), self._sp(meta))

    @v_args(meta=True)
    def true_lit(self, meta, children):
        return s.SBool(True, self._sp(meta))

    @v_args(meta=True)
    def false_lit(self, meta, children):
        return s.SBool(False, self._sp(meta))

    @v_args(meta=True)
    def name(self, meta, children):
        return s.SName(str(children[0]), self._sp(meta))

    @v_args(meta=True)
    def index_expr(self, meta, children):
        return s.SIndex(children[0], children[1], self._sp(meta))

    @v_args(meta=True)
    def neg(self, meta, children):
        return s.SUnary("-", children[0], self._sp(meta))

    @v_args(meta=True)
    def not_(self, meta, children):
        return s.SUnary("!", children[0], self._sp(meta))

    @v_args(meta=True)
    def incr(self, meta, children):
        return s.SIncDec(children[0], 1, self._sp(meta))

    @v_args(meta=True)
    def decr(self, meta, children):
        return s.SIncDec(children[0], -1, self._sp(meta))

    @v_args(meta=True)
    def assign(self, meta, children):
        return s.SAssign(children[0], children[1], self._sp(meta))

    def _indexed_op(op: str):
        @v_args(meta=True)
        def build(self, meta, children):
            return s.SIndexedOp(op, children[0], children[1], self._sp(meta))

        return build

    indexed_and = _indexed_op("&&")
    indexed_or = _indexed_op("||")
    indexed_xor = _indexed_op("xor")

    @v_args(meta=True)
    def call(self, meta, children):
        return s.SCall(str(children[0]), tuple(children[1:]), self._sp(meta))

    @v_args(meta=True)
    def method_call(self, meta, children):
        target, _dot, name, *args = children
        return s.SMethodCall(target, str(name), tuple(a for a in args if a is not None),
                             self._sp(meta))

    @v_args(meta=True)
    def new_object(self, meta, children):
        name, *args = children
        return s.SNew(str(name), tuple(a for a in args if a is not None), self._sp(meta))

    # -- statements -------------------------------------------------------------------
    @v_args(meta=True)
    def block(self, meta, children):
        *stmts, last = children
        items = [c for c in stmts if c is not None]
        if last is not None:
            items.append(s.SExprStmt(last, last.span))
        return s.SBlock(tuple(items), self._sp(meta))

    @v_args(meta=True)
    def expr_stmt(self, meta, children):
        return s.SExprStmt(children[0], self._sp(meta))

    @v_args(meta=True)
    def empty_stmt(self, meta, children):
        return None

    @v_args(meta=True)
    def local_var(self, meta, children):
        name = str(children[0])
        dims: tuple = ()
        init = None
        for c in children[1:]:
            if isinstance(c, Tree) and c.data == "dims":
                dims = tuple(c.children)
            elif c is not None:
                init = c
        return s.SLocalVar(name, dims, init, self._sp(meta))

    @v_args(meta=True)
    def if_stmt(self, meta, children):
        cond, then, *rest = children
        otherwise = rest[0] if rest else None
        return s.SIf(cond, _as_stmt(then), _as_stmt(otherwise), self._sp(meta))

    @v_args(meta=True)
    def while_stmt(self, meta, children):
        return s.SWhile(children[0], _as_stmt(children[1]), self._sp(meta))

    # -- array literals ---------------------------------------------------------------
    @v_args(meta=True)
    def array_lit(self, meta, children):
        return s.ArrayLit(tuple(children), self._sp(meta))

    @v_args(meta=True)
    def elem_single(self, meta, children):
        return s.ArrayElem("single", children[0], None, self._sp(meta))

    @v_args(meta=True)
    def elem_repeat(self, meta, children):
        return s.ArrayElem("repeat", children[0], children[1], self._sp(meta))

    @v_args(meta=True)
    def elem_range(self, meta, children):
        return s.ArrayElem("range", children[0], children[1], self._sp(meta))

    @v_args(meta=True)
    def elem_nested(self, meta, children):
        return s.ArrayElem("nested", children[0], None, self._sp(meta))

    # -- events and indices -----------------------------------------------------------
    @v_args(meta=True)
    def tau_event(self, meta, children):
        return s.SEvent("tau", (), self._sp(meta))

    @v_args(meta=True)
    def named_event(self, meta, children):
        return s.SEvent(str(children[0]), tuple(children[1:]), self._sp(meta))

    @v_args(meta=True)
    def ivar_range(self, meta, children):
        return s.IndexVar(str(children[0]), children[1], children[2], None, self._sp(meta))

    @v_args(meta=True)
    def ivar_set(self, meta, children):
        return s.IndexVar(str(children[0]), None, None, tuple(children[1:]), self._sp(meta))

    def ivars(self, children):
        return tuple(children)

    @v_args(meta=True)
    def index_vars(self, meta, children):
        return s.Index(variables=children[0], span=self._sp(meta))

    @v_args(meta=True)
    def index_count(self, meta, children):
        return s.Index(count=children[0], span=self._sp(meta))

    @v_args(meta=True)
    def index_unbounded(self, meta, children):
        return s.Index(unbounded=True, span=self._sp(meta))

    @v_args(meta=True)
    def alpha_event(self, meta, children):
        return s.AlphaItem(children[0], (), self._sp(meta))

    @v_args(meta=True)
    def alpha_indexed(self, meta, children):
        return s.AlphaItem(children[1], children[0], self._sp(meta))

    # -- processes --------------------------------------------------------------------
    @v_args(meta=True)
    def skip(self, meta, children):
        return s.Skip(self._sp(meta))

    @v_args(meta=True)
    def stop(self, meta, children):
        return s.Stop(self._sp(meta))

    @v_args(meta=True)
    def proc_ref(self, meta, children):
        name = str(children[0])
        args = tuple(c for c in children[1:] if c is not None)
        source = self._source(meta)
        return s.ProcRef(self._sp(meta), name, args, "(" in source)

    @v_args(meta=True)
    def event_prefix(self, meta, children):
        event, block, body = children
        return s.EventPrefix(self._sp(meta), event, block, body)

    @v_args(meta=True)
    def block_prefix(self, meta, children):
        block, body = children
        return s.EventPrefix(self._sp(meta), s.SEvent("tau", (), block.span), block, body)

    @v_args(meta=True)
    def fair_prefix(self, meta, children):
        mark, event, body = children
        return s.EventPrefix(self._sp(meta), event, None, body, fairness=str(mark))

    @v_args(meta=True)
    def event_list_prefix(self, meta, children):
        *events, body = children
        span = self._sp(meta)
        return s.Binary(span, "[]", tuple(s.EventPrefix(span, ev, None, body) for ev in events))

    @v_args(meta=True)
    def send_prefix(self, meta, children):
        name, index, fields, block, body = children
        return s.SendPrefix(
            self._sp(meta), str(name), fields, block, body, _tspan(self.path, name), index
        )

    @v_args(meta=True)
    def recv_prefix(self, meta, children):
        name, index, guard, fields, block, body = children
        return s.RecvPrefix(
            self._sp(meta), str(name), guard, fields, block, body, _tspan(self.path, name),
            index,
        )

    def recv_guard(self, children):
        return children[0]

    def chan_index(self, children):
        return children[0]

    def fields(self, children):
        return tuple(children)

    @v_args(meta=True)
    def guard(self, meta, children):
        return s.Guard(self._sp(meta), children[0], children[1])

    def _nary(op: str):
        @v_args(meta=True)
        def build(self, meta, children):
            return s.Binary(self._sp(meta), op, tuple(children))

        return build

    interleave = _nary("|||")
    parallel = _nary("||")
    gchoice = _nary("[]")
    ichoice = _nary("<>")
    xchoice = _nary("[*]")
    interrupt = _nary("interrupt")
    sequence = _nary(";")

    def _indexed(op: str):
        @v_args(meta=True)
        def build(self, meta, children):
            return s.Indexed(self._sp(meta), op, children[0], children[1])

        return build

    indexed_interleave = _indexed("|||")
    indexed_parallel = _indexed("||")
    indexed_gchoice = _indexed("[]")
    indexed_ichoice = _indexed("<>")
    indexed_xchoice = _indexed("[*]")

    @v_args(meta=True)
    def hiding(self, meta, children):
        body, *items = children
        return s.Hiding(self._sp(meta), body, tuple(i for i in items if i is not None))

    @v_args(meta=True)
    def atomic(self, meta, children):
        return s.Atomic(self._sp(meta), children[0])

    def _if(kind: str):
        @v_args(meta=True)
        def build(self, meta, children):
            cond, then, *rest = children
            otherwise = rest[0] if rest else None
            return s.IfProc(self._sp(meta), kind, cond, then, otherwise)

        return build

    if_proc = _if("if")
    ifa_proc = _if("ifa")
    ifb = _if("ifb")

    @v_args(meta=True)
    def case(self, meta, children):
        branches = tuple(c for c in children if isinstance(c, tuple))
        default = next((c for c in children if isinstance(c, s.Term)), None)
        return s.Case(self._sp(meta), branches, default)

    def case_branch(self, children):
        return (children[0], children[1])

    def case_default(self, children):
        return children[0]


def _binop(op: str):
    @v_args(meta=True)
    def build(self, meta, children):
        return s.SBinary(op, children[0], children[1], self._sp(meta))

    return build


for _rule, _op in _BINOPS.items():
    setattr(_Builder, _rule, _binop(_op))


def _as_stmt(node: object) -> s.SStmt | None:
    if node is None:
        return None
    return node  # type: ignore[return-value]


def _tok(tree: Tree, kind: str) -> Token | None:
    for c in tree.children:
        if isinstance(c, Token) and c.type == kind:
            return c
    return None


# ---------------------------------------------------------------------------------
# Top level


def _collect(program: s.Program, path: str, text: str, tree: Tree, seen: set[str]) -> None:
    builder = _Builder(path, text)
    for item in tree.children:
        if not isinstance(item, Tree):
            continue
        meta = item.meta
        span = _span(path, meta)
        kind = item.data
        if kind in ("define_expr", "define_block"):
            name_tok = item.children[1]
            body = builder.transform(item.children[2])
            program.defines.append(
                s.Define(
                    str(name_tok),
                    body if kind == "define_expr" else None,
                    body if kind == "define_block" else None,
                    span,
                    _tspan(path, name_tok),
                )
            )
        elif kind == "define_if":
            # ``#define d if (c) {e1} else {e2};`` (PAT 3.4.1: macros with if and
            # while): a block macro; used as a value it is the branch's expression.
            name_tok = item.children[1]
            cond, then, otherwise = (builder.transform(c) if isinstance(c, Tree) else c
                                     for c in item.children[2].children)
            stmt = s.SIf(cond, then, otherwise, _span(path, item.children[2].meta))
            program.defines.append(
                s.Define(str(name_tok), None, s.SBlock((stmt,), stmt.span), span,
                         _tspan(path, name_tok))
            )
        elif kind == "define_macro":
            name_tok = item.children[1]
            params_tree = item.children[3]
            params = tuple(str(p) for p in params_tree.children if p is not None)
            body = builder.transform(item.children[4])
            is_block = isinstance(body, s.SBlock)
            program.defines.append(
                s.Define(
                    str(name_tok), None if is_block else body, body if is_block else None,
                    span, _tspan(path, name_tok), params,
                )
            )
        elif kind == "enum_decl":
            names = tuple(
                (str(t), _tspan(path, t)) for t in item.children if isinstance(t, Token)
                and t.type == "NAME"
            )
            program.enums.append(s.EnumDecl(names, span))
        elif kind == "var_decl":
            program.variables.append(_var_decl(builder, path, item, span))
        elif kind == "channel_decl":
            name_tok = item.children[0]
            rest = [builder.transform(c) if isinstance(c, Tree) else c for c in item.children[1:]]
            rest = [r for r in rest if not (isinstance(r, Token) and r.type == "END")]
            size, capacity = rest[0], rest[1]
            if isinstance(size, Token):
                size = None
            program.channels.append(
                s.ChannelDecl(str(name_tok), size, capacity, span, _tspan(path, name_tok))
            )
        elif kind == "proc_def":
            name_tok = item.children[0]
            params: tuple[s.Param, ...] = ()
            body_tree = None
            for c in item.children[1:]:
                if isinstance(c, Tree) and c.data == "params":
                    params = tuple(
                        s.Param(str(p.children[0]), _tspan(path, p.children[0]))
                        for p in c.children
                        if p is not None
                    )
                elif isinstance(c, Tree) or isinstance(c, Token) and c.type == "NAME":
                    body_tree = c
            body = builder.transform(body_tree) if isinstance(body_tree, Tree) else (
                s.ProcRef(_tspan(path, body_tree), str(body_tree), (), False)
            )
            program.processes.append(
                s.ProcDef(str(name_tok), params, body, span, _tspan(path, name_tok))
            )
        elif kind == "assertion":
            program.assertions.append(_assertion(builder, path, text, item, span))
        elif kind == "alphabet_decl":
            name_tok = item.children[1]
            items = tuple(
                builder.transform(c) for c in item.children[2:] if isinstance(c, Tree)
            )
            program.alphabets.append(s.AlphabetDecl(str(name_tok), items, span))
        elif kind == "include":
            string_tok = _tok(item, "STRING")
            assert string_tok is not None
            rel = str(string_tok)[1:-1]
            target = Path(path).parent / rel
            if not target.exists() and "\\" in rel and not _WINDOWS_PATH.match(rel):
                # PAT is a Windows program: '..\\world.csp' is 'world.csp' one folder up.
                target = Path(path).parent / rel.replace("\\", "/")
            if not target.exists() and _WINDOWS_PATH.match(rel):
                # PAT on Windows resolves 'C:\\Users\\...\\lib.csp' where the model was
                # written; elsewhere the file is the one of that name beside this one.
                beside = Path(path).parent / re.split(r"[\\/]", rel)[-1]
                if beside.exists():
                    target = beside
            key = str(target.resolve()) if target.exists() else str(target)
            if key in program.included:
                continue  # PAT reads a file once, however often (or circularly) included
            program.included.add(key)
            try:
                inc_text = target.read_text(encoding="utf-8")
            except OSError as exc:
                raise ParseError.at(
                    _tspan(path, string_tok), f"cannot read included file {rel!r}: {exc.strerror}"
                ) from None
            _parse_into(program, str(target), inc_text, seen | {key})
        elif kind == "import_decl":
            string_tok = _tok(item, "STRING")
            assert string_tok is not None
            program.imports.append((str(string_tok)[1:-1], _tspan(path, string_tok)))


def _var_decl(builder: _Builder, path: str, item: Tree, span: Span) -> s.VarDecl:
    kind_tree, type_tree, name_tok, dims_tree, range_tree, init_tree = item.children[:6]
    object_type = str(type_tree.children[0]) if isinstance(type_tree, Tree) else None
    hidden = isinstance(kind_tree, Tree) and kind_tree.data == "hidden_var"
    dims = tuple(builder.transform(c) for c in dims_tree.children) if dims_tree else ()
    rng = None
    if range_tree is not None:
        lo, hi = range_tree.children
        rng = (
            builder.transform(lo) if isinstance(lo, Tree) else None,
            builder.transform(hi) if isinstance(hi, Tree) else None,
        )
    init = None
    wildcard = False
    if init_tree is not None:
        if isinstance(init_tree, Tree) and init_tree.data == "wildcard_init":
            wildcard = True
        else:
            init = builder.transform(init_tree)
    return s.VarDecl(
        str(name_tok), hidden, dims, rng, init, wildcard, span, _tspan(path, name_tok),
        object_type,
    )


def _assertion(builder: _Builder, path: str, text: str, item: Tree, span: Span) -> s.Assertion:
    target_tree = item.children[1]
    kind_tree = item.children[2]
    name_tok = target_tree.children[0]
    args = tuple(builder.transform(c) for c in target_tree.children[1:] if c is not None)
    target = s.Target(str(name_tok), args, _span(path, target_tree.meta))
    source = builder._source(item.meta).rstrip(";").strip()
    kind = kind_tree.data
    if kind == "reaches":
        prop_tok = kind_tree.children[0]
        optimise = None
        if len(kind_tree.children) > 1 and kind_tree.children[1] is not None:
            optimise = (str(kind_tree.children[2]), builder.transform(kind_tree.children[3]))
        return s.Assertion(
            target, "reaches", span, str(prop_tok), _tspan(path, prop_tok), optimise,
            text=source,
        )
    if kind == "ltl":
        tok = kind_tree.children[0]
        return s.Assertion(
            target, "ltl", span, ltl_text=str(tok), ltl_span=_tspan(path, tok), text=source
        )
    if kind == "refines":
        model = ""
        spec_tree = kind_tree.children[-1]
        for child in kind_tree.children:
            if isinstance(child, Token) and child.type == "REFMODEL":
                model = str(child).strip("<>")
        spec_name = spec_tree.children[0]
        spec_args = tuple(builder.transform(c) for c in spec_tree.children[1:] if c is not None)
        spec = s.Target(str(spec_name), spec_args, _span(path, spec_tree.meta))
        return s.Assertion(target, kind, span, text=source, spec=spec, refinement=model)
    return s.Assertion(target, kind, span, text=source)


def _parse_into(program: s.Program, path: str, text: str, seen: set[str]) -> None:
    # PAT's Windows editor saves a UTF-8 byte-order mark; PAT reads past it (so do
    # editors: columns on the first line do not count it).
    text = text.removeprefix(BOM)
    program.sources[path] = text
    _check_unsupported(path, text)
    marked = mark_item_ends(text)
    try:
        tree = _parser().parse(marked)
    except UnexpectedInput as error:
        raise _syntax_error(path, text, error) from None
    _collect(program, path, text, tree, seen)


def parse_csp(path: str, text: str | None = None) -> s.Program:
    """Return the parsed program of ``path`` (``text`` given: parse it instead of
    reading the file), with ``#include``s merged in.

    Raises ``ParseError`` (bad syntax) or ``UnsupportedError`` (constructs of other PAT
    modules), each with a span.
    """
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ParseError.at(None, f"cannot read {path}: {exc.strerror}") from None
    program = s.Program(path)
    key = str(Path(path).resolve()) if Path(path).exists() else path
    program.included.add(key)
    _parse_into(program, path, text, {key})
    # PAT numbers the main file's assertions first, then those of the included files
    # (in the order the files are read), whatever the position of the #include.
    main = [a for a in program.assertions if a.span.file == path]
    program.assertions[:] = main + [a for a in program.assertions if a.span.file != path]
    return program


@cache
def _expr_parser() -> Lark:
    return frontends.lalr_parser(grammar_path("csp.lark").read_text(encoding="utf-8"),
                                 lexer="contextual", start="expr")


def parse_expression(text: str, span: Span) -> s.SExpr:
    """Return the syntax of a standalone expression (LTL event components); positions
    are reported at ``span``."""
    try:
        tree = _expr_parser().parse(text)
    except UnexpectedInput:
        raise ParseError.at(span, f"malformed expression {text!r}") from None
    result = _Builder(span.file, text).transform(tree)
    return result
