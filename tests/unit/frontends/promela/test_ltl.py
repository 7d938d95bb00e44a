"""SPIN's inline LTL syntax into the IR LTL AST (precedence, word forms, atoms)."""

from __future__ import annotations

import pytest

from bridge.diagnostics import SemanticError
from bridge.frontends.promela import load_promela
from bridge.ir import LtlBinary, LtlConst, LtlState, LtlUnary

HEADER = "#define p (x == 1)\n#define q (y > 0)\nbyte x, y;\nbool a;\n" \
         "active proctype P() { x = 1; y = 2 }\n"


def formula(text: str):
    ts = load_promela("t.pml", HEADER + f"ltl f {{ {text} }}\n").systems[0]
    return ts.properties[0].formula


def show(f) -> str:
    """Return the formula fully parenthesised, atoms as their text."""
    if isinstance(f, LtlState):
        return f"({f.text})"
    if isinstance(f, LtlConst):
        return "true" if f.value else "false"
    if isinstance(f, LtlUnary):
        return f"({f.op} {show(f.operand)})"
    assert isinstance(f, LtlBinary)
    return f"({show(f.left)} {f.op} {show(f.right)})"


@pytest.mark.parametrize(
    "text,expected",
    [
        ("[] p -> q", "((G (x == 1)) -> (y > 0))"),
        ("p U q || a", "(((x == 1) U (y > 0)) || (a))"),
        ("!p U q", "((!(x == 1)) U (y > 0))"),
        ("[] x == 1", "(G (x == 1))"),
        ("[] p U q", "(G ((x == 1) U (y > 0)))"),
        ("[] (p -> <> q)", "(G ((x == 1) -> (F (y > 0))))"),
        ("p W q", "((x == 1) W (y > 0))"),
        ("p V q", "((x == 1) R (y > 0))"),
        ("p <-> q", "((x == 1) <-> (y > 0))"),
        ("p /\\ q \\/ a", "((x == 1) && (y > 0) || a)"),
        ("always eventually p", "(G (F (x == 1)))"),
        ("p until q", "((x == 1) U (y > 0))"),
        ("X p", "(X (x == 1))"),
        ("![] p", "(! (G (x == 1)))"),
        ("[]<> p && <>[] q", "((G (F (x == 1))) && (F (G (y > 0))))"),
        ("true U a", "(true U (a))"),
        ("[] (x < 3 && y != 1)", "(G (x < 3 && y != 1))"),
    ],
)
def test_precedence_and_forms(text: str, expected: str) -> None:
    assert show(formula(text)) == expected


def test_atoms_are_ir_expressions() -> None:
    f = formula("[] (x + 1 > y)")
    assert isinstance(f, LtlUnary) and isinstance(f.operand, LtlState)
    assert f.operand.expr.op == ">"


def test_channel_predicates_are_rejected_in_ltl() -> None:
    with pytest.raises(SemanticError) as info:
        load_promela("t.pml", "chan c = [1] of { byte };\nactive proctype P() { c!1 }\n"
                     "ltl f { <> full(c) }\n")
    assert "not allowed in an ltl formula" in str(info.value)


def test_temporal_operator_outside_ltl_does_not_parse() -> None:
    with pytest.raises(Exception):  # noqa: B017 - ParseError: [] is two brackets outside ltl
        load_promela("t.pml", "byte x;\nactive proctype P() { x = [] 1 }\n")
