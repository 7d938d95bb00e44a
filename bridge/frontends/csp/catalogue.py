"""Known CSP# mistakes with the hint to show for each (STYLE.md section 5).

``EXAMPLES`` maps a hint to bad snippets that exhibit it; ``hint_for`` classifies a lark
error by ``Lark.parse``-ing the snippets and comparing parser states (lark's
``match_examples``). The same table feeds ``tests/errors/test_csp_errors.py``.
"""

from __future__ import annotations

from functools import cache

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


@cache
def _hint_keys() -> tuple[str, ...]:
    return tuple(EXAMPLES)


def hint_for(error: UnexpectedInput, parser: Lark, text: str) -> str | None:
    """Return the catalogue hint whose examples fail like ``error``, or None."""
    from bridge.frontends.csp.parse import mark_item_ends

    examples = {hint: [mark_item_ends(x) for x in xs] for hint, xs in EXAMPLES.items()}
    try:
        return error.match_examples(parser.parse, examples, use_accepts=True)
    except Exception:  # noqa: BLE001 - a hint is optional; never mask the real error
        return None
