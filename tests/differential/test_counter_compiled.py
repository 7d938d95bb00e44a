"""The counter abstraction's compiled successor function (``bridge/reductions/
_compile.py``, the default) against the interpreter it specialises (``_interp.py``,
``CounterSpace(..., compiled=False)``, the reference): from the initial state, both
spaces reach the same abstract states with the same steps (units, event, exactness,
entered local states), the same must-enabled units and the same ω/unknown flags, on
every model the counter abstraction's tests use, with and without a cutoff."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.diagnostics import ModelRuntimeError
from bridge.ir import TransitionSystem
from bridge.reductions._compile import compile_edge
from bridge.reductions.counter import CounterSpace, analyse_counter_model
from tests.unit.reductions import test_counter_events as events

csp = importlib.import_module("bridge.frontends.csp")
ROOT = Path(__file__).resolve().parents[2]
LIMIT = 4000  # abstract states compared per model (all of them for the small sizes)


def load(path: str, n: int | None = None, extra: str = "") -> TransitionSystem:
    text = (ROOT / "case_studies" / path).read_text() + extra
    if n is not None:
        text = re.sub(r"#define N \d+;", f"#define N {n};", text)
    return csp.load_csp(Path(path).name, text).systems[0]


def explore(space: CounterSpace, limit: int = LIMIT) -> dict:
    """Return state -> (successors, must-enabled) for the first ``limit`` states of a
    breadth-first exploration (the order is the successor order, so it is compared too)."""
    seen: dict = {}
    queue = [space.initial_state()]
    while queue and len(seen) < limit:
        state = queue.pop(0)
        if state in seen:
            continue
        succ = space.successors(state)
        seen[state] = (succ, space.must_enabled(state))
        queue.extend(t for _s, t in succ if t not in seen)
    return seen


def agree(ts: TransitionSystem, cutoff: int | None, unbounded: bool = False, formula=None,
          limit: int = LIMIT) -> int:
    """Assert that both successor functions agree on ``ts``; return the states compared."""
    model = analyse_counter_model(ts, formula)
    fast = CounterSpace(model, cutoff, unbounded)
    slow = CounterSpace(model, cutoff, unbounded, compiled=False)
    assert any(fn is not None for at in fast._edges_at for es in at.values() for *_x, fn in es)
    a, b = explore(fast, limit), explore(slow, limit)
    assert list(a) == list(b)
    for state in a:
        assert a[state] == b[state], state
    assert fast.local_states == slow.local_states
    assert (fast.saw_omega, fast.saw_unknown) == (slow.saw_omega, slow.saw_unknown)
    return len(a)


CASES = [
    ("le_pl/le_pl.csp", 3, [None, 1, 2]),
    ("le_pl/le_pl.csp", 10, [2]),
    ("rw/rw.csp", None, [None, 1]),
    ("ml/ml.csp", 3, [None, 1, 2]),
    ("ml/ml.csp", 10, [2]),
    ("kv/kv.csp", 3, [None, 2]),
    ("stack/stack_anon.csp", 3, [None]),
    ("stack/stack_anon.csp", 4, [None, 2]),
]


@pytest.mark.parametrize(("path", "n", "cutoffs"), CASES)
def test_case_study_models(path, n, cutoffs):
    ts = load(path, n)
    formula = ts.properties[0].formula
    for cutoff in cutoffs:
        assert agree(ts, cutoff, formula=formula) > 1


@pytest.mark.parametrize("path", ["le_pl/le_pl.csp", "ml/ml.csp"])
def test_unbounded(path):
    ts = load(path, 3)
    assert agree(ts, 2, unbounded=True, formula=ts.properties[0].formula) > 1


@pytest.mark.parametrize("text", [events.MUTEX, events.DEADLOCK, events.ML + events.ML_EXTRA,
                                  events.OWN_CELLS, events.COMPONENTS, events.OTHER])
def test_event_models(text):
    ts = events.with_n(text, 3)
    for cutoff in (None, 1, 2):
        agree(ts, cutoff)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events.family_models(), st.sampled_from([None, 1, 2]))
def test_random_families(model, cutoff):
    text, _events = model
    ts = csp.load_csp("r.csp", text + "#assert Sys() |= []<> p;\n").systems[0]
    agree(ts, cutoff)


DATA = """
#define N 3;
var a[4] = [1, 2, 3, 4]; var x = 0; var y:{0..5} = 0;
P(i) = [x % 3 != 2 && (a[x % 4] > -100 || !(y == 0))] s{
        var k = 0; var b = [5, 6];
        while (k < 2) { b[k] = b[k] - a[k] * 5; k = k + 1; }
        if (b[0] < 0 xor y > 3) { y = (y + 1) % 6; } else if (x > 1) { y = 0; } else { x = x + 1; }
        var z = !(k > 5) && x != 7;
        if (z) { a[(x + k) % 4] = (b[1] / 3) * 10 + (b[1] % 3); }
        x = x % 3;
    } -> P(i)
    [] [y == 4] t{y = y + 1;} -> P(i)ERROR;
Sys() = ||| i:{0..N-1}@P(i);
#assert Sys() |= []<> s;
"""


@pytest.mark.parametrize(("error", "message"), [
    ("", ""),
    (" [] [x == 1] w{y = y + 6;} -> P(i)", "value 6 out of range 0..5"),
    (" [] [x == 1] u{x = x / (y - y);} -> P(i)", "division by zero"),
    (" [] [x == 1] u{x = a[x + 3];} -> P(i)", "index 4 out of range for 'a'"),
])
def test_data_statements_and_model_errors(error, message):
    # loops, block variables, arrays, else-if chains, xor, C division and remainder, a
    # ranged global; a value out of range, a division by zero and an index out of
    # bounds raise the interpreter's error with its message
    ts = csp.load_csp("d.csp", DATA.replace("ERROR", error)).systems[0]
    if not message:
        assert agree(ts, None) >= 3
        return
    model = analyse_counter_model(ts)
    for compiled in (True, False):
        with pytest.raises(ModelRuntimeError, match=re.escape(message)):
            explore(CounterSpace(model, None, compiled=compiled))


def test_unsupported_edges_are_interpreted():
    # an edge the generator does not cover is left to the interpreter (None)
    from bridge.ir import Edge, ElseGuard

    ts = load("le_pl/le_pl.csp", 3)
    edge = ts.processes[0].edges[0]
    assert compile_edge(edge, ts.globals, ts.processes[0].locals, frozenset(), None) is not None
    odd = Edge(edge.source, edge.target, guard=ElseGuard(), event=edge.event, effect=edge.effect)
    assert compile_edge(odd, ts.globals, ts.processes[0].locals, frozenset(), None) is None
