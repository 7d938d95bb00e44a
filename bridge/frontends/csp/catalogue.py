"""Known CSP# mistakes with the hint to show for each (STYLE.md section 5).

``EXAMPLES`` maps a hint to bad snippets that exhibit it; ``hint_for`` classifies a lark
error by ``Lark.parse``-ing the snippets and comparing parser states (lark's
``match_examples``). The same table feeds ``tests/errors/test_csp_errors.py``.
"""

from __future__ import annotations

from lark import Lark
from lark.exceptions import UnexpectedInput

EXAMPLES: dict[str, list[str]] = {
    "a definition or declaration must end with ';' (is one missing on the line before?)": [
        "P = a -> Skip\nQ = b -> Skip;",
        "var x = 0\nvar y = 1;",
        "#define N 3\n#define M 4;",
        "channel c 0\nP = c!1 -> Skip;",
        "P = a -> P()\n#assert P deadlockfree;",
        "var x = 0\nP = a -> Skip;",
        "#define N 3\nP = a -> Skip;",
    ],
    "an event prefix is written 'event -> Process' (with '->', not '=' or '-')": [
        "P = a = Skip;",
        "P = a - Skip;",
        "P = a > Skip;",
    ],
    "a process definition is written 'Name(params) = process;' ('=', not '->')": [
        "P -> a -> Skip;",
        "P() -> a -> Skip;",
    ],
    "statements inside an event block end with ';'": [
        "P = a{x = 1 y = 2} -> Skip;",
        "P = a{x = 1 y = 2;} -> Skip;",
    ],
    "a guard after '->' must be parenthesised: 'a -> ([cond] b -> P)'": [
        "P = a -> [x > 0] b -> Skip;",
    ],
    "'case' entries are 'condition : process' (a ':' is missing)": [
        "P = case { x > 0 a -> Skip };",
    ],
    "an indexed operator needs '@' before its body: '||| i:{0..N-1} @ P(i)'": [
        "P = ||| i:{0..2} Q(i);",
        "P = || i:{0..2} Q(i);",
        "P = [] i:{0..2} Q(i);",
    ],
}


def _signature(error: UnexpectedInput) -> tuple[tuple[int, ...], str, str] | None:
    """Return the top of the LALR state stack (which tells apart contexts that LALR
    merges into one state, e.g. after a number in a block or in a declaration), the
    current state, and the offending token kind."""
    state = getattr(error, "state", None)
    stack = getattr(state, "state_stack", None)
    if not stack:
        return None
    token = getattr(error, "token", None)
    return tuple(stack[-4:]), "", getattr(token, "type", "")


def hint_for(error: UnexpectedInput, parser: Lark, text: str) -> str | None:
    """Return the catalogue hint whose examples fail like ``error``, or None.

    Like lark's ``match_examples``: an example matches when it fails in the same parser
    state expecting the same tokens; one that also fails on the same kind of token is
    preferred. (lark's own ``match_examples`` breaks with the contextual lexer.)
    """
    from bridge.frontends.csp.parse import mark_item_ends

    wanted = _signature(error)
    if wanted is None:
        return None
    candidate: str | None = None
    for hint, snippets in EXAMPLES.items():
        for snippet in snippets:
            try:
                parser.parse(mark_item_ends(snippet))
            except UnexpectedInput as other:
                got = _signature(other)
                if got == wanted:
                    return hint
                if got is not None and got[:2] == wanted[:2] and candidate is None:
                    candidate = hint
    return candidate
