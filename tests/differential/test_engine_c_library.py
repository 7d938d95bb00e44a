"""PAT's library classes in the C engine against the Python engine (issue 12 item 1).

Random CSP# models (hypothesis): two processes interleave random sequences of library
operations on a set, a second set, a queue, a stack, a list and a hash table, with small
arguments, so the same contents arise in several orders and some operations fail
(``Dequeue`` of an empty queue, ``Get`` out of range, ``Add`` of a key already present).
Both engines must give the same counts and verdicts; the C trace is replayed on the
Python semantics step by step with every library id turned back into the Python tuple
(``driver.library_values``), so a value computed differently in C, or a value interned
twice (two ids for one content: more C states), fails the test. Every library function
the IR can call is in the pool.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.engine_c.gen_library import C_FUNCTIONS
from bridge.ir import Fairness
from bridge.ir.library import function_names
from tests.conftest import in_ci
from tests.differential.test_engine_c import assert_engines_agree
from tests.differential.test_engine_c_ltl import compare

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

HEADER = """#import "PAT.Lib.Set";
#import "PAT.Lib.Queue";
#import "PAT.Lib.Stack";
#import "PAT.Lib.List";
#import "PAT.Lib.HashTable";
var<Set> s;
var<Set> t;
var<Queue> q;
var<Stack> k;
var<List> l;
var<HashTable> h;
var r = 0;
var f = false;
"""

# One statement per operation ({a}, {b}: small values, {i}: a small index), by class;
# the calls the IR makes of them cover every function of semantics/library.py (test
# below).
GROUPS = (
    ("s.Add({a});", "s.Remove({a});", "r = s.Count();", "r = s.Get({i});",
     "if (s.Contains({a})) {{ r = 1; }}", "t = s.Union(s, t);", "t = s.Intersect(s, t);",
     "t = t.Substract(t, s);", "s.GetSubsetByIndex({b});", "t.Add({b});",
     "if (s.IsDisjoint(t)) {{ r = 2; }}", "if (s.IsOverlapping(t)) {{ r = 3; }}",
     "if (s == t) {{ r = 4; }}", "f = s.Add({a});", "f = s.Remove({a});"),
    ("q.Enqueue({a});", "r = q.Dequeue();", "r = q.First();", "r = q.Last();",
     "r = q.Count();", "if (q.Contains({a})) {{ r = 7; }}", "q.Clear();"),
    ("k.Push({a});", "r = k.Pop();", "r = k.Peek();", "r = k.Count();",
     "if (k.Contains({a})) {{ r = 8; }}", "k.Clear();"),
    ("l.Add({a});", "l.Insert({i}, {a});", "l.Remove({a});", "l.RemoveAt({i});",
     "r = l.Get({i});", "r = l.IndexOf({a});", "r = l.Count();",
     "if (l.Contains({a})) {{ r = 9; }}", "f = l.Remove({a});", "l.Clear();"),
    ("h.Add({a}, {b});", "h.Remove({a});", "r = h.GetValue({a});", "r = h.Count();",
     "if (h.ContainsKey({a})) {{ r = 11; }}", "if (h.ContainsValue({b})) {{ r = 12; }}",
     "h.Clear();"),
)
OPERATIONS = tuple(op for group in GROUPS for op in group)


@st.composite
def operation(draw, pool: tuple[str, ...]) -> str:
    text = draw(st.sampled_from(pool))
    return text.format(a=draw(st.integers(0, 3)), b=draw(st.integers(0, 3)),
                       i=draw(st.integers(-1, 2)))


@st.composite
def library_models(draw) -> str:
    # one or two classes per model, so that operations meet on the same values
    classes = draw(st.lists(st.sampled_from(GROUPS), min_size=1, max_size=2, unique=True))
    pool = tuple(op for group in classes for op in group)
    procs = []
    for p in range(2):
        events = []
        for e in range(draw(st.integers(1, 3))):
            ops = " ".join(draw(st.lists(operation(pool), min_size=1, max_size=4)))
            events.append(f"p{p}e{e}{{{ops}}}")
        # both processes stop (mostly): the deadlock check's trace then walks every
        # operation of one interleaving, each state compared with the Python one
        again = p == 0 and draw(st.integers(0, 3)) == 0
        procs.append(f"P{p}() = " + " -> ".join(events) + (" -> P0();" if again else " -> Stop;"))
    return (HEADER + "\n".join(procs) + "\nSys() = P0() ||| P1();\n#define one r == 1;\n"
            "#assert Sys() deadlockfree;\n#assert Sys() reaches one;\n"
            "#assert Sys() |= []<> one;\n")


def _systems(text: str, tmp_path_factory) -> list:
    path = tmp_path_factory.mktemp("lib") / "random_library.csp"
    path.write_text(text, encoding="utf-8")
    return list(api.load_model(str(path)).systems)


@given(text=library_models())
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
def test_random_library_operations_agree(text: str, tmp_path_factory) -> None:
    for ts in _systems(text, tmp_path_factory):
        assert assert_engines_agree(ts, limit=1000) > 0, text


@given(text=library_models())
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
def test_random_library_operations_agree_under_fairness(text: str, tmp_path_factory) -> None:
    for ts in _systems(text, tmp_path_factory):
        compare(ts, 1000, notions=(Fairness.NONE, Fairness.WEAK, Fairness.PROCESS_STRONG))


def test_every_library_function_has_c_code() -> None:
    """Every function of a library class that a ``Call`` may name is in C."""
    wanted = {f for f in function_names() if not f.startswith("Math.")}
    assert wanted == set(C_FUNCTIONS)


def test_the_pool_calls_every_library_function(tmp_path: Path) -> None:
    """The random models can reach every library function."""
    path = tmp_path / "all.csp"
    ops = [o.format(a=1, b=2, i=0) for o in OPERATIONS]
    path.write_text(HEADER + "P() = e{" + " ".join(ops) + "} -> Stop;\n#assert P() deadlockfree;\n",
                    encoding="utf-8")
    ts = api.load_model(str(path)).systems[0]
    called = set()
    for proc in ts.processes:
        for e in proc.edges:
            called |= set(_calls(e))
    assert {f for f in C_FUNCTIONS if not f.endswith(".new")} <= called
    assert driver.supports(ts)[0]


def _calls(node) -> list[str]:
    """Return the functions of every ``Call`` under an IR node."""
    import dataclasses

    from bridge.ir import Call

    out: list[str] = []
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, Call):
            out.append(x.function)
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))
        elif isinstance(x, tuple | list):
            stack.extend(x)
    return out


@pytest.mark.parametrize("name", ["pat35_library_set.csp", "pat35_library_queue_stack.csp",
                                  "pat35_library_list_table.csp", "pat35_library_error.csp",
                                  "library_set_orders.csp", "library_table_overwrite.csp",
                                  "computed_names_library.csp"])
def test_auto_picks_c(name: str) -> None:
    """``--engine auto`` checks every assertion of the library test models in C (once
    the library is built: before, ``auto`` runs a small model on the Python engine)."""
    path = Path(__file__).resolve().parents[1] / "models" / "csp" / name
    for ts in api.load_model(str(path)).systems:
        driver.compile_model(ts)
        for prop in ts.properties:
            verdict = api.check_property(ts, prop, api.CheckOptions(engine="auto"))
            assert ("engine", "c") in verdict.statistics.extra, (name, prop.text, verdict.notes)

