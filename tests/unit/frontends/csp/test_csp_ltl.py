"""Unit tests of PAT LTL parsing (bridge/frontends/csp/ltl.py; cspsharp.md 6)."""

from __future__ import annotations

import pytest

from bridge.diagnostics import ParseError, SemanticError
from bridge.frontends.csp import load_csp
from bridge.ir import LtlBinary, LtlConst, LtlEvent, LtlState, LtlUnary

MODEL = (
    "#define N 3;\n#define M 1;\nvar x = 0;\nchannel c 1;\nchannel d 0;\n"
    "#define big x > 1;\n#define on true;\n"
    "P = rule1.0.1 -> eat.2 -> go -> c!1 -> d!2 -> P;\nQ = d?y -> Q;\nS = P ||| Q;\n"
)


def formula(text: str):  # noqa: ANN201 - returns the IR Ltl
    model = load_csp("t.csp", MODEL + f"#assert S |= {text};\n")
    return model.systems[0].properties[0].formula


def shape(f) -> str:  # noqa: ANN001
    """Return a span-free rendering of the formula's tree."""
    if isinstance(f, LtlUnary):
        return f"{f.op}({shape(f.operand)})"
    if isinstance(f, LtlBinary):
        return f"({shape(f.left)} {f.op} {shape(f.right)})"
    if isinstance(f, LtlEvent):
        return f"ev:{f.name}"
    if isinstance(f, LtlState):
        return f"st:{f.text}"
    assert isinstance(f, LtlConst)
    return str(f.value).lower()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[]<> go", "G(F(ev:go))"),
        ("G F go", "G(F(ev:go))"),
        ("[] p U go".replace("p", "big"), "(G(st:big) U ev:go)"),
        ("go || eat.2 -> big", "((ev:go || ev:eat.2) -> st:big)"),
        ("go -> eat.2 && big", "((ev:go -> ev:eat.2) && st:big)"),
        ("go /\\ big \\/ on <-> true", "(((ev:go && st:big) || st:on) <-> true)"),
        ("!go U big R eat.2 V go", "(((!(ev:go) U st:big) R ev:eat.2) R ev:go)"),
        ("X (go && !init)", "X((ev:go && !(ev:init)))"),
        ("[] (rule1.0.M -> <> eat.(N - 1))", "G((ev:rule1.0.1 -> F(ev:eat.2)))"),
        ("[]<> c!1 && <> c?1 && <> d.2", "((G(F(ev:c!1)) && F(ev:c?1)) && F(ev:d.2))"),
        ("false || on", "(false || st:on)"),
        ('[] "big" && <> "x > 2"', "(G(st:big) && F(st:x > 2))"),
        ('<> "eat.2"', "F(ev:eat.2)"),
    ],
)
def test_pat_precedence_and_atoms(text: str, expected: str) -> None:
    assert shape(formula(text)) == expected


def test_state_atoms_carry_the_proposition() -> None:
    f = formula("<> big")
    assert isinstance(f, LtlUnary) and isinstance(f.operand, LtlState)
    assert f.operand.text == "big" and "x" in repr(f.operand.expr)


@pytest.mark.parametrize(
    "text, kind, fragment",
    [
        ("[] foo", SemanticError, "unknown LTL atom 'foo'"),
        ("[] x", SemanticError, "'x' is a variable"),
        ("[] tau", SemanticError, "'tau'"),
        ("[] eat.z", SemanticError, "must be a constant integer"),
        ("[] (go", ParseError, "unexpected end of LTL formula"),
        ("[] go go", ParseError, "unexpected 'go'"),
        ("go &&", ParseError, "unexpected end of LTL formula"),
        ("[] go # 1", ParseError, "unexpected character '#'"),
        ('[] "x >"', ParseError, "malformed expression"),
        ('[] "x + 1"', SemanticError, "must be a boolean"),
    ],
)
def test_bad_formulas(text: str, kind: type, fragment: str) -> None:
    with pytest.raises(kind, match=fragment.replace("(", r"\(")) as info:
        formula(text)
    span = info.value.diagnostics[0].span
    assert span is not None and span.line == 11 and span.col > 13
