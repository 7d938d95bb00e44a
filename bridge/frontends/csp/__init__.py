"""The CSP# front-end: ``load_csp`` reads a PAT CSP-module file into the IR.

``parse.py`` (lark, ``grammars/csp.lark``) builds the syntax tree of ``syntax.py``;
``lower.py`` (with ``context``, ``expressions``, ``fold``, ``terms``,
``configurations``, ``steps``, ``leaf`` and ``system``: see its docstring) turns process
terms into control-flow graphs and assertions into properties; ``ltl.py`` parses PAT's LTL text; ``catalogue.py`` holds the known mistakes
and their hints. Reference: cspsharp.md.
"""

from __future__ import annotations

from bridge.ir import ModelFile


def load_csp(path: str, text: str | None = None) -> ModelFile:
    """Return the IR of the CSP# model at ``path`` (or of ``text``, named ``path``).

    One ``TransitionSystem`` per distinct ``#assert`` target. Raises ``ParseError``,
    ``SemanticError`` or ``UnsupportedError`` with a span on bad input.
    """
    import sys

    from bridge.diagnostics import SemanticError
    from bridge.frontends.csp.lower import lower_program
    from bridge.frontends.csp.parse import parse_csp

    # Expressions and process terms are walked recursively by their depth; allow deep
    # (machine-written) models, and report anything deeper as bad input.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        return lower_program(parse_csp(path, text))
    except RecursionError:
        raise SemanticError.at(
            None, f"{path}: the model is nested too deeply (expressions or process terms)"
        ) from None
    finally:
        sys.setrecursionlimit(limit)


__all__ = ["load_csp"]
