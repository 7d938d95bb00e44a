"""Return the IR LTL formula of a SPIN inline ``ltl { }`` block (promela-spin.md 10).

The parser (grammars/promela.lark) reads the formula with SPIN's precedences (loosest
first): ``-> <->`` < ``||`` < ``&&`` < ``[] <>`` < ``U W V`` < ``X`` < Promela
comparison and arithmetic; ``!`` binds tightest. ``/\\`` and ``\\/`` are ``&&`` and
``||``; the word forms (``always``, ``eventually``, ``until``, ``stronguntil``,
``weakuntil``, ``release``, ``next``, ``implies``, ``equivalent``) are accepted.
``V`` (release) becomes ``R``. Boolean connectives stay LTL operators; every maximal
sub-expression without them (a comparison, a variable, a remote reference ``P[0]@L``,
``_last``, ``np_``...) becomes an ``LtlState`` atom whose text is the source text (after
``#define`` expansion, which the preprocessor already did, as SPIN's cpp does).
``true``/``false`` become ``LtlConst``. The channel predicates ``empty``/``nempty``/
``full``/``nfull`` are rejected, as SPIN rejects them inside ``ltl`` (use ``len``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lark import Token, Tree

from bridge.ir import Ltl, LtlBinary, LtlConst, LtlState, LtlUnary

if TYPE_CHECKING:  # pragma: no cover
    from bridge.frontends.promela.lower import _Lowering

_UNARY = {"ALWAYS": "G", "EVENTUALLY": "F", "NEXT": "X"}
_BINARY = {"IMPLIES": "->", "EQUIV": "<->", "UNTIL": "U", "WUNTIL": "W", "RELEASE": "R"}


def lower_ltl(lowering: _Lowering, tree: Tree) -> Ltl:
    """Return the LTL AST of the formula ``tree`` (an expression tree of the grammar).

    Iterative over the formula tree, so deep formulas cannot hit the recursion limit
    of Python (atoms are lowered by the expression lowering of ``lower.py``).
    """
    # Post-order walk with an explicit stack: (node, visited-children?).
    results: dict[int, Ltl] = {}
    stack: list[tuple[Tree, bool]] = [(tree, False)]
    while stack:
        node, done = stack.pop()
        kids = _formula_children(node)
        if kids is None:
            results[id(node)] = _atom(lowering, node)
            continue
        if not done:
            stack.append((node, True))
            stack.extend((k, False) for k in kids)
            continue
        results[id(node)] = _combine(lowering, node, [results[id(k)] for k in kids])
    return results[id(tree)]


def _formula_children(node: Tree) -> list[Tree] | None:
    """Return the LTL-level operands of ``node``, or None if it is an atom."""
    d = node.data
    if d in ("ltl_binary",):
        return [node.children[0], node.children[2]]
    if d == "ltl_unary":
        return [node.children[1]]
    if d == "ltl_not_unary":
        return [node.children[2]]
    if d == "binary" and node.children[1].type in ("ANDAND", "OROR") and _temporal(node):
        return [node.children[0], node.children[2]]
    if d == "unop" and node.children[0].type == "BANG" and _temporal(node):
        return [node.children[1]]
    if d in ("true", "false"):
        return None
    return None


def _temporal(node: Tree) -> bool:
    """Return True if ``node`` contains a temporal operator (keep its boolean
    structure in LTL); purely propositional subtrees become one atom."""
    return any(t.data in ("ltl_binary", "ltl_unary", "ltl_not_unary") for t in node.iter_subtrees())


def _combine(lowering: _Lowering, node: Tree, parts: list[Ltl]) -> Ltl:
    span = lowering.span(node)
    d = node.data
    if d == "ltl_binary":
        return LtlBinary(_BINARY[node.children[1].type], parts[0], parts[1], span)
    if d == "ltl_unary":
        return LtlUnary(_UNARY[node.children[0].type], parts[0], span)
    if d == "ltl_not_unary":
        inner = LtlUnary(_UNARY[node.children[1].type], parts[0], span)
        return LtlUnary("!", inner, span)
    if d == "binary":
        op = "&&" if node.children[1].type == "ANDAND" else "||"
        return LtlBinary(op, parts[0], parts[1], span)
    if d == "unop":
        return LtlUnary("!", parts[0], span)
    raise lowering.error(node, f"unexpected ltl node {d}")  # pragma: no cover


def _atom(lowering: _Lowering, node: Tree) -> Ltl:
    span = lowering.span(node)
    if node.data == "true":
        return LtlConst(True, span)
    if node.data == "false":
        return LtlConst(False, span)
    for t in node.iter_subtrees():
        if t.data == "chan_pred":
            op = t.children[0]
            raise lowering.error(
                op if isinstance(op, Token) else t,
                f"'{op}' is not allowed in an ltl formula (SPIN rejects it)",
                "use len(q) == 0 / len(q) > 0 instead",
            )
    expr = lowering.expr(node)
    text = lowering.text(node, 10_000).replace("/\\", "&&").replace("\\/", "||")
    return LtlState(expr, text, span)
