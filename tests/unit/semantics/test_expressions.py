"""Expression semantics of the compiled engine: C remainder vs PAT mod, truncating
division, overflow policies on store, short-circuit operators, model errors."""

from __future__ import annotations

import pytest

from bridge.diagnostics import ModelRuntimeError
from bridge.ir import (
    BYTE,
    SHORT,
    Binary,
    BoolType,
    Builtin,
    Conditional,
    Const,
    IntType,
    Overflow,
    SourceLanguage,
    Unary,
    Variable,
)
from bridge.semantics.statespace import build_state_space
from tests.irbuild import C, G, assign, edge, int_var, ix, op, process, system


def run_once(stmt_value, var: Variable | None = None, language=SourceLanguage.IR, extra=()):
    """Return the value of ``r`` after one step that assigns ``r = stmt_value``."""
    r = var or int_var("r")
    p = process("P", [edge(0, 1, effect=[assign("r", stmt_value)])], n_locations=2)
    space = build_state_space(system([p], [r, *extra], language=language))
    (step, nxt), = space.successors(space.initial_states()[0])
    return space.valuation(nxt)["r"]


@pytest.mark.parametrize(
    ("a", "b", "rem", "mod", "div"),
    [(7, 2, 1, 1, 3), (-7, 2, -1, 1, -3), (7, -2, 1, -1, -3), (-7, -2, -1, -1, 3), (-1, 5, -1, 4, 0)],
)
def test_remainder_modulo_and_division(a, b, rem, mod, div):
    neg = lambda v: Unary("-", C(-v)) if v < 0 else C(v)  # noqa: E731 - keep it non-constant-looking
    assert run_once(op("%", neg(a), neg(b))) == rem
    assert run_once(op("mod", neg(a), neg(b))) == mod
    assert run_once(op("/", neg(a), neg(b))) == div


def test_operators_on_variables_are_not_folded_differently():
    """The same results when the operands are variables (runtime helpers, not folding)."""
    x = int_var("x", init=-7)
    assert run_once(op("%", G("x"), 2), extra=[x]) == -1
    assert run_once(op("mod", G("x"), 2), extra=[x]) == 1
    assert run_once(op("/", G("x"), 2), extra=[x]) == -3


@pytest.mark.parametrize("symbol", ["/", "%", "mod"])
def test_division_by_zero_is_a_model_error(symbol):
    zero = int_var("z", init=0)
    with pytest.raises(ModelRuntimeError) as info:
        run_once(op(symbol, 5, G("z")), extra=[zero])
    assert info.value.kind == "division by zero"


def test_byte_wraps_and_short_wraps_signed():
    assert run_once(C(256), Variable("r", BYTE)) == 0
    assert run_once(Unary("-", C(1)), Variable("r", BYTE)) == 255
    assert run_once(C(32768), Variable("r", SHORT)) == -32768
    assert run_once(C(-32769), Variable("r", SHORT)) == 32767


def test_promela_bool_stores_low_bit():
    assert run_once(C(2), Variable("r", BoolType()), SourceLanguage.PROMELA) == 0
    assert run_once(C(3), Variable("r", BoolType()), SourceLanguage.PROMELA) == 1


def test_range_violation_is_a_model_error():
    ranged = Variable("r", IntType(0, 3, Overflow.ERROR, "var"))
    assert run_once(C(3), ranged) == 3
    with pytest.raises(ModelRuntimeError) as info:
        run_once(C(4), ranged)
    assert info.value.kind == "range violation"


def test_index_out_of_range_is_a_model_error():
    a = int_var("a", length=3)
    i = int_var("i", init=3)
    assert run_once(ix("a", 2), extra=[a]) == 0
    with pytest.raises(ModelRuntimeError) as info:
        run_once(ix("a", G("i")), extra=[a, i])
    assert info.value.kind == "index out of range"


def test_short_circuit_protects_an_index():
    """``i >= 0 && a[i] == 0`` with i = -1 must not evaluate ``a[-1]`` (cspsharp.md 7.1)."""
    a = int_var("a", length=3)
    i = int_var("i", init=-1)
    guard = Binary("&&", op(">=", G("i"), 0), op("==", ix("a", G("i")), 0))
    assert run_once(Conditional(guard, C(1), C(2)), extra=[a, i]) == 2
    guard_or = Binary("||", op("<", G("i"), 0), op("==", ix("a", G("i")), 0))
    assert run_once(Conditional(guard_or, C(1), C(2)), extra=[a, i]) == 1


def test_pid_and_nr_pr():
    p = process("P", [edge(0, 1, effect=[assign("r", op("+", Builtin("_pid"), Builtin("_nr_pr")))])])
    from bridge.ir import Instance

    ts = system([p], [int_var("r")], instances=[Instance("P", (), "P0"), Instance("P", (), "P1")])
    space = build_state_space(ts)
    values = sorted(space.valuation(n)["r"] for _, n in space.successors(space.initial_states()[0]))
    assert values == [2, 3]


def test_constant_folding_matches_runtime():
    e = op("mod", op("-", 0, 1), 5)
    assert run_once(e) == 4
    assert run_once(Binary("xor", Const(1), Const(0))) == 1
