"""Event names computed at run time in the C engine (issue 12 item 1): a CSP# step's
name whose components are computed, a channel step's ``c!v`` / ``c?v`` and a
rendezvous' ``c.v`` are rendered as the Python engine renders them and interned in one
table with the constant names, so that one name has one id (the action of event-level
fairness, the match of an event atom) and two names never share one."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import build, driver
from bridge.fairness.packed import pack_state, unpack_state
from bridge.ir import Binary, Call, Const, Fairness, Outcome, PropertyKind, Var
from bridge.semantics.statespace import CompiledStateSpace
from tests.irbuild import G, add, assign, edge, int_var, lt, process, replace_nodes, system

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


def _python_names(ts, packed: bool = True) -> set[str]:
    """Return the event names of the Python engine's steps: as its LTL product sees
    them (``packed``: every state expanded from its packed form) or as its explorer
    does (states as the successors built them). The two are the same since a stored
    bool is an int in both (``codegen.stored_value``)."""
    space = CompiledStateSpace(ts)
    seen = set(space.initial_states())
    todo = list(seen)
    names: set[str] = set()
    while todo:
        state = todo.pop()
        for step, t in space.successors(unpack_state(pack_state(state)) if packed else state):
            if step.event is not None:
                names.add(step.event)
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return names


@pytest.mark.parametrize("name", ["computed_names_shared.csp", "computed_names_bool_only.csp",
                                  "computed_names_channel_array.csp", "computed_names_bool.csp",
                                  "computed_names_flow.csp", "computed_names_library.csp",
                                  "computed_names_mixed.csp",
                                  "computed_names_mixed_rendezvous.csp",
                                  "computed_names_channel_kinds.csp",
                                  "computed_names_library_channel_kinds.csp"])
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
    assert _python_names(ts, packed=False) == python  # one name per step in both searches
    assert python <= set(table)
    assert set(table) - before <= python | {p.text.split("<>")[-1].strip() for p in holds}


@pytest.mark.parametrize("name", ["computed_names_library.csp", "computed_names_mixed.csp"])
def test_auto_checks_event_fairness_over_computed_names_in_c(name: str):
    """Weak and strong-local fairness over steps named from library values
    (``show.s.n``) or on a channel of both kinds (``c!True``, ``c!2``): one name, one
    action. ``--engine auto`` checks them in C (once the library is built), with the
    Python engine's verdicts and counts."""
    ts = next(iter(api.load_model(str(MODELS / name)).systems))
    driver.compile_model(ts)
    for prop in [p for p in ts.properties if p.kind is PropertyKind.LTL]:
        for fairness in (Fairness.WEAK, Fairness.STRONG_LOCAL):
            auto = api.check_property(ts, prop, api.CheckOptions(engine="auto", fairness=fairness))
            python = api.check_property(ts, prop,
                                        api.CheckOptions(engine="python", fairness=fairness))
            assert ("engine", "c") in auto.statistics.extra, (prop.text, auto.notes)
            assert (auto.outcome, auto.statistics.states, auto.statistics.transitions) == \
                (python.outcome, python.statistics.states, python.statistics.transitions)


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


def test_bools_are_rendered_where_their_kind_is_known():
    """Python shows a bool as True/False, an int as a number; C holds both as integers,
    so the generator renders a value with its kind: a comparison is a bool, a bool
    variable an int (stored as 0 or 1), the local x received from channel c, which only
    ever carries comparisons, an int (a stored bool is 1 or 0: ``stored_value``)."""
    ts = next(iter(api.load_model(str(MODELS / "computed_names_bool.csp")).systems))
    source = driver.generate_model(ts).source
    codes = _event_codes(source)
    assert codes["e.b.(n == 1).n{b = !b; n = (n + 1) % 3}"] == "br_evname"
    assert codes["d?y"] == codes["c?x"] == "br_chev"
    assert codes["d!b"] == codes["c!(n == 2"] == "br_chev_sent"  # per send
    assert codes["f.x"] == codes["g.y"] == "br_evname"
    assert '(const V[3]){rd_u8(s, 0), ((V)((rd_i32(s, 1)) == (1))), rd_i32(s, 1)}, "ibi")' \
        in source
    assert '"f", 1, (const V[1]){rd_i32(s, 10 + 1)}, "i")' in source  # x
    assert '"g", 1, (const V[1]){rd_i32(s, 15 + 1)}, "i")' in source  # y
    # c: bools sent; d: ints; both named
    assert "BR_CHAN_FLAGS[3] = {0, 56, 40}" in source


def test_a_channel_of_both_kinds_is_named_per_send():
    """A channel that carries a comparison and a number: its flags give no kind, so
    each send is named with the kinds its values have at that send (``br_chev_sent``:
    c!True, c!2) and each receive as an int (read from the state: c?1), as is the
    variable bound from it (h.1); the bool-only channel k by its flags."""
    ts = next(iter(api.load_model(str(MODELS / "computed_names_mixed.csp")).systems))
    source = driver.generate_model(ts).source
    codes = _event_codes(source)
    assert codes["c!(n == 2"] == codes["c!n"] == codes["k!(n == 0"] == "br_chev_sent"
    assert codes["c?x"] == codes["k?z"] == "br_chev"
    assert source.count("br_chev_sent(c, _ch.id, '!', _mv, 1, \"b\")") == 2  # c!(n == 2), k!
    assert source.count("br_chev_sent(c, _ch.id, '!', _mv, 1, \"i\")") == 1  # c!n
    assert "BR_CHAN_FLAGS[3] = {0, 32, 56}" in source  # c: no kind for its channel; k: bools
    assert '"h", 1, (const V[1]){rd_i32(s, 15 + 1)}, "i")' in source
    assert '"b", 1, (const V[1]){rd_i32(s, 20 + 1)}, "i")' in source


def test_a_rendezvous_is_named_with_the_kinds_of_its_senders_values():
    """A rendezvous is named from the sender's offer, which keeps the kinds of the
    values sent (``add_offer``'s last argument): on channels that carry both kinds
    (r: a comparison or a number; q: both in one message) the flags give no kind, and
    both searches name them as the Python engine does."""
    ts = next(iter(api.load_model(str(MODELS / "computed_names_mixed_rendezvous.csp")).systems))
    source = driver.generate_model(ts).source
    assert "BR_CHAN_FLAGS[3] = {0, 32, 32}" in source
    offers = re.findall(r"add_offer\(c, 1, _ch\.id, (\d), .*, (\"\w+\"|NULL)\);", source)
    assert offers == [("1", '"b"'), ("1", '"i"'), ("2", '"ib"')]  # r!(n == 1), r!n, q!n.(n == 0)
    assert "br_chev_sent(c, o->cid, '.', o->msg, o->nf, offer_kinds(o))" in source


def test_a_value_read_from_the_state_is_an_int():
    """T's parameter v is inlined into S: a comparison named where it is computed
    (g.(y == n): a bool), a number on the other branch; v + 1 an int, and x, received
    from a channel of comparisons, an int (stored as 1 or 0)."""
    ts = next(iter(api.load_model(str(MODELS / "computed_names_flow.csp")).systems))
    source = driver.generate_model(ts).source
    assert '"g", 1, (const V[1]){rd_i32(s, 20 + 1)}, "i")' in source  # v = y
    assert '(rd_i32(s, 20 + 5)) == (rd_i32(s, 0))))}, "b")' in source  # v = (y == n)
    assert '"k", 1, (const V[1]){ck_add(c, rd_i32(s, 20 + 1), 1)}, "i")' in source
    assert '"f", 1, (const V[1]){rd_i32(s, 14 + 1)}, "i")' in source  # x from c


def test_a_library_value_holds_a_bool_added_to_it_as_an_int(tmp_path: Path):
    """A set's elements are ints, also when a value computed as a bool is added (only
    hand-built IR does: the CSP# front-end rejects ``s.Add(n == 0)``): the Python
    engine stores it as 1 (``library.element``: README, "a stored bool is an int"), so
    both engines name the step ``e.(1,)``, ``deterministic`` runs in C and ``auto``
    stays there with Python's verdict; x received from a channel of comparisons is
    stored as an int, so adding it adds an int too (e.(1,))."""
    names = {}
    for added in ("x", "(n + 4)"):
        path = tmp_path / "set_element.csp"
        path.write_text('#import "PAT.Lib.Set";\nvar<Set> s;\nvar n = 0;\nchannel c 1;\n'
                        f"P() = c!(n == 0) -> c?x{{s.Add({added});}} -> e.s -> Stop;\n"
                        "#assert P() deterministic;\n", encoding="utf-8")
        ts = next(iter(api.load_model(str(path)).systems))
        names[added] = _event_codes(driver.generate_model(ts).source)["e.s"]
        if added == "x":
            assert "e.(1,)" in _python_names(ts, packed=False)
    edited = _add_a_comparison(ts)
    assert "e.(1,)" in _python_names(edited, packed=False)
    assert "e.(True,)" not in _python_names(edited)
    names["n == 0"] = _event_codes(driver.generate_model(edited).source)["e.s"]
    assert names == {"x": "br_evname", "(n + 4)": "br_evname", "n == 0": "br_evname"}
    prop = edited.properties[0]
    driver.check_property_c(edited, prop)  # no CFallback
    auto = api.check_property(edited, prop, api.CheckOptions(engine="auto"))
    python = api.check_property(edited, prop, api.CheckOptions(engine="python"))
    assert ("engine", "c") in auto.statistics.extra, auto.notes
    assert not any(driver.UNNAMED_EVENT in note for note in auto.notes)
    assert (auto.outcome, auto.reason, auto.statistics.states) == \
        (python.outcome, python.reason, python.statistics.states)
    lib = driver._type_library(driver.compile_model(edited).library)
    api.check_property(edited, prop, api.CheckOptions(engine="c"))
    assert "e.(1,)" in _table(lib)


def _add_a_comparison(ts):
    """Return ``ts`` with the argument of every library call ``Set.Add`` replaced by
    ``n == 0`` (a bool element)."""
    return replace_nodes(ts, lambda node: dataclasses.replace(
        node, args=(node.args[0], Binary("==", Var("n", "global"), Const(0))))
        if isinstance(node, Call) and node.function.startswith("Set.Add") else None)
