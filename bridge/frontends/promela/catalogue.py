"""Return hints for known Promela mistakes; the catalogue doubles as the error-test table.

``hint_for`` looks at the token the parser stopped at and its neighbours (STYLE.md
section 5: classify errors by example). ``CATALOGUE`` lists bad snippets with the line,
column and message fragment bridge must report; ``tests/errors/test_promela_errors.py``
runs every row, so a hint that stops firing fails a test.
"""

from __future__ import annotations

from dataclasses import dataclass

from lark import Token
from lark.exceptions import UnexpectedToken

from bridge.frontends.promela.preprocess import Preprocessed

_CHAN_PREDICATES = frozenset({"FULL", "NFULL", "EMPTY", "NEMPTY"})


def _previous_token(pre: Preprocessed, tok: Token) -> str:
    """Return the source text just before ``tok`` on its line (for cheap lookbehind)."""
    lines = pre.text.split("\n")
    if tok.line is None or not 1 <= tok.line <= len(lines):
        return ""
    return lines[tok.line - 1][: tok.column - 1].rstrip()


def hint_for(exc: UnexpectedToken, tok: Token, pre: Preprocessed) -> str | None:
    """Return a hint for the syntax error at ``tok``, or None."""
    before = _previous_token(pre, tok)
    expected = set(exc.expected)
    if tok.type == "SEP" and "SEP" not in expected:
        return "'::' starts an option and is only allowed directly inside if...fi or do...od"
    if tok.type == "NAME" and before.endswith("0") and str(tok.value).startswith(("x", "X")):
        return "Promela numbers are decimal only (0x.. is not accepted by SPIN)"
    if tok.type in _CHAN_PREDICATES and before.endswith("!"):
        return "full/empty/nfull/nempty cannot be negated in SPIN: use nfull/nempty/full/empty"
    if tok.type in ("FI", "OD") and "SEP" in expected:
        return f"'{tok.value}' needs at least one option (':: statement') before it"
    if tok.type == "NAME" and "SEMI" in expected and before and not before.endswith((";", "{")):
        return "missing ';' between two statements?"
    if tok.type in ("ELSE",) and "SEP" in expected:
        return "'else' must start an option: ':: else -> ...'"
    if tok.type == "$END":
        return "a '}', 'fi' or 'od' is probably missing"
    if tok.type == "RBRACE" and "FI" in expected:
        return "'if' is closed with 'fi'"
    if tok.type == "RBRACE" and "OD" in expected:
        return "'do' is closed with 'od'"
    return None


@dataclass(frozen=True)
class BadInput:
    """One bad Promela snippet: the error class name, ``line:col`` and a message part."""

    name: str
    source: str
    error: str  # "ParseError", "SemanticError" or "UnsupportedError"
    line: int
    col: int
    fragment: str


CATALOGUE: tuple[BadInput, ...] = (
    BadInput("missing_fi", "active proctype P() {\n  if\n  :: skip\n}\n", "ParseError", 4, 1, "unexpected '}'"),
    BadInput("missing_od", "active proctype P() {\n  do\n  :: break\n}\n", "ParseError", 4, 1, "unexpected '}'"),
    BadInput("sep_outside_if", "active proctype P() {\n  :: skip\n}\n", "ParseError", 2, 3, "'::'"),
    BadInput("hex_number", "byte x = 0x10;\nactive proctype P() { skip }\n", "ParseError", 1, 11, "decimal"),
    BadInput("negated_full", "chan q = [1] of { byte };\nactive proctype P() {\n  !full(q)\n}\n", "ParseError", 3, 3, "negated"),
    BadInput("empty_if", "active proctype P() {\n  if\n  fi\n}\n", "ParseError", 3, 3, "option"),
    BadInput("unclosed_body", "active proctype P() {\n  skip\n", "ParseError", 2, 7, "end of input"),
    BadInput("bad_char", "active proctype P() {\n  x = $\n}\n", "ParseError", 2, 7, "unexpected character"),
    BadInput("two_statements", "byte x;\nactive proctype P() {\n  x = 1 x = 2\n}\n", "ParseError", 3, 9, "missing ';'"),
    BadInput("undeclared", "active proctype P() {\n  y = 1\n}\n", "SemanticError", 2, 3, "undeclared variable 'y'"),
    BadInput("undeclared_in_expr", "byte x;\nactive proctype P() {\n  x = zz + 1\n}\n", "SemanticError", 3, 7, "undeclared variable 'zz'"),
    BadInput("unknown_label", "active proctype P() {\n  goto nowhere\n}\n", "SemanticError", 2, 8, "label 'nowhere'"),
    BadInput("duplicate_label", "active proctype P() {\nL: skip;\nL: skip\n}\n", "SemanticError", 3, 1, "duplicate label 'L'"),
    BadInput("break_outside_do", "active proctype P() {\n  break\n}\n", "SemanticError", 2, 3, "break"),
    BadInput("unknown_proctype", "init {\n  run Q()\n}\n", "SemanticError", 2, 7, "Q"),
    BadInput("run_arity", "proctype Q(byte a) { skip }\ninit {\n  run Q(1, 2)\n}\n", "SemanticError", 3, 3, "argument"),
    BadInput("c_code", "active proctype P() {\n  c_code { x++; }\n}\n", "UnsupportedError", 2, 3, "embedded C"),
    BadInput("c_decl_top", "c_decl { int x; }\nactive proctype P() { skip }\n", "UnsupportedError", 1, 1, "embedded C"),
    BadInput("priority", "active proctype P() priority 0 {\n  skip\n}\n", "SemanticError", 1, 30, "priority"),
    BadInput("unsigned_width", "unsigned x : 32;\nactive proctype P() { skip }\n", "SemanticError", 1, 14, "width"),
    BadInput("duplicate_variable", "byte x;\nbyte x;\nactive proctype P() { skip }\n", "SemanticError", 2, 6, "already declared"),
    BadInput("duplicate_proctype", "proctype P() { skip }\nproctype P() { skip }\ninit { skip }\n", "SemanticError", 2, 10, "already declared"),
    BadInput("unknown_mtype_constant", "mtype = { a, b };\nmtype m = c;\nactive proctype P() { skip }\n", "SemanticError", 2, 11, "undeclared"),
    BadInput("send_arity", "chan q = [1] of { byte, byte };\nactive proctype P() {\n  q!1,2,3\n}\n", "SemanticError", 3, 3, "2 fields"),
    BadInput("receive_value_past_fields", "chan q = [1] of { byte };\nbyte a;\nactive proctype P() {\n  q?a,5\n}\n", "UnsupportedError", 4, 3, "past the last field"),
    BadInput("array_size_not_constant", "byte n;\nbyte a[n + 1];\nactive proctype P() { skip }\n", "SemanticError", 2, 8, "constant"),
    BadInput("inline_arity", "inline f(a) { a = 1 }\nbyte x;\nactive proctype P() {\n  f(x, x)\n}\n", "SemanticError", 4, 3, "argument"),
    BadInput("pid_as_name", "active proctype P() {\n  byte pid;\n  skip\n}\n", "ParseError", 2, 8, "unexpected"),
    BadInput("ltl_chan_predicate", "chan q = [1] of { byte };\nactive proctype P() { q!1 }\nltl p { [] empty(q) }\n", "SemanticError", 3, 12, "ltl"),
    BadInput("ltl_undeclared", "byte x;\nactive proctype P() { x = 1 }\nltl p { <> (y == 1) }\n", "SemanticError", 3, 13, "undeclared variable 'y'"),
    BadInput("else_twice", "byte x;\nactive proctype P() {\n  if\n  :: else -> skip\n  :: else -> x = 1\n  fi\n}\n", "SemanticError", 5, 6, "else"),
    BadInput("missing_include", '#include "nowhere.h"\nactive proctype P() { skip }\n', "ParseError", 1, 1, "not found"),
    BadInput("assign_to_constant", "mtype = { a };\nactive proctype P() {\n  a = 1\n}\n", "SemanticError", 3, 3, "cannot assign"),
    BadInput("remote_unknown_label", "active proctype P() { L: skip }\nltl p { [] P@M }\n", "SemanticError", 2, 14, "label 'M'"),
    BadInput("trace_not_an_event", "chan q = [1] of { byte };\nactive proctype P() { q!1 }\ntrace {\n  q!1;\n  skip\n}\n", "UnsupportedError", 3, 1, "not an event"),
    BadInput("hidden_local", "active proctype P() {\n  hidden byte x;\n  skip\n}\n", "SemanticError", 2, 3, "hidden"),
    # SPIN accepts these two; pan's value of timeout there depends on its build (m111)
    BadInput("timeout_read_after_timeout_step", "byte x, y;\nactive proctype P() {\n  atomic { timeout -> y = 1; if :: y == 1 -> x = timeout :: else fi }\n}\n", "UnsupportedError", 3, 50, "after a step that a timeout guard enabled"),
    BadInput("timeout_in_message", "chan q = [0] of { bool };\nactive proctype P() {\n  q!timeout\n}\nactive proctype Q() {\n  q?1\n}\n", "UnsupportedError", 3, 5, "'timeout' in a message"),
    # spin -a refuses these (bridge accepted them)
    BadInput("no_runnable_process", "byte x;\nproctype P() {\n  x = 1\n}\n", "SemanticError", 2, 10, "no runnable process"),
    BadInput("select_array_element", "byte arr[3];\nactive proctype P() {\n  select(arr[1] : 1 .. 3)\n}\n", "SemanticError", 3, 10, "bad index in for-construct arr"),
    BadInput("for_record_field", "typedef R { byte f };\nR r;\nactive proctype P() {\n  for (r.f : 1 .. 3) { skip }\n}\n", "SemanticError", 4, 8, "bad index in for-construct r"),
    BadInput("for_start_exceeds_end", "byte i;\nactive proctype P() {\n  for (i : 3 .. 1) { skip }\n}\n", "SemanticError", 3, 3, "start value for i exceeds end-value"),
)
