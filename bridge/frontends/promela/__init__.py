"""The Promela front-end: ``load_promela`` reads a ``.pml`` file into the IR.

Pipeline: ``preprocess`` (pcpp, like SPIN's ``gcc -E``) -> ``parse_promela`` (lark,
grammars/promela.lark, SPIN's lexical rules) -> ``lower_program`` (tree -> IR), with the
LTL blocks translated by ``ltl.py``. Errors are ``SourceError``s with ``file:line:col``.
"""

from __future__ import annotations

from collections.abc import Mapping

from bridge.ir import ModelFile

__all__ = ["load_promela"]


def load_promela(
    path: str, text: str | None = None, defines: Mapping[str, str] | None = None
) -> ModelFile:
    """Return the model in Promela file ``path`` (or ``text`` given for it) as IR.

    ``defines`` are ``-D NAME[=VALUE]`` macros (value ``""`` means 1). The model has
    exactly one ``TransitionSystem``; its properties are one LTL property per ``ltl``
    block (numbered 1.. in file order) then ``safety`` (assertions and invalid end
    states). Raises ``ParseError``,
    ``SemanticError`` or ``UnsupportedError`` (all ``SourceError``) on bad input.
    """
    from bridge.frontends.promela.lower import lower_program
    from bridge.frontends.promela.parse import parse_promela
    from bridge.frontends.promela.preprocess import preprocess

    pre = preprocess(path, text, defines)
    tree = parse_promela(pre)
    system = lower_program(tree, pre, path)
    return ModelFile(path, (system,))
