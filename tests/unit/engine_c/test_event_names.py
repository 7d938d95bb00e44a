"""Event names computed at run time in the C engine (issue 12 item 1): a CSP# step's
name whose components are computed, a channel step's ``c!v`` / ``c?v`` and a
rendezvous' ``c.v`` are rendered as the Python engine renders them and interned in one
table with the constant names, so that one name has one id (the action of event-level
fairness, the match of an event atom) and two names never share one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import build, driver
from bridge.ir import Fairness, Outcome, PropertyKind
from bridge.semantics.statespace import CompiledStateSpace
from tests.irbuild import G, add, assign, edge, int_var, lt, process, system

pytestmark = pytest.mark.skipif(build.find_compiler() is None, reason="no C compiler")

MODELS = Path(__file__).resolve().parents[2] / "models" / "csp"


def _table(lib) -> list[str]:
    return [lib.bridge_event_name(i).decode() for i in range(lib.bridge_event_count())]


def test_interning_gives_one_dense_id_per_name():
    # a model of its own: the table lives as long as the library (test_interface reads
    # the table of its model)
    ts = system([process("P", [edge(0, 0, guard=lt(G("x"), 3), event="tick.0",
                                    effect=[assign("x", add(G("x"), 1))])])],
                globals_=[int_var("x", 0)])
    lib = driver._type_library(driver.compile_model(ts).library)
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


@pytest.mark.parametrize("name", ["computed_names_shared.csp", "computed_names_bool_only.csp",
                                  "computed_names_channel_array.csp"])
def test_the_fair_search_names_every_step_as_the_python_engine(name: str):
    """A weak-fairness search that explores the whole product meets every step: each
    name the Python engine gives a step is in the C table, once, and every name C
    rendered is one the Python engine gives (a name rendered differently, or two names
    under one id, fails here)."""
    ts = next(iter(api.load_model(str(MODELS / name)).systems))
    lib = driver._type_library(driver.compile_model(ts).library)
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


def _event_codes(source: str) -> dict[str, str]:
    """Return per edge comment of the generated unit how its step's event is given:
    ``br_evname``, ``br_chev``, ``-2`` (not rendered) or a constant id."""
    out: dict[str, str] = {}
    edge = ""
    for line in source.splitlines():
        if line.startswith("}"):
            edge = ""  # the end of a location function
        m = re.search(r"/\* edge \d+: (.*?) \*/", line)
        if m:
            edge = m.group(1)
        m = re.search(r"succ_commit\(c, [^;]*?, (-2|br_\w+|\d+)", line)
        if m and edge:
            out[edge] = m.group(1)
    return out


def test_a_value_that_may_be_a_bool_is_not_rendered():
    """Python shows a bool as True/False, an int as a number; C holds both as integers.
    A comparison (a bool) and a bool variable (stored as 0 or 1) are rendered; a bool
    sent on a channel stays a bool there, so the channel's steps and the name of the
    variable bound from it are not (-2: the fair search hands them to Python)."""
    ts = next(iter(api.load_model(str(MODELS / "computed_names_bool.csp")).systems))
    codes = _event_codes(driver.generate_model(ts).source)
    assert codes["e.b.(n == 1).n{b = !b; n = (n + 1) % 3}"] == "br_evname"
    assert codes["d!b"] == codes["d?y"] == "br_chev"
    assert codes["g.y"] == "br_evname"
    assert [edge for edge, code in codes.items() if code == "-2"] == ["c!(n == 2", "c?x", "f.x"]
