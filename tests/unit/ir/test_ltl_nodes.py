"""``ir.property.ltl_nodes``: pre-order, left operand first, and deep formulas."""

from __future__ import annotations

from bridge.ir.expr import Var
from bridge.ir.property import LtlBinary, LtlConst, LtlState, LtlUnary, ltl_nodes


def test_pre_order_left_first() -> None:
    a, b = LtlState(Var("a", "global"), "a"), LtlState(Var("b", "global"), "b")
    f = LtlUnary("G", LtlBinary("->", a, LtlUnary("F", b)))
    assert ltl_nodes(f) == [f, f.operand, a, f.operand.right, b]


def test_a_deep_formula_needs_no_recursion() -> None:
    f = LtlConst(True)
    for _ in range(50_000):
        f = LtlUnary("X", f)
    assert len(ltl_nodes(f)) == 50_001
