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
from bridge.fairness.packed import pack_state, unpack_state
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


def _python_names(ts, packed: bool = True) -> set[str]:
    """Return the event names of the Python engine's steps: as its LTL product sees
    them (``packed``: every state expanded from its packed form, where a stored bool
    reads as an int) or as its explorer does (states as the successors built them)."""
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
                                  "computed_names_mixed_rendezvous.csp"])
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
    so the generator renders a value with its kind, once as the explorer reads the
    state (first string) and once as the LTL product does (second: a stored value is
    an int there): a comparison is a bool, a bool variable an int (stored as 0 or 1),
    the local x received from channel c, which only ever carries comparisons, a bool
    for the explorer (``local_kinds_and_channels``: at ``f.x`` x holds what ``c?x``
    took, though it is reset to 0 afterwards)."""
    ts = next(iter(api.load_model(str(MODELS / "computed_names_bool.csp")).systems))
    source = driver.generate_model(ts).source
    codes = _event_codes(source)
    assert codes["e.b.(n == 1).n{b = !b; n = (n + 1) % 3}"] == "br_evname"
    assert codes["d?y"] == codes["c?x"] == "br_chev"
    assert codes["d!b"] == codes["c!(n == 2"] == "br_chev_sent"  # the fair search: per send
    assert codes["f.x"] == codes["g.y"] == "br_evname"
    assert '(const V[3]){rd_u8(s, 0), ((V)((rd_i32(s, 1)) == (1))), rd_i32(s, 1)}, "ibi", "ibi")' \
        in source
    assert '"f", 1, (const V[1]){rd_i32(s, 10 + 1)}, "b", "i")' in source  # x
    assert '"g", 1, (const V[1]){rd_i32(s, 15 + 1)}, "i", "i")' in source  # y
    # c: bools (explorer), bools sent (product); d: ints; both named
    assert "BR_CHAN_FLAGS[3] = {0, 62, 42}" in source


def test_a_value_that_may_be_a_bool_or_an_int_is_rendered_as_each_search_knows_it():
    """A channel that carries a comparison and a number: the explorer cannot name its
    steps (its flags say so: ``deterministic`` hands them to Python), the fair search
    names each send with the kinds its values have at that send (``br_chev_sent``:
    c!True, c!2) and each receive as an int (read from the packed state: c?1); the
    name of the variable bound from it only as the LTL product reads it (an int); the
    bool-only channel k and the local bound from it are rendered both ways."""
    ts = next(iter(api.load_model(str(MODELS / "computed_names_mixed.csp")).systems))
    source = driver.generate_model(ts).source
    codes = _event_codes(source)
    assert codes["c!(n == 2"] == codes["c!n"] == codes["k!(n == 0"] == "br_chev_sent"
    assert codes["c?x"] == codes["k?z"] == "br_chev"
    assert source.count("br_chev_sent(c, _ch.id, '!', _mv, 1, \"b\")") == 2  # c!(n == 2), k!
    assert source.count("br_chev_sent(c, _ch.id, '!', _mv, 1, \"i\")") == 1  # c!n
    assert "BR_CHAN_FLAGS[3] = {0, 32, 62}" in source  # c: no kind for its channel; k: bools
    assert '"h", 1, (const V[1]){rd_i32(s, 15 + 1)}, "\\077", "i")' in source  # '?'
    assert '"b", 1, (const V[1]){rd_i32(s, 20 + 1)}, "b", "i")' in source


def test_a_rendezvous_is_named_with_the_kinds_of_its_senders_values():
    """A rendezvous is named from the sender's offer, which keeps the kinds of the
    values sent (``add_offer``'s last argument): on channels that carry both kinds
    (r: a comparison or a number; q: both in one message) the explorer's flags leave
    them unnamed, and the fair search names them as the LTL product does."""
    ts = next(iter(api.load_model(str(MODELS / "computed_names_mixed_rendezvous.csp")).systems))
    source = driver.generate_model(ts).source
    assert "BR_CHAN_FLAGS[3] = {0, 32, 32}" in source
    offers = re.findall(r"add_offer\(c, 1, _ch\.id, (\d), .*, (\"\w+\"|NULL)\);", source)
    assert offers == [("1", '"b"'), ("1", '"i"'), ("2", '"ib"')]  # r!(n == 1), r!n, q!n.(n == 0)
    assert "br_chev_sent(c, o->cid, '.', o->msg, o->nf, o->kinds)" in source


def test_the_kind_of_a_local_follows_the_process():
    """T's parameter v is inlined into S: a number on one branch, a comparison on the
    other (rendered per edge), either where the branches meet, where v + 1 is an int."""
    ts = next(iter(api.load_model(str(MODELS / "computed_names_flow.csp")).systems))
    source = driver.generate_model(ts).source
    assert '"g", 1, (const V[1]){rd_i32(s, 20 + 1)}, "i", "i")' in source  # v = y
    assert '(rd_i32(s, 20 + 5)) == (rd_i32(s, 0))))}, "b", "b")' in source  # v = (y == n)
    assert '"k", 1, (const V[1]){ck_add(c, rd_i32(s, 20 + 1), 1)}, "i", "i")' in source
    assert '"f", 1, (const V[1]){rd_i32(s, 14 + 1)}, "b", "i")' in source  # x from c


def test_a_library_value_is_rendered_only_when_its_elements_are_ints(tmp_path: Path):
    """A set's elements are ints unless a value of unknown kind is added (x, received
    from a channel that carries a comparison: Python names the step e.(True,)): then
    no name with a library value is rendered (the search hands it to Python), while a
    model whose elements are all ints renders its set as the tuple."""
    names = {}
    for message in ("(n == 0)", "(n + 4)"):
        path = tmp_path / "set_element.csp"
        path.write_text('#import "PAT.Lib.Set";\nvar<Set> s;\nvar n = 0;\nchannel c 1;\n'
                        f"P() = c!{message} -> c?x{{s.Add(x);}} -> e.s -> Stop;\n"
                        "#assert P() deterministic;\n", encoding="utf-8")
        ts = next(iter(api.load_model(str(path)).systems))
        names[message] = _event_codes(driver.generate_model(ts).source)["e.s"]
    assert names == {"(n == 0)": "-2", "(n + 4)": "br_evname"}
