"""``bridge.frontends.lalr_parser``: lark's parser with the lone-child shortcut builds
the same trees, with the same positions, as lark's own callbacks (issue 13 item 1: the
shortcut takes a quarter off parsing the 26 KB orienting rings model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lark import Lark, Tree
from lark.exceptions import UnexpectedInput

import bridge.frontends as frontends
from bridge._resources import grammar_path
from bridge.diagnostics import BridgeError
from bridge.frontends.csp import parse as csp_parse
from bridge.frontends.promela import parse as promela_parse
from bridge.frontends.promela.preprocess import preprocess

ROOT = Path(__file__).resolve().parents[3]
CSP_MODELS = sorted((ROOT / "case_studies").glob("*/*.csp")) + sorted(
    (ROOT / "tests").rglob("*.csp"))
PROMELA_MODELS = sorted((ROOT / "case_studies").glob("*/*.pml")) + sorted(
    (ROOT / "tests").rglob("*.pml"))


def _shape(tree: Any) -> list[tuple[Any, ...]]:
    """Return every node of ``tree`` with all its position attributes, in order."""
    if not isinstance(tree, Tree):
        return [("token", tree)]
    return [(node.data, sorted(vars(node.meta).items()),
             [c if not isinstance(c, Tree) else c.data for c in node.children])
            for node in tree.iter_subtrees_topdown()]


def _lark_own(grammar: str, **options: Any) -> Lark:
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True,
                cache=True, **options)


def test_the_shortcut_is_installed() -> None:
    parser = csp_parse._parser()
    plain = _lark_own(grammar_path("csp.lark").read_text(encoding="utf-8"),
                      lexer="contextual")
    changed = [r for r in parser._callbacks if parser._callbacks[r] is not plain._callbacks[r]]
    assert changed  # and the trees below are the same


@pytest.fixture(scope="module")
def csp_reference() -> Lark:
    return _lark_own(grammar_path("csp.lark").read_text(encoding="utf-8"), lexer="contextual")


@pytest.fixture(scope="module")
def promela_reference() -> Lark:
    return _lark_own(grammar_path("promela.lark").read_text(encoding="utf-8"),
                     lexer=promela_parse._SpinLexer, start=["start", "expr"])


def test_csp_trees_and_positions_are_lark_own(csp_reference: Lark) -> None:
    compared = 0
    for path in CSP_MODELS:
        text = csp_parse.mark_item_ends(path.read_text(encoding="utf-8").removeprefix(
            csp_parse.BOM))
        try:
            expected = csp_reference.parse(text)
        except UnexpectedInput:
            with pytest.raises(UnexpectedInput):
                csp_parse._parser().parse(text)
            continue
        assert _shape(csp_parse._parser().parse(text)) == _shape(expected), path
        compared += 1
    assert compared > 40


def test_promela_trees_and_positions_are_lark_own(promela_reference: Lark) -> None:
    compared = 0
    for path in PROMELA_MODELS:
        try:
            pre = preprocess(str(path))
        except Exception:  # noqa: BLE001 - a bad-input fixture of the preprocessor
            continue
        promela_parse._CURRENT.append(pre)
        try:
            try:
                expected = promela_reference.parse(pre.text, start="start")
            except (UnexpectedInput, BridgeError) as error:
                with pytest.raises(type(error)):
                    promela_parse._parser().parse(pre.text, start="start")
                continue
            got = promela_parse._parser().parse(pre.text, start="start")
        finally:
            promela_parse._CURRENT.pop()
        assert _shape(got) == _shape(expected), path
        compared += 1
    assert compared > 40


def test_csp_expression_parser_is_lark_own(csp_reference: Lark) -> None:
    reference = _lark_own(grammar_path("csp.lark").read_text(encoding="utf-8"),
                          lexer="contextual", start="expr")
    for text in ("(i + 1)%N", "x[(u + N - 1)%N] == 2 && !b || c", "-3 * y"):
        assert _shape(csp_parse._expr_parser().parse(text)) == _shape(reference.parse(text))


def test_a_lark_without_callbacks_is_left_alone() -> None:
    class Other:
        _callbacks = None

    frontends._pass_lone_children(Other())  # nothing to do, no error
