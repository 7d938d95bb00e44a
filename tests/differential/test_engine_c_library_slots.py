"""Library values outside the variables of their class, C engine against Python (issue
12 item 1): a process parameter (an int slot) bound to a set at one call and to an int
at another (``gen_library.mixed_variables``: the slot keeps library ids below every int
it may hold), compared with ``==``/``!=`` against sets and ints and shown in event names
(``e.t`` reads ``e.(1,)`` in both engines); a block variable of a library class; a
library value compared with an int (never equal in Python).

Counts, verdicts and traces (the C trace replayed on the Python semantics, each mixed
slot turned back into its int or tuple: ``driver.library_values``) must agree, and the
fair searches' verdicts and lassos under no fairness, process-weak, event-level weak and
strong-global fairness (their event names are interned from the rendered names, so a
name rendered otherwise than Python's fails the lasso comparison).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import (
    Assign,
    Binary,
    Const,
    Fairness,
    If,
    LocalVar,
    ObjectType,
    PropertyKind,
    Var,
)
from tests.conftest import in_ci
from tests.differential.test_engine_c import assert_engines_agree
from tests.differential.test_engine_c_ltl import compare
from tests.unit.engine_c.test_event_names import _python_names, _table

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

MODELS = Path(__file__).resolve().parents[1] / "models" / "csp"
NAMES = ("library_param.csp", "library_param_loop.csp", "library_param_ops.csp",
         "library_block_var.csp", "library_messages.csp", "array_messages.csp",
         "library_param_number.csp", "library_param_number_error.csp",
         "library_messages_arity.csp", "library_array_cells.csp")
NOTIONS = (Fairness.NONE, Fairness.PROCESS_WEAK, Fairness.WEAK, Fairness.STRONG_GLOBAL)


def _systems(path: Path | str) -> list:
    return list(api.load_model(str(path)).systems)


def _ltl_count(ts) -> int:
    return sum(p.kind is PropertyKind.LTL for p in ts.properties)


@pytest.mark.parametrize("name", NAMES)
def test_models_agree(name: str) -> None:
    for ts in _systems(MODELS / name):
        assert driver.supports(ts)[0]
        assert assert_engines_agree(ts, limit=100000) > 0


@pytest.mark.parametrize("name", NAMES)
def test_models_agree_under_fairness(name: str) -> None:
    for ts in _systems(MODELS / name):
        # every (LTL property, notion) pair ran in C and agreed
        assert compare(ts, 100000, notions=NOTIONS) == _ltl_count(ts) * len(NOTIONS)


@pytest.mark.parametrize("name", NAMES)
def test_auto_runs_in_c(name: str) -> None:
    """``--engine auto`` checks every assertion in C, without a fallback note."""
    for ts in _systems(MODELS / name):
        driver.compile_model(ts)
        for prop in ts.properties:
            verdict = api.check_property(ts, prop, api.CheckOptions(engine="auto"))
            assert ("engine", "c") in verdict.statistics.extra, (name, prop.text, verdict.notes)
            assert not any("Python engine" in n for n in verdict.notes), verdict.notes


def _write(tmp_path: Path, text: str) -> list:
    path = tmp_path / "m.csp"
    path.write_text(text, encoding="utf-8")
    return _systems(path)


def test_mixed_slot_holding_a_set_is_not_the_int_below_its_ids(tmp_path: Path) -> None:
    """Regression: a parameter holding the empty set is kept as the lowest 32-bit int;
    ``t == -2147483648`` must stay false as in Python (a tuple is never an int)."""
    for ts in _write(tmp_path, '#import "PAT.Lib.Set";\nvar<Set> s;\n'
                     "P = a -> Q(s) [] b{s.Add(1);} -> Q(s) [] c -> Q(-1073741824);\n"
                     "Q(t) = e.t -> ([t == -2147483648] bad -> Stop [] [t != s] other -> Stop"
                     " [] [t == s] same -> Stop);\n#assert P deadlockfree;\n"):
        assert assert_engines_agree(ts) > 0


def test_int_in_the_range_of_ids_falls_back(tmp_path: Path) -> None:
    """Regression: an int below -2**30 stored into a slot that may hold a library value
    has no encoding there: the C search falls back to the Python engine (a note), never
    a wrong count."""
    for ts in _write(tmp_path, '#import "PAT.Lib.Set";\nvar<Set> s;\n'
                     "P = a{s.Add(1);} -> Q(s) [] c -> Q(-2147483648);\n"
                     "Q(t) = e.t -> ([t == s] same -> Stop);\n#assert P deadlockfree;\n"):
        driver.compile_model(ts)  # else auto may run a small model in Python anyway
        py = api.check_property(ts, ts.properties[0], api.CheckOptions(engine="python"))
        auto = api.check_property(ts, ts.properties[0], api.CheckOptions(engine="auto"))
        assert auto.outcome is py.outcome
        assert auto.statistics.states == py.statistics.states
        assert any("a value left" in n for n in auto.notes), auto.notes


def test_library_value_equals_no_int(tmp_path: Path) -> None:
    """Regression: ``s == 1`` with ``s`` a set is false in Python (both sides are
    evaluated), and the C engine no longer refuses it."""
    for ts in _write(tmp_path, '#import "PAT.Lib.Set";\nvar<Set> s;\nvar n = 1;\n'
                     "P = [s == n] bad -> Stop [] [s != 1] good{s.Add(n);} -> P;\n"
                     "#assert P deadlockfree;\n"):
        assert assert_engines_agree(ts) > 0


# --------------------------------------------------------------------------------------
# Random models: a process P(x) changes two sets and passes a set, an int or its
# parameter to Q(t) or sends it on a buffered or a rendezvous channel; Q names e.t,
# compares t with sets and ints and passes t on to R(u), which names f.u and returns
# to P; C receives from the channel (g.z, compares z). Every parameter of Q and R and
# every message may hold both; a message may also be the whole array a.

OPS = ("s.Add({a});", "w.Add({a});", "s.Remove({a});", "n = s.Count();", "w = s.Union(s, w);",
       "w.Remove({a});", "a[1] = {a};")
# (an int computed by a library call, n = s.Count(), is not passed on: value_kind
# does not know it is an int, so names with it are left to the Python engine)
TO_Q = ("s", "w", "x", "{a}")
TO_C = (*TO_Q, "a")  # a whole array: sent as the tuple of its cells
GUARDS = ("t == s", "t != w", "t == {a}", "t != x", "t == n", "true",
          "t == {a} && t + 1 > 1", "t < {a}")  # t read as a number: an int, or an error


@st.composite
def _pick(draw, pool: tuple[str, ...]) -> str:
    return draw(st.sampled_from(pool)).format(a=draw(st.integers(0, 2)))


@st.composite
def mixed_models(draw) -> str:
    p_branches = []
    for k in range(draw(st.integers(1, 3))):
        ops = " ".join(draw(st.lists(_pick(OPS), min_size=1, max_size=2)))
        then = draw(st.sampled_from(("Q({v}, x)", "c!{v} -> P(x)", "d!{v} -> P(x)",
                                     "c!{v}.1 -> P(x)")))  # c then carries its arity
        pool = TO_Q if then.startswith("Q") else TO_C
        p_branches.append(f"p{k}{{{ops}}} -> " + then.format(v=draw(_pick(pool))))
    q_branches = []
    for k in range(draw(st.integers(1, 3))):
        target = draw(st.sampled_from(("R(t)", "R({a})", "P(x)"))).format(
            a=draw(st.integers(0, 2)))
        q_branches.append(f"[{draw(_pick(GUARDS))}] q{k} -> {target}")
    back = draw(st.sampled_from(("P(0)", "P(1)", "P(2)")))
    return ('#import "PAT.Lib.Set";\nvar<Set> s;\nvar<Set> w;\nvar n = 0;\nvar a[2];\n'
            f"channel c {draw(st.integers(1, 2))};\nchannel d 0;\n"
            f"P(x) = {' [] '.join(p_branches)};\n"
            "C = c?z -> g.z -> ([z == s] same -> C [] [z != w] C [] [z == 1] C)"
            " [] c?z.y -> g.z.y -> C"
            " [] d?z -> h.z -> C;\n"
            "Sys = P(0) ||| C;\n"
            f"Q(t, x) = e.t -> ({' [] '.join(q_branches)});\n"
            f"R(u) = f.u -> ([u == s] same -> {back} [] [u != s] {back});\n"
            "#assert Sys deadlockfree;\n#assert Sys |= []<> same;\n")


@given(text=mixed_models())
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
def test_random_mixed_parameters_agree(text: str, tmp_path_factory) -> None:
    path = tmp_path_factory.mktemp("mixed") / "random_mixed.csp"
    path.write_text(text, encoding="utf-8")
    for ts in _systems(path):
        assert driver.supports(ts)[0], text
        assert assert_engines_agree(ts, limit=5000) > 0, text
        assert compare(ts, 5000, notions=(Fairness.NONE, Fairness.PROCESS_WEAK,
                                          Fairness.STRONG_GLOBAL)) == 3, text


@pytest.mark.parametrize("size", [0, 1])
@pytest.mark.parametrize("sent", ["-2000000000", "-2147483647", "-2147483646", "0", "1"])
def test_a_parameter_holding_a_set_matched_against_an_int_message(
        tmp_path: Path, size: int, sent: str) -> None:
    """``c?t`` with ``t`` a parameter that may hold a set matches the message against
    it; the channel carries ints only (any int, the range of ids included: -2**31 + 1
    is the encoding of a small id), and a set never equals an int in Python: the
    pattern's flag 2 matches no message (``Expressions.pattern``), buffered or
    rendezvous. Once refused by name; now the engines agree and auto stays in C."""
    for ts in _write(tmp_path, '#import "PAT.Lib.Set";\nvar<Set> s;\n'
                     f"channel c {size};\n"
                     "P = a{s.Add(1);} -> Q(s) [] b -> Q(0) [] d -> Q(1);\n"
                     f"S = c!({sent}) -> S [] c!0 -> S [] c!1 -> S;\n"
                     "Q(t) = e.t -> c?t -> f.t -> Q(t);\nSys = P ||| S;\n"
                     "#assert Sys deadlockfree;\n#assert Sys |= []<> f;\n"):
        assert driver.supports(ts)[0]
        assert assert_engines_agree(ts) > 0
        assert compare(ts, 100000, notions=NOTIONS) == len(NOTIONS)
        driver.compile_model(ts)
        for prop in ts.properties:
            verdict = api.check_property(ts, prop, api.CheckOptions(engine="auto"))
            py = api.check_property(ts, prop, api.CheckOptions(engine="python"))
            assert ("engine", "c") in verdict.statistics.extra, verdict.notes
            assert not any("Python engine" in n for n in verdict.notes), verdict.notes
            assert (verdict.outcome, verdict.statistics.states) == (py.outcome,
                                                                     py.statistics.states)


def _without_initial_value(ts) -> object:
    """Return ``ts`` (library_block_var.csp) with each block variable of a library class
    declared without a value (hand-built IR: the CSP# front-end always gives one), read
    as a number while it holds the int 0 (``n = n + t``), compared with 0, then given
    its value. (Read as a number holding the queue, the Python engine fails with a
    TypeError: ``semantics.codegen._may_hold_tuples`` does not look at block variables,
    which only hand-built IR makes hold library values in a model without one.)"""
    def edit(stmts: tuple) -> tuple:
        out: list = []
        for stmt in stmts:
            if not (isinstance(stmt, LocalVar) and isinstance(stmt.type, ObjectType)):
                out.append(stmt)
                continue
            t, n = Var(stmt.name, "block"), Var("n", "global")
            out += [dataclasses.replace(stmt, init=None), Assign(n, Binary("+", n, t)),
                    If(((Binary("==", t, Const(0)), (Assign(t, stmt.init),)),))]
        return tuple(out)
    procs = tuple(dataclasses.replace(p, edges=tuple(dataclasses.replace(e, effect=edit(e.effect))
                                                     for e in p.edges))
                  for p in ts.processes)
    return dataclasses.replace(ts, processes=procs)


def test_block_library_variable_without_initial_value() -> None:
    """A block variable of a library class without a value holds the int 0 in Python
    until a library value is stored; the C local is kept as a mixed slot is
    (``gen_library.library_block``), no longer refused by name."""
    ts, = _systems(MODELS / "library_block_var.csp")
    edited = _without_initial_value(ts)
    assert driver.supports(edited)[0]
    assert assert_engines_agree(edited) > 0
    py = api.check_property(edited, edited.properties[0], api.CheckOptions(engine="python"))
    assert compare(edited, 100000, notions=NOTIONS) == _ltl_count(edited) * len(NOTIONS)
    driver.compile_model(edited)
    auto = api.check_property(edited, edited.properties[0], api.CheckOptions(engine="auto"))
    assert ("engine", "c") in auto.statistics.extra, auto.notes
    assert not any("Python engine" in n for n in auto.notes), auto.notes
    assert (auto.outcome, auto.reason, auto.statistics.states) == (
        py.outcome, py.reason, py.statistics.states)


PROCESS_CHANNELS = """\
#import "PAT.Lib.Set";
var<Set> s;
var n = 0;
channel c 2;
channel d 1;
P = add{s.Add(n); n = (n + 1) % 3;} -> c!s -> P [] num -> c!n -> P
    [] c?x -> e.x -> ([x == s] same -> P [] [x != s] differ -> P [] [x == 1] one -> P);
Q = d!s -> d?y -> f.y -> ([y == s] Q [] [y != s] Q) [] d!n -> d?z -> g.z -> Q;
Sys = P ||| Q;
#assert Sys deadlockfree;
#assert Sys deterministic;
#assert Sys |= []<> same;
#assert Sys |= []<> add;
#assert Sys |= []<> g.1;
"""


def _into_processes(ts, owners: dict[str, str]):
    """Return ``ts`` with each global channel of ``owners`` (process name prefix ->
    channel) declared in that process instead (hand-built IR: CSP# processes have no
    channels), its uses there read as the process's channel."""
    def edit(node, name: str):
        if isinstance(node, Var) and node.scope == "global" and node.name == name:
            return dataclasses.replace(node, scope="local")
        if dataclasses.is_dataclass(node) and not isinstance(node, type):
            return dataclasses.replace(node, **{f.name: edit(getattr(node, f.name), name)
                                                for f in dataclasses.fields(node) if f.init})
        if isinstance(node, tuple):
            return tuple(edit(x, name) for x in node)
        return node

    chans = {c.name: c for c in ts.channels}
    procs = []
    for p in ts.processes:
        name = next(ch for prefix, ch in owners.items() if p.name.startswith(prefix))
        procs.append(dataclasses.replace(edit(p, name), channels=(chans[name],)))
    return dataclasses.replace(ts, channels=tuple(c for c in ts.channels
                                                  if c.name not in owners.values()),
                               processes=tuple(procs))


def test_library_values_on_process_channels(tmp_path: Path) -> None:
    """Sets and ints on channels declared in a process (P's c, Q's d: hand-built IR,
    CSP# processes have no channels): every buffer field of each instance's channel is
    kept as a mixed slot (``pack_layout``), its sends encode library values
    (``message_value``), ``br_chev`` renders them (flag 64 by the channel's name in
    the process). Counts, verdicts, traces, lassos under four notions; every name the
    Python engine gives a step is the one C interns; ``auto`` runs in C."""
    path = tmp_path / "process_channels.csp"
    path.write_text(PROCESS_CHANNELS, encoding="utf-8")
    ts, = _systems(path)
    local = _into_processes(ts, {"P": "c", "Q": "d"})
    assert not local.channels and all(p.channels for p in local.processes)
    assert driver.supports(local)[0]
    assert assert_engines_agree(local) == 3  # the exploration, deadlockfree, deterministic
    assert compare(local, 100000, notions=NOTIONS) == _ltl_count(local) * len(NOTIONS)
    lib = driver._type_library(driver.compile_model(local).library)
    before = set(_table(lib))
    for prop in local.properties:
        auto = api.check_property(local, prop, api.CheckOptions(engine="auto"))
        py = api.check_property(local, prop, api.CheckOptions(engine="python"))
        assert ("engine", "c") in auto.statistics.extra, auto.notes
        assert not any("Python engine" in n for n in auto.notes), auto.notes
        assert (auto.outcome, auto.reason, auto.statistics.states) == (
            py.outcome, py.reason, py.statistics.states)
        if prop.kind is PropertyKind.LTL:
            weak = api.check_property(local, prop, api.CheckOptions(
                engine="c", fairness=Fairness.WEAK))
            assert ("engine", "c") in weak.statistics.extra, weak.notes
    names = _python_names(local)
    assert "P().c!(0,)" in names and "Q().d?(0, 1)" in names
    table = set(_table(lib))
    assert names <= table and table - before <= names


def test_whole_arrays_on_a_process_channel(tmp_path: Path) -> None:
    """A whole array sent on a channel declared in the process (hand-built IR), then
    compared with a set after the receive: counts, verdicts, lassos under four
    notions in C."""
    path = tmp_path / "process_array.csp"
    path.write_text('#import "PAT.Lib.Set";\nvar a[2] = [0, 1];\nvar<Set> s;\nchannel c 1;\n'
                    "P = inc{a[0] = (a[0] + 1) % 3;} -> P [] c!a -> c?x -> e.x -> "
                    "([x == s] same -> P [] [x != s] differ -> P) [] add{s.Add(a[0]);} -> P;\n"
                    "Sys = P;\n#assert Sys deadlockfree;\n#assert Sys |= []<> same;\n"
                    "#assert Sys |= []<> inc;\n", encoding="utf-8")
    ts, = _systems(path)
    local = _into_processes(ts, {"Sys": "c"})
    assert driver.supports(local)[0]
    assert assert_engines_agree(local) == 2
    assert compare(local, 100000, notions=NOTIONS) == _ltl_count(local) * len(NOTIONS)


def test_array_cells_holding_sets_are_named_as_python(tmp_path: Path) -> None:
    """``f.a`` and ``c!a`` on a whole array whose cells hold sets (was refused: "a whole
    array used as a value"): every name the Python engine gives a step is one the C
    engine interns (``f.((0,), 1)``, pairs ``f.((0, 1), (2, 3))``, the same pairs out of
    order ``f.((2, 3), (0, 1))``), and the deterministic check meets two ``f.a`` steps
    on one such name as the Python engine does."""
    ts, = _systems(MODELS / "library_array_cells.csp")
    lib = driver._type_library(driver.compile_model(ts).library)
    before = set(_table(lib))
    for prop in ts.properties:
        got = api.check_property(ts, prop, api.CheckOptions(engine="c"))
        assert ("engine", "c") in got.statistics.extra, got.notes
    names = _python_names(ts)
    assert {"f.((0,), 1)", "f.((0, 1), (2, 3))", "f.((2, 3), (0, 1))", "c!((0,), (2, 3))",
            "g.((0, 1), 0)"} <= names
    table = set(_table(lib))
    assert names <= table and table - before <= names
    (nd,) = _write(tmp_path, '#import "PAT.Lib.Set";\nvar<Set> s;\nvar a[2];\n'
                   "Q(t) = e{a[0] = t;} -> (f.a -> x -> Stop [] f.a -> y -> Stop);\n"
                   "P() = add{s.Add(1);} -> Q(s);\n#assert P() deterministic;\n")
    for engine in ("c", "python"):
        got = api.check_property(nd, nd.properties[0], api.CheckOptions(engine=engine))
        assert got.reason == "nondeterministic on event 'f.((1,), 0)'", (engine, got.reason)
        assert not any("Python engine" in note for note in got.notes), got.notes


def _agree_in_c(ts) -> set[str]:
    """Assert that ``ts`` runs in C and agrees with the Python engine (counts, verdicts,
    traces; LTL verdicts and lassos under ``NOTIONS``); return the Python step names."""
    assert driver.supports(ts)[0]
    assert assert_engines_agree(ts) > 0
    assert compare(ts, 100000, notions=NOTIONS) == _ltl_count(ts) * len(NOTIONS)
    return _python_names(ts)


def test_array_of_set_pairs_equals_a_hashtable(tmp_path: Path) -> None:
    """An array whose cells hold two sets of two ints, sent and received, equals a
    HashTable with those (key, value) pairs in the Python engine (a tuple of pairs)
    when the keys ascend, not otherwise: the C engine interns such an array as the
    table's pairs (``br_lib_tuple``), so ``[x == w]`` agrees both ways."""
    ts, = _write(tmp_path, '#import "PAT.Lib.Set";\n#import "PAT.Lib.HashTable";\n'
                 "var<Set> s;\nvar<Set> u;\nvar<HashTable> h;\nvar a[2];\nchannel c 1;\n"
                 "Q(t, v, w) = put{a[0] = t; a[1] = v;} -> c!a -> c?x -> "
                 "([x == w] same -> Stop [] [x != w] differ -> Stop)\n"
                 "  [] swap{a[0] = v; a[1] = t;} -> c!a -> c?y -> "
                 "([y == w] same2 -> Stop [] [y != w] differ2 -> Stop);\n"
                 "P() = init{s.Add(0); s.Add(1); u.Add(2); u.Add(3); h.Add(0, 1); "
                 "h.Add(2, 3);} -> Q(s, u, h);\n"
                 "#assert P() deadlockfree;\n#assert P() |= []<> same;\n"
                 "#assert P() |= []<> differ2;\n")
    names = _agree_in_c(ts)
    assert "same" in names and "differ2" in names and "differ" not in names


def test_array_cells_holding_sets_compared_whole(tmp_path: Path) -> None:
    """A received tuple of cells holding a set compared with the array (``[x == a]``,
    the array's tuple interned by ``br_lib_tuple``) and two such arrays compared cell
    by cell (``[a == b]``), named ``eq.((1,), 0).((1,), 0)``: both engines agree."""
    ts, = _write(tmp_path, '#import "PAT.Lib.Set";\nvar<Set> s;\nvar a[2];\nvar b[2];\n'
                 "channel c 1;\nQ(t) = e{a[0] = t;} -> c!a -> c?x -> "
                 "([x == a] same -> R(t) [] [x != a] differ -> R(t));\n"
                 "R(t) = f{b[0] = t;} -> ([a == b] eq.a.b -> Stop [] [a != b] ne.b -> Stop);\n"
                 "P() = add{s.Add(1);} -> Q(s) [] add2{s.Add(2);} -> Q(s);\n"
                 "#assert P() deadlockfree;\n#assert P() |= []<> same;\n")
    names = _agree_in_c(ts)
    assert {"same", "eq.((1,), 0).((1,), 0)"} <= names and "differ" not in names
