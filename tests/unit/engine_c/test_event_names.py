"""Event names computed at run time in the C engine (issue 12 item 1): a CSP# step's
name whose components are computed, a channel step's ``c!v`` / ``c?v`` and a
rendezvous' ``c.v`` are rendered as the Python engine renders them and interned in one
table with the constant names, so that one name has one id (the action of event-level
fairness, the match of an event atom) and two names never share one."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import build, driver
from bridge.ir import Fairness, Outcome, PropertyKind
from bridge.semantics.statespace import CompiledStateSpace
from tests.irbuild import G, add, assign, edge, int_var, lt, process, system

pytestmark = pytest.mark.skipif(build.find_compiler() is None, reason="no C compiler")

MODELS = Path(__file__).resolve().parents[2] / "models" / "csp"


def _typed(lib):
    lib.bridge_event_name.restype = ctypes.c_char_p
    lib.bridge_event_name.argtypes = [ctypes.c_int32]
    lib.bridge_event_count.restype = ctypes.c_int32
    lib.bridge_event_count.argtypes = []
    lib.bridge_event_intern.restype = ctypes.c_int32
    lib.bridge_event_intern.argtypes = [ctypes.c_char_p]
    return lib


def _table(lib) -> list[str]:
    return [lib.bridge_event_name(i).decode() for i in range(lib.bridge_event_count())]


def test_interning_gives_one_dense_id_per_name():
    # a model of its own: the table lives as long as the library (test_interface reads
    # the table of its model)
    ts = system([process("P", [edge(0, 0, guard=lt(G("x"), 3), event="tick.0",
                                    effect=[assign("x", add(G("x"), 1))])])],
                globals_=[int_var("x", 0)])
    lib = _typed(driver.compile_model(ts).library)
    assert lib.bridge_event_intern(b"tick.0") == 0  # a constant name keeps its index
    first = lib.bridge_event_count()
    names = [f"interned.{i}.{i * 7 % 13}".encode() for i in range(3000)]  # grows, rehashes
    ids = [lib.bridge_event_intern(n) for n in names]
    assert ids == list(range(first, first + len(names)))
    assert [lib.bridge_event_intern(n) for n in reversed(names)] == ids[::-1]
    assert [lib.bridge_event_name(i) for i in ids] == names
    assert lib.bridge_event_intern(b"interned.1") not in ids  # a prefix is another name
    table = _table(lib)
    assert len(set(table)) == len(table)


def _python_names(ts) -> set[str]:
    space = CompiledStateSpace(ts)
    seen = set(space.initial_states())
    todo = list(seen)
    names: set[str] = set()
    while todo:
        for step, t in space.successors(todo.pop()):
            if step.event is not None:
                names.add(step.event)
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return names


@pytest.mark.parametrize("name", ["computed_names_shared.csp", "computed_names_bool_only.csp"])
def test_the_fair_search_names_every_step_as_the_python_engine(name: str):
    """A weak-fairness search that explores the whole product meets every step: each
    name the Python engine gives a step is in the C table, once, and every name C
    rendered is one the Python engine gives (a name rendered differently, or two names
    under one id, fails here)."""
    ts = next(iter(api.load_model(str(MODELS / name)).systems))
    lib = _typed(driver.compile_model(ts).library)
    before = set(_table(lib))
    holds = [p for p in ts.properties if p.kind is PropertyKind.LTL]
    verdicts = [api.check_property(ts, p, api.CheckOptions(engine="c", fairness=Fairness.WEAK))
                for p in holds]
    assert any(v.outcome is Outcome.HOLDS for v in verdicts)
    assert all(("engine", "c") in v.statistics.extra for v in verdicts)
    table = _table(lib)
    assert len(set(table)) == len(table)
    python = _python_names(ts)
    assert python <= set(table)
    assert set(table) - before <= python | {p.text.split("<>")[-1].strip() for p in holds}
