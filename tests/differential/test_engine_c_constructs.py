"""Constructs the C engine translates since issue 12's last round, against the Python
engine (the reference): a Promela trace's end-state rule (``end_condition``), CSP#
atomic parts inside a process (``Edge.atomic``), hiding above ``||``
(``Parallel.hidden``), channels carrying messages of several arities (``arity_tag``),
``==``/``!=`` between whole arrays and PAT's math library (``call(Pow, a, b)``, ``Abs``, ``Max``, ``Min``).

The test models of ``tests/models`` that use them are compared in
``test_engine_c.py::test_test_models_agree``; here small models of our own pin the
corner cases: every state and transition count, verdict and trace must be the Python
engine's, and the C engine must take the model (``driver.supports``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import Outcome
from bridge.semantics import explore as python_engine
from tests.conftest import in_ci
from tests.differential.test_engine_c import assert_engines_agree
from tests.differential.test_engine_c_ltl import compare
from tests.regression.test_block_variable_initialised_with_an_array import MODEL as BLOCK_COPY

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")


def _systems(tmp_path: Path, name: str, text: str) -> list:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return list(api.load_model(str(path)).systems)


def _agree(tmp_path: Path, name: str, text: str) -> list:
    systems = _systems(tmp_path, name, text)
    for ts in systems:
        ok, why = driver.supports(ts)
        assert ok, why
        assert assert_engines_agree(ts, limit=100000) > 0
        compare(ts, limit=100000)  # LTL under every notion, where the model has any
    return systems


# ------------------------------------------------------------------ PAT.Math

POW_CASES = [(2, 10, 1024), (-2, 3, -8), (-2, 31, -(2**31)), (3, 0, 1), (0, 0, 1), (0, 5, 0),
             (1, -4, 1), (-1, -3, -1), (-1, -4, 1), (2, -1, 0), (-7, -2, 0), (1, 1000000, 1)]


def test_math_library_values_agree(tmp_path: Path) -> None:
    """Each ``Pow`` case of ``semantics/library.py``'s ``_pow`` (negative exponents give
    0 unless the base is 1 or -1), ``Abs``, ``Max``, ``Min``: the model reaches its goal
    only if every value is the expected one, on both engines."""
    steps = " -> ".join(f"p{k}{{r[{k}] = call(Pow, {a}, {b});}}"
                        for k, (a, b, _) in enumerate(POW_CASES))
    goal = " && ".join(f"r[{k}] == {v}" for k, (_, _, v) in enumerate(POW_CASES))
    text = (f'#import "PAT.Math";\nvar r[{len(POW_CASES)}];\nvar m = 0;\n'
            f"P() = {steps} -> q{{m = call(Max, call(Abs, -3), call(Min, 7, -5)) "
            "+ call(Min, call(Abs, 4), 9) * 10;} -> Stop;\n"
            f"#define done {goal} && m == 43;\n#assert P() reaches done;\n"
            "#assert P() deadlockfree;\n")
    (ts,) = _agree(tmp_path, "math.csp", text)
    reaches = python_engine.check_property(ts, ts.properties[0])
    assert reaches.outcome is Outcome.HOLDS  # the expected values are the engine's


@pytest.mark.parametrize(("a", "b"), [(2, 31), (0, -1), (-3, 21), (10, 10)])
def test_math_pow_errors_agree(tmp_path: Path, a: int, b: int) -> None:
    """A ``Pow`` outside 32 bits (2^31, 10^10, (-3)^21) or 0 to a negative power is a
    model runtime error at the call, the same verdict and trace on both engines."""
    text = ('#import "PAT.Math";\nvar x = 0;\n'
            f"P() = go{{x = call(Pow, {a}, {b});}} -> Stop;\n#assert P() deadlockfree;\n")
    (ts,) = _agree(tmp_path, "pow_error.csp", text)
    verdict = python_engine.check_property(ts, ts.properties[0])
    assert verdict.outcome is Outcome.VIOLATED and verdict.reason is not None


def test_library_classes_agree(tmp_path: Path) -> None:
    """PAT's library classes run in C (values interned by content in
    templates/c/library.c): the same counts, verdicts and traces."""
    text = ('#import "PAT.Lib.Set";\nvar<Set> s;\nvar n = 0;\n'
            "P() = add{s.Add(2); s.Add(1); n = s.Get(0);} -> Stop;\n#assert P() deadlockfree;\n")
    (ts,) = _agree(tmp_path, "set.csp", text)
    assert driver.supports(ts) == (True, "")


@pytest.mark.parametrize(("second", "expected"), [(2, Outcome.HOLDS), (1, Outcome.VIOLATED)])
def test_library_values_name_steps_as_the_python_engine(tmp_path: Path, second: int,
                                                       expected: Outcome) -> None:
    """An event name built from library values (``e.s``: Python's str() of the set's
    tuple, ``e.(1,)``) is rendered in C from the value's id: two sets of different
    contents give two names (deterministic holds), equal contents one name, whose two
    steps lead to different states (violated); checked in C, as the Python engine."""
    text = ('#import "PAT.Lib.Set";\nvar<Set> s;\nvar<Set> t;\nvar n = 0;\n'
            f"P() = go{{s.Add(1); t.Add({second});}} -> "
            "(e.s{n = 1;} -> Stop ||| e.t{n = 2;} -> Stop);\n"
            "#assert P() deterministic;\n#assert P() |= <> e.1;\n")
    (ts,) = _agree(tmp_path, "set_names.csp", text)
    verdict = driver.check_property_c(ts, ts.properties[0])
    assert verdict.outcome is expected
    assert python_engine.check_property(ts, ts.properties[0]).outcome is expected


def test_a_library_value_as_a_process_argument_agrees(tmp_path: Path) -> None:
    """The parameter's slot holds ints too (0 before and after the call): the C engine
    keeps the set's id there below every int (``gen_library.mixed_variables``) and
    agrees with the Python engine (it refused the model before)."""
    text = ('#import "PAT.Lib.Set";\nvar<Set> s;\nvar<Set> u;\n'
            "P() = add{s.Add(1);} -> Q(s);\nQ(x) = e -> ([x == u] f -> Stop);\n"
            "#assert P() deadlockfree;\n")
    (ts,) = _agree(tmp_path, "set_arg.csp", text)
    assert driver.supports(ts)[0]


# ------------------------------------------------------------------ CSP# atomic, hiding, arities

def test_atomic_part_inside_an_interleaving_agrees(tmp_path: Path) -> None:
    """An ``atomic{}`` operand of ``|||`` inside a process (``Edge.atomic``) with a
    synchronising neighbour: once the atomic part can move, only its steps happen."""
    text = ("var x = 0;\nvar y = 0;\n"
            "W() = go -> (atomic{a{x = (x + 1) % 8;} -> b{x = (x * 2) % 8;} -> Skip} ||| c{y = x;} -> Skip); "
            "W();\nV() = [x > 2] seen -> V();\nS() = W() ||| V();\n"
            "#define big x == 7;\n#assert S() deadlockfree;\n#assert S() reaches big;\n"
            "#assert S() |= []<> go;\n")
    _agree(tmp_path, "atomic.csp", text)


def test_hiding_above_a_parallel_agrees(tmp_path: Path) -> None:
    """``(P || Q) \\ {e}``: the joint step on ``e`` is tau, and a process outside the
    hiding that also has ``e`` in its alphabet does not take part in it; an event atom
    of a hidden event never holds (``[]<> e`` is violated, ``[]<> f`` holds)."""
    text = ("var n = 0;\nP() = e -> f{n = n + 1;} -> P();\nQ() = e -> g -> Q();\n"
            "H() = (P() || Q()) \\ {e, g};\nO() = e -> Stop;\nS() = H() || O();\n"
            "#define two n == 2;\n#assert S() reaches two;\n#assert H() deadlockfree;\n"
            "#assert S() deadlockfree;\n#assert H() divergencefree;\n"
            "#assert H() |= []<> e;\n#assert H() |= []<> f;\n#assert S() |= <> g;\n")
    _agree(tmp_path, "hiding.csp", text)


def test_channel_of_several_arities_agrees(tmp_path: Path) -> None:
    """One buffered and one synchronous channel carrying pairs and single values
    (``arity_tag``): a receive with k fields takes only a message of k fields."""
    text = ("channel b 3;\nchannel s 0;\nvar sum = 0;\n"
            "T() = b!1.2 -> b!5 -> s!3 -> s!4.6 -> Stop;\n"
            "R() = b?x.y{sum = sum + x + y;} -> R() [] b?v{sum = sum + 10 * v;} -> R()\n"
            "   [] s?w{sum = sum + 100 * w;} -> R() [] s?p.q{sum = sum + 1000 * p + q;} -> R();\n"
            "S() = T() ||| R();\n#define total sum == 4359;\n#assert S() reaches total;\n"
            "#assert S() deadlockfree;\n")
    _agree(tmp_path, "arities.csp", text)


# ------------------------------------------------------------------ Promela trace

def test_trace_end_condition_agrees(tmp_path: Path) -> None:
    """A ``trace`` whose automaton is not at its end when the system stops: an invalid
    end state on both engines; with the trace completed, none."""
    for done, expected in (("", Outcome.VIOLATED), ("c!1;", Outcome.HOLDS)):
        text = ("chan c = [2] of { byte };\n"
                f"active proctype A() {{ c!1; {done} }}\n"
                "active proctype B() { skip }\n"
                "trace { c!1; c!1 }\n")
        for ts in _agree(tmp_path, f"trace{len(done)}.pml", text):
            safety = next(p for p in ts.properties if p.kind.value == "safety")
            got = driver.check_property_c(ts, safety, driver.SearchOptions())
            assert got.outcome is expected


# ------------------------------------------------------------------ whole arrays compared


def test_array_equality_agrees(tmp_path: Path) -> None:
    """``a == b``/``a != b`` on whole arrays of the state (equal lengths, equal or not;
    different lengths are never equal) in guards and conditions, on both engines; the
    goal is reached only if each comparison gives the Python engine's value."""
    text = ("var a = [1, 2, 3];\nvar b = [1, 2, 4];\nvar c[2];\nvar r = 0;\n"
            "P() = [a != b && a != c && !(a == c)] x{b[2] = 3; if (a == b) { r = 1; }} -> "
            "([a == b] y -> Stop [] [a != b] z -> Stop);\n"
            "#define goal r == 1;\n#assert P() reaches goal;\n#assert P() deadlockfree;\n")
    (ts,) = _agree(tmp_path, "array_eq.csp", text)
    assert python_engine.check_property(ts, ts.properties[0]).outcome is Outcome.HOLDS


def test_block_array_equality_agrees(tmp_path: Path) -> None:
    """A block array compared with an array of the state, a row of one or a block array
    (CSP#'s ``==`` compares arrays by their cells: both engines read a block array
    whole as the tuple of its cells): every count, verdict and trace, the names
    ``same.k``/``differ.k`` the comparisons choose (in traces, the deterministic check
    and an LTL event atom) are the Python engine's. ``a`` walks through its values, so
    each comparison is made both ways; arrays of another length (never equal) and of
    one cell (a list too) are among them."""
    text = ("var a = [0, 0];\nvar m[2][2] = [1, 2, 0, 1];\nvar o[1];\nvar r = 0;\n"
            "P() = inc{a[0] = (a[0] + 1) % 3; o[0] = a[0];} -> Q() "
            "[] turn{a[1] = (a[1] + 1) % 3;} -> Q();\n"
            "Q() = cmp{var t = [1, 2]; var w[2][2] = [0, 1, 1, 1]; var u[3]; var z[1];"
            " z[0] = 1; r = 0;"
            " if (t == a) { r = r + 1; } if (a != t) { r = r + 2; }"
            " if (w[0] == a) { r = r + 4; } if (m[1] == w[0]) { r = r + 8; }"
            " if (u == a || a == u) { r = 100; } if (u != a) { r = r + 16; }"
            " if (z == o) { r = r + 32; } if (w[1] != t) { r = r + 64; }"
            "} -> ([r % 2 == 1] same.r -> P() [] [r % 2 == 0] differ.r -> P());\n"
            "#define goal r == 121;\n#assert P() reaches goal;\n#assert P() deadlockfree;\n"
            "#assert P() deterministic;\n#assert P() |= [] !same.3;\n"
            "#assert P() |= []<> differ.94;\n")
    (ts,) = _agree(tmp_path, "block_eq.csp", text)
    # a == [1, 2]: 1 + 8 + 16 + 32 + 64 (t == a, m[1] == w[0], u != a, z == o, w[1] != t)
    verdicts = [api.check_property(ts, p, api.CheckOptions(engine="python")).outcome
                for p in ts.properties]
    assert verdicts == [Outcome.HOLDS] * 4 + [Outcome.VIOLATED]


def test_large_block_array_equality_agrees(tmp_path: Path) -> None:
    """Arrays of more than MAX_LOCAL_ARRAY cells compared by a loop in C."""
    text = ("var big[5000];\nvar r = 0;\n"
            "P() = x{var t[5000]; t[4999] = r; if (t == big) { r = r + 1; }"
            " if (big != t) { big[4999] = 1; }} -> P();\n"
            "#define goal r == 2;\n#assert P() reaches goal;\n")
    (ts,) = _agree(tmp_path, "block_eq_big.csp", text)
    assert python_engine.check_property(ts, ts.properties[0]).outcome is Outcome.HOLDS


def test_array_rows_as_values_agree(tmp_path: Path) -> None:
    """A row of a two-dimensional array of the state as a value: compared with an
    array (``m[1] == a``), in an event name (``f.m[1]`` is ``f.(3, 4)``) and in a
    message (``c!m[i]``, the row chosen at run time: out of range a model error), as the
    Python engine reads it: the tuple of its cells. The traces name them."""
    text = ("var m[2][2] = [1, 2, 3, 4];\nvar a = [3, 4];\nvar i = 0;\nchannel c 1;\n"
            "R() = [m[1] == a && m[0] != a] f.m[1] -> c!m[i] -> c?y -> h.y -> "
            "g{m[0][1] = 5; i = i + 1;} -> e.m[0] -> R();\n"
            "#define goal m[0][1] == 5;\n#assert R() reaches goal;\n"
            "#assert R() deadlockfree;\n#assert R() deterministic;\n")
    (ts,) = _agree(tmp_path, "rows.csp", text)
    verdicts = [api.check_property(ts, p, api.CheckOptions(engine="python"))
                for p in ts.properties]
    assert [v.outcome for v in verdicts] == [Outcome.HOLDS] + [Outcome.VIOLATED] * 2
    assert verdicts[1].reason == "index out of range", verdicts[1].reason
    names = [s.event for s in verdicts[1].trace.steps]
    assert names[:4] == ["f.(3, 4)", "c!(1, 2)", "c?(1, 2)", "h.(1, 2)"], names


def test_array_that_may_hold_library_values_equality_agrees(tmp_path: Path) -> None:
    """An array whose cell may hold a set (a process parameter bound to one, stored in
    ``a[0]``) compared with an array of ints: equal only when that cell holds the same
    int (a set is never an int), as the Python engine's tuples compare."""
    text = ('#import "PAT.Lib.Set";\nvar<Set> s = new Set();\nvar a[2];\nvar b[2];\n'
            "var r = 0;\n"
            "P(x) = e{a[0] = x; r = 0; if (a == b) { r = r + 1; } if (b != a) { r = r + 2; }"
            " if (a == a) { r = r + 4; }} -> f.r -> P(x);\n"
            "Q() = add{s.Add(3);} -> P(s) [] P(0) [] g{b[0] = 3;} -> P(3) "
            "[] h{b[0] = 3;} -> P(s);\n"
            "#define goal r == 6;\n#assert Q() reaches goal;\n#assert Q() deadlockfree;\n"
            "#assert Q() |= [] !f.7;\n")
    (ts,) = _agree(tmp_path, "mixed_eq.csp", text)
    verdicts = [api.check_property(ts, p, api.CheckOptions(engine="python")).outcome
                for p in ts.properties]
    assert verdicts == [Outcome.HOLDS] * 3



def test_block_array_initialised_with_an_array_agrees(tmp_path: Path) -> None:
    """``var x = a`` in a block: a block array, a copy of a's cells (of a global array, a
    block array, a row, an array of one cell), in C as in the Python engine; the copy
    written leaves the original as it was."""
    (ts,) = _agree(tmp_path, "block_copy.csp", BLOCK_COPY)
    assert python_engine.check_property(ts, ts.properties[0]).outcome is Outcome.HOLDS


def test_received_array_compared_with_arrays_agrees(tmp_path: Path) -> None:
    """A variable that received a whole array (``c?x`` of ``c!a``: the tuple of a's
    cells) compared with an array of the state, a block array and rows of one: equal
    contents, equal, in C (the interned tuple's id) as in the Python engine."""
    text = ("var a = [1, 2];\nvar r = 0;\nchannel c 1;\n"
            "P() = c!a -> c?x -> chk{var t = [1, 2]; var u = [2, 1]; "
            "var m[2][2] = [0, 0, 1, 2]; r = 0; if (x == t) { r = r + 1; } "
            "if (u != x) { r = r + 2; } if (x == m[1]) { r = r + 4; } "
            "if (m[0] == x) { r = r + 8; }} "
            "-> ([x == a] same.r -> inc{a[0] = (a[0] + 1) % 3;} -> P() [] [x != a] differ.r -> Stop);\n"
            "#define goal r == 7;\n#assert P() reaches goal;\n#assert P() deadlockfree;\n"
            "#assert P() |= <> same.7;\n#assert P() |= [] !differ.0;\n#assert P() |= <> same.0;\n")
    (ts,) = _agree(tmp_path, "received_eq.csp", text)
    verdicts = [api.check_property(ts, p, api.CheckOptions(engine="python")).outcome
                for p in ts.properties]
    assert verdicts == [Outcome.HOLDS] * 4 + [Outcome.VIOLATED]  # a lasso compared
