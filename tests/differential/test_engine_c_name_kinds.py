"""Event names from values whose kind (a bool or an int) is known only at run time,
in the C engine against the Python engine (issue 12).

Python shows a bool as ``True``/``False`` and an int as a number; the C engine holds
both as integers, and renders a value whose kind the generator cannot tell with the
kind computed next to it (``gen_events.kind_code``): a conditional's chosen branch,
``&``, ``|``, ``^`` of two values that may be bools (``True & 3`` is 1, ``True & False``
False), ``Math.Max``/``Min``'s pick, a send on a channel chosen at run time among
channels that carry comparisons and numbers. A bool added to a library value is stored
as an int (``semantics.library.element``). The conditional and the bitwise operations
of both kinds cannot be written in CSP# (its front-end types them), so those models
are CSP# models whose event components are replaced in the IR.

Every model here runs in C for ``deterministic`` (the reason names the event),
weak and strong-local fairness (actions are names) and event atoms, with the Python
engine's verdicts, reasons, counts, traces and lassos.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge import api
from bridge.engine_c import build, driver
from bridge.ir import (
    Binary,
    Call,
    Conditional,
    Const,
    Event,
    Expr,
    Fairness,
    Outcome,
    PropertyKind,
    Send,
    TransitionSystem,
    Unary,
    Var,
)
from tests.differential.test_engine_c import assert_engines_agree
from tests.differential.test_engine_c_ltl import compare
from tests.irbuild import replace_nodes
from tests.unit.engine_c.test_event_names import _python_names, _table

pytestmark = pytest.mark.skipif(build.find_compiler() is None, reason="no C compiler")

MODELS = Path(__file__).resolve().parents[1] / "models" / "csp"
N = Var("n", "global")

# P is nondeterministic on its first name (the reason names it), Q deterministic; the
# LTL assertions need actions (weak, strong-local) and event atoms.
BASE = """#import "PAT.Math";
var n = 0;
P() = e.n.n{n = (n + 1) % 3} -> P() [] e.n.n -> Stop;
Q() = e.n.n{n = (n + 1) % 3} -> tick -> Q();
Sys = Q() ||| Idle();
Idle() = idle -> Idle();
#assert P() deterministic;
#assert Q() deterministic;
#assert Sys |= []<> tick;
#assert Sys |= []<> e.1.1;
#assert Sys |= []<> e.0.0;
"""


def _systems(tmp_path: Path, components: tuple[Expr, ...]) -> dict[str, TransitionSystem]:
    """Return the systems of ``BASE`` by name, with ``components`` in every ``e``."""
    path = tmp_path / "kinds.csp"
    path.write_text(BASE, encoding="utf-8")
    return {ts.name: _with_components(ts, components)
            for ts in api.load_model(str(path)).systems}


def _with_components(ts: TransitionSystem, components: tuple[Expr, ...]) -> TransitionSystem:
    """Return ``ts`` with the components of every event ``e.n.n`` replaced."""
    return replace_nodes(ts, lambda node: dataclasses.replace(node, components=components)
                         if isinstance(node, Event) and node.base == "e" else None)


def _eq(a: Expr, b: int) -> Expr:
    return Binary("==", a, Const(b))


def _assert_c_agrees(systems: dict[str, TransitionSystem]) -> None:
    """Both engines: exploration and every assertion (deterministic with its reason,
    LTL under every notion, weak and strong-local included), in C with no hand-over;
    the names C interns are the Python engine's."""
    for name in ("P", "Q"):
        assert assert_engines_agree(systems[name]) == 2  # the exploration, deterministic
    ts = systems["Sys"]
    assert compare(ts, 20000) == 3 * len(tuple(Fairness))
    lib = driver._type_library(driver.compile_model(ts).library)
    before = set(_table(lib))
    for prop in ts.properties:
        if prop.kind is PropertyKind.LTL:
            for fairness in (Fairness.WEAK, Fairness.STRONG_LOCAL):
                got = api.check_property(ts, prop, api.CheckOptions(engine="auto",
                                                                    fairness=fairness))
                assert ("engine", "c") in got.statistics.extra, got.notes
    python = _python_names(ts) | _python_names(ts, packed=False)
    assert set(_table(lib)) - before <= python


# case (1): a conditional whose branches differ in kind; (2): bitwise operations
CASES = {
    "conditional": (Conditional(_eq(N, 1), _eq(N, 1), Const(2)), N),
    "conditional_int_first": (Conditional(_eq(N, 0), N, Binary("<", N, Const(2))), N),
    "and_bool_int": (Binary("&", _eq(N, 1), Const(3)), Binary("&", _eq(N, 1), _eq(N, 1))),
    "or_xor_maybe": (Binary("|", Conditional(_eq(N, 2), _eq(N, 2), N), _eq(N, 0)),
                     Binary("^", Conditional(_eq(N, 1), _eq(N, 1), N),
                            Conditional(_eq(N, 2), N, _eq(N, 0)))),
    "max_min_pick": (Call("Math.Max", (_eq(N, 1), N)), Call("Math.Min", (N, _eq(N, 0)))),
    "negated": (Unary("-", Conditional(_eq(N, 1), _eq(N, 1), N)),
                Binary("+", Binary("&", _eq(N, 1), _eq(N, 2)), Const(1))),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_names_of_values_of_run_time_kind_run_in_c(case: str, tmp_path: Path) -> None:
    _assert_c_agrees(_systems(tmp_path, CASES[case]))


def test_a_conditional_of_both_kinds_is_named_by_its_chosen_branch(tmp_path: Path) -> None:
    """``e.(n == 1 ? n == 1 : 2).n``: the first step of P (n = 0) is named e.2.0, the
    reason of ``deterministic`` in both engines; with n = 1 it would be e.True.1."""
    ts = _systems(tmp_path, CASES["conditional"])["P"]
    names = _python_names(ts)
    assert {"e.2.0", "e.True.1", "e.2.2"} <= names and "e.1.1" not in names
    prop = ts.properties[0]
    got = driver.check_property_c(ts, prop)
    assert got.reason == "nondeterministic on event 'e.2.0'"


def test_bitwise_operations_keep_pythons_kinds(tmp_path: Path) -> None:
    """``True & 3`` is 1, ``True & True`` is True, ``False & True`` False."""
    ts = _systems(tmp_path, CASES["and_bool_int"])["Sys"]
    assert {"e.0.False", "e.1.True"} <= _python_names(ts)
    assert "e.True.True" not in _python_names(ts)
    lib = driver._type_library(driver.compile_model(ts).library)
    got = api.check_property(ts, ts.properties[0], api.CheckOptions(
        engine="c", fairness=Fairness.WEAK))
    assert got.outcome is Outcome.HOLDS
    assert {"e.0.False", "e.1.True"} <= set(_table(lib))


@pytest.mark.parametrize(("name", "expected"), [
    ("computed_names_channel_kinds.csp", {"post[0]!True", "post[1]!False", "post[1]!2",
                                          "post[0]?1"}),
    ("computed_names_library_channel_kinds.csp", {"c!(0,)", "c!True", "c!2", "c?1",
                                                  "c?(0, 1)"})])
def test_sends_of_both_kinds_on_one_channel_run_in_c(name: str, expected: set[str]) -> None:
    """Case (3): post[slot], chosen at run time, carries a comparison and a number;
    c carries a set, a comparison and a number. Each send is named with its own
    values' kinds (post[0]!True, post[1]!2; a set from its id: c!(0,))."""
    compared = 0
    for ts in api.load_model(str(MODELS / name)).systems:
        assert assert_engines_agree(ts) >= 1
        compared += compare(ts, 20000)
        names = _python_names(ts)
        assert expected <= names
        lib = driver._type_library(driver.compile_model(ts).library)
        for prop in [p for p in ts.properties if p.kind is PropertyKind.LTL]:
            for fairness in (Fairness.WEAK, Fairness.STRONG_LOCAL):
                got = api.check_property(ts, prop, api.CheckOptions(engine="auto",
                                                                    fairness=fairness))
                assert ("engine", "c") in got.statistics.extra, got.notes
        assert names <= set(_table(lib))
    assert compared == 2 * len(tuple(Fairness))


def test_a_bool_added_to_a_library_value_is_an_int_element(tmp_path: Path) -> None:
    """Case (4): ``s.Add(n == 1)`` (hand-built: the front-end rejects it) adds 1 or 0
    (``library.element``), so ``s.Get(0)`` names e.1 or e.0 in both engines;
    ``s.Contains(true)`` still finds 1."""
    path = tmp_path / "element.csp"
    path.write_text('#import "PAT.Lib.List";\nvar<List> s;\nvar n = 0;\n'
                    "P() = add{s.Add(n); n = (n + 1) % 3;} -> e.s.Get(0).(s.Contains(1)) "
                    "-> drop{s.RemoveAt(0);} -> P() [] e.n.n -> Stop;\n"
                    "Sys = P() ||| Idle();\nIdle() = idle -> Idle();\n"
                    "#assert P() deterministic;\n#assert Sys |= []<> add;\n"
                    "#assert Sys |= []<> e.1.1;\n",
                    encoding="utf-8")

    def edit(node):
        if isinstance(node, Call) and node.function == "List.Add=":
            return dataclasses.replace(node, args=(node.args[0], _eq(N, 1)))
        return None

    systems = {ts.name: replace_nodes(ts, edit) for ts in api.load_model(str(path)).systems}
    names = _python_names(systems["P"]) | _python_names(systems["P"], packed=False)
    assert {"e.0.False", "e.1.True"} <= names
    assert not any("True.True" in n or "False." in n for n in names)
    assert assert_engines_agree(systems["P"]) == 2
    assert compare(systems["Sys"], 20000) == 2 * len(tuple(Fairness))


# A hypothesis test: random name expressions mixing bools and ints over n, named by
# both engines alike.

_LEAVES = st.one_of(st.just(N), st.integers(0, 3).map(Const), st.booleans().map(Const),
                    st.sampled_from([0, 1, 2]).map(lambda k: _eq(N, k)))


def _grow(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.tuples(st.sampled_from(["&", "|", "^", "+", "-", "==", "<", "&&", "xor"]),
                  inner, inner).map(lambda t: Binary(t[0], t[1], t[2])),
        st.tuples(inner, inner, inner).map(lambda t: Conditional(t[0], t[1], t[2])),
        st.tuples(st.sampled_from(["!", "-", "~"]), inner).map(lambda t: Unary(*t)),
        st.tuples(st.sampled_from(["Math.Max", "Math.Min"]), inner, inner).map(
            lambda t: Call(t[0], (t[1], t[2]))),
    )


EXPRESSIONS = st.recursive(_LEAVES, _grow, max_leaves=6)


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(components=st.lists(EXPRESSIONS, min_size=1, max_size=6))
def test_random_names_of_mixed_kinds_are_named_as_python_names_them(
        components: list[Expr], tmp_path: Path) -> None:
    """Names of random expressions over n (0, 1, 2) mixing bools and ints: every name
    the Python engine gives a step is interned by C's fair search, and nothing else;
    ``deterministic``'s verdicts and reasons (P: nondeterministic on its first name)
    are the Python engine's."""
    systems = _systems(tmp_path, tuple(components))
    ts = systems["Sys"]
    python = _python_names(ts)
    lib = driver._type_library(driver.compile_model(ts).library)
    before = set(_table(lib))
    prop = ts.properties[0]  # []<> tick: the fair search meets every step
    got = api.check_property(ts, prop, api.CheckOptions(engine="c", fairness=Fairness.WEAK))
    want = api.check_property(ts, prop, api.CheckOptions(engine="python",
                                                         fairness=Fairness.WEAK))
    assert (got.outcome, got.statistics.states, got.notes) == \
        (want.outcome, want.statistics.states, want.notes)
    assert python <= set(_table(lib))
    assert set(_table(lib)) - before <= python
    for ts in (systems["P"], systems["Q"]):
        prop = ts.properties[0]
        c = driver.check_property_c(ts, prop)
        py = api.check_property(ts, prop, api.CheckOptions(engine="python"))
        assert (c.outcome, c.reason, c.statistics.states) == \
            (py.outcome, py.reason, py.statistics.states)


def test_a_bool_constant_sent_is_named_as_the_int_it_is_stored_as() -> None:
    """A bool constant sent is folded to an int by both engines (``codegen.fold``;
    ``store_code`` converts the literal too): ``post[i]!true`` is ``post[i]!1``, also
    on a channel known only at run time, whose fields keep a computed bool;
    hand-built, as the CSP# front-end folds it to 1 itself. C names it alike."""
    for ts in api.load_model(str(MODELS / "computed_names_channel_kinds.csp")).systems:
        ts = replace_nodes(ts, lambda node: dataclasses.replace(node, args=(Const(True),))
                           if isinstance(node, Send) and isinstance(node.args[0], Binary)
                           else None)
        names = _python_names(ts)
        assert "post[0]!1" in names and not any("True" in n for n in names)
        assert assert_engines_agree(ts) == 3  # exploration, deadlockfree, deterministic
        assert compare(ts, 20000) == 2 * len(tuple(Fairness))
        lib = driver._type_library(driver.compile_model(ts).library)
        assert not any("True" in n for n in _table(lib))


def test_a_rendezvous_of_run_time_kind_keeps_its_senders_kinds() -> None:
    """A rendezvous is named after the sender's offer, which copies the kinds computed
    at the send (``add_offer``: a compound literal dies with the sender's block):
    ``r!(n == 1 ? n == 1 : n)`` names r.True or r.0, ``q!n.(n == 0 ? n : n == 0)``
    q.0.0 or q.1.False."""
    path = MODELS / "computed_names_mixed_rendezvous.csp"
    for ts in api.load_model(str(path)).systems:
        def edit(node):
            if isinstance(node, Send) and isinstance(node.args[-1], Binary):
                last = node.args[-1]
                return dataclasses.replace(node, args=(*node.args[:-1], Conditional(
                    last, N, last) if len(node.args) > 1 else Conditional(last, last, N)))
            return None

        ts = replace_nodes(ts, edit)
        names = _python_names(ts)
        assert {"r.True", "r.0", "q.0.0", "q.1.False"} <= names
        assert assert_engines_agree(ts) == 2
        assert compare(ts, 20000) == 3 * len(tuple(Fairness))
        lib = driver._type_library(driver.compile_model(ts).library)
        assert names <= set(_table(lib))
