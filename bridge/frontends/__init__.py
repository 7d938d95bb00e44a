"""The front-ends (``csp``, ``promela``) and what they share: ``lalr_parser``."""

from __future__ import annotations

from typing import Any

__all__ = ["lalr_parser"]


def lalr_parser(grammar: str, **options: Any) -> Any:
    """Return lark's LALR(1) parser of ``grammar`` with positions on every tree node
    (``propagate_positions``, for the ``Span`` of each IR node), ``maybe_placeholders``
    and lark's cache of the parse tables (a file keyed by the grammar's hash: building
    the tables takes 0.3-2 s; parsing is never cached); ``options`` are lark's others
    (``lexer``, ``start``).

    The trees are lark's own, built faster: a rule inlined with ``?`` that matched one
    child hands that child up at once (``_pass_lone_children``).
    """
    from lark import Lark

    parser = Lark(grammar, parser="lalr", propagate_positions=True,
                  maybe_placeholders=True, cache=True, **options)
    _pass_lone_children(parser)
    return parser


def _pass_lone_children(parser: Any) -> None:
    """Let every ``?rule`` of ``parser`` that is reduced with a single child return
    that child without lark's position bookkeeping.

    lark wraps such a rule's callback as ``PropagatePositions(ExpandSingleChild(..))``:
    with one child the inner callback returns the child itself, whose positions are
    already set (``container_*`` along with ``line``, or none when it spans nothing), so
    the outer one only assigns them again. In machine-written models most reductions
    are of this kind (an operand climbs the twelve precedence levels of an expression):
    skipping them takes a quarter off parsing. Rules with several children, aliases or
    filtered tokens keep lark's callbacks. When this lark keeps its callbacks elsewhere
    nothing is changed (the parse is lark's, only slower); the trees and positions are
    the same either way (``tests/unit/frontends/test_lalr_parser.py``).
    """
    from lark.parse_tree_builder import ExpandSingleChild, PropagatePositions

    callbacks = getattr(parser, "_callbacks", None)
    if not isinstance(callbacks, dict):
        return
    for rule, callback in list(callbacks.items()):
        if isinstance(callback, PropagatePositions) and isinstance(
                getattr(callback, "node_builder", None), ExpandSingleChild):
            callbacks[rule] = _lone_child_first(callback)


def _lone_child_first(callback: Any) -> Any:
    def reduce(children: list[Any]) -> Any:
        if len(children) == 1:
            return children[0]
        return callback(children)

    return reduce
