"""Which state/event formulas partial order reduction may not see through
(bridge/reductions/_letters.py): a formula ``tau_robustness`` accepts keeps its truth
when tau letters (the state part of the letter before, no event) are inserted; checked
against a direct evaluator on lasso words, and on the formulas the papers use."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.ir import Const, LtlBinary, LtlEvent, LtlState, LtlUnary
from bridge.reductions._letters import tau_robustness

P = LtlState(Const(True), "p")
Q = LtlState(Const(True), "q")
E = LtlEvent("e")
F_ = LtlEvent("f")

Letter = tuple[frozenset[str], str | None]  # (state atoms true, event or None)


def evaluate(formula, prefix: list[Letter], loop: list[Letter]) -> bool:
    """Return the truth of ``formula`` at position 0 of ``prefix . loop^omega``."""
    word = prefix + loop
    n = len(word)
    succ = [i + 1 if i + 1 < n else len(prefix) for i in range(n)]

    def until(f: list[bool], g: list[bool]) -> list[bool]:
        val = list(g)
        for _ in range(n + 1):
            val = [g[i] or (f[i] and val[succ[i]]) for i in range(n)]
        return val

    def ev(x) -> list[bool]:
        if isinstance(x, LtlState):
            return [x.text in w[0] for w in word]
        if isinstance(x, LtlEvent):
            return [w[1] == x.name for w in word]
        if isinstance(x, LtlUnary):
            a = ev(x.operand)
            if x.op == "!":
                return [not v for v in a]
            if x.op == "X":
                return [a[succ[i]] for i in range(n)]
            if x.op == "F":
                return until([True] * n, a)
            if x.op == "G":
                return [not v for v in until([True] * n, [not v for v in a])]
        a, b = ev(x.left), ev(x.right)
        if x.op == "&&":
            return [u and v for u, v in zip(a, b, strict=True)]
        if x.op == "||":
            return [u or v for u, v in zip(a, b, strict=True)]
        if x.op == "->":
            return [(not u) or v for u, v in zip(a, b, strict=True)]
        if x.op == "<->":
            return [u == v for u, v in zip(a, b, strict=True)]
        if x.op == "U":
            return until(a, b)
        if x.op == "R":
            return [not v for v in until([not u for u in a], [not v for v in b])]
        assert x.op == "W"
        g = [not v for v in until([True] * n, [not u for u in a])]
        return [u or v for u, v in zip(until(a, b), g, strict=True)]

    return ev(formula)[0]


atoms = st.sampled_from([P, Q, E, F_])


def formulas(depth: int = 3):
    if depth == 0:
        return atoms
    sub = formulas(depth - 1)
    return st.one_of(
        atoms,
        st.builds(LtlUnary, st.sampled_from(["!", "F", "G", "X"]), sub),
        st.builds(LtlBinary, st.sampled_from(["&&", "||", "->", "<->", "U", "R", "W"]), sub, sub),
    )


letters = st.tuples(st.frozensets(st.sampled_from(["p", "q"])), st.sampled_from([None, "e", "f"]))


@settings(max_examples=1500, deadline=None)
@given(formula=formulas(), prefix=st.lists(letters, min_size=1, max_size=4),
       loop=st.lists(letters, min_size=1, max_size=4), data=st.data())
def test_accepted_formulas_ignore_tau_letters(formula, prefix, loop, data):
    """Insert a tau letter after one position (once in the prefix, or once per round of
    the loop: infinitely many); an accepted formula keeps its truth."""
    if tau_robustness(formula) is not None:
        return
    word = prefix + loop
    at = data.draw(st.integers(0, len(word) - 1))
    tau = (word[at][0], None)
    if at < len(prefix):
        prefix2, loop2 = prefix[:at + 1] + [tau] + prefix[at + 1:], loop
    else:
        j = at - len(prefix)
        prefix2, loop2 = prefix, loop[:j + 1] + [tau] + loop[j + 1:]
    assert evaluate(formula, prefix, loop) == evaluate(formula, prefix2, loop2)


@pytest.mark.parametrize("formula", [
    LtlUnary("G", LtlUnary("F", E)),  # ms: []<> work.0
    LtlUnary("G", LtlBinary("->", E, LtlUnary("F", F_))),  # kv: [](read_inv -> <> read_res)
    LtlUnary("F", LtlUnary("G", LtlUnary("!", E))),
    LtlUnary("F", LtlUnary("G", P)),
    LtlBinary("U", P, Q),
])
def test_the_papers_formulas_are_accepted(formula):
    assert tau_robustness(formula) is None


def test_order_sensitive_formulas_are_refused():
    # G(e -> (e U p)): (e)(e)(p) satisfies it, (e)(tau)(e)(p) does not
    formula = LtlUnary("G", LtlBinary("->", E, LtlBinary("U", E, P)))
    assert tau_robustness(formula) is not None
    assert evaluate(formula, [], [(frozenset(), "e"), (frozenset(), "e"), (frozenset({"p"}), None)])
    assert not evaluate(formula, [], [(frozenset(), "e"), (frozenset(), None), (frozenset(), "e"),
                                      (frozenset({"p"}), None)])
    assert tau_robustness(LtlUnary("X", P)) is not None
    # the first letter (the init pseudo-step) is never moved: an atom there is fine
    assert tau_robustness(E) is None
