"""Event atoms in the process counter abstraction (bridge/reductions/counter.py, paper 002
sections 3-5): the abstraction reads events like the native checker (state atoms on the
target state, event atoms on the step, ``init`` first, no event on a stutter step), so
its verdicts equal ``check_ltl``'s on models small enough for both; an atom naming an
event whose components the abstraction erased is refused."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.diagnostics import UnsupportedError
from bridge.fairness.check import LtlOptions, check_ltl
from bridge.ir import Fairness, Outcome
from bridge.reductions.counter import run_counter_abstraction

csp = importlib.import_module("bridge.frontends.csp")
ROOT = Path(__file__).resolve().parents[3]
ML = (ROOT / "case_studies" / "ml" / "ml.csp").read_text()
FAIRNESS = [Fairness.NONE, Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG]

MUTEX = """
#define N 3;
var x = 0;
P(i) = [x == 0] enter{x = x + 1;} -> Crit(i) [] wait -> P(i);
Crit(i) = work -> ([x > 0] leave{x = x - 1;} -> P(i));
Mon() = [x > 0] tick -> Mon();
Sys() = (||| i:{0..N-1}@P(i)) ||| Mon();
#define busy x > 0;
#assert Sys() |= []<> enter;
#assert Sys() |= [](enter -> busy);
#assert Sys() |= [](work -> <> leave);
#assert Sys() |= [](work -> X leave);
#assert Sys() |= <> init;
#assert Sys() |= X !init;
#assert Sys() |= []<> tick || <>[] !busy;
#assert Sys() |= [](busy -> <> (leave && !busy));
#assert Sys() |= (!work) U enter;
"""

# known by hand (2 <= N): the verdict per property and fairness none / weak / strong
MUTEX_EXPECTED = [
    ("violated", "violated", "violated"),  # a process may wait forever, the others too
    ("holds", "holds", "holds"),  # the state entered by 'enter' has x > 0
    ("violated", "holds", "holds"),  # without fairness the others may wait forever
    ("violated", "violated", "violated"),  # tick (another instance) may come first
    ("holds", "holds", "holds"),  # the first step is the init pseudo-step
    ("holds", "holds", "holds"),  # ... and only the first
    ("violated", "violated", "holds"),  # Mon is enabled infinitely often, not always
    ("violated", "holds", "holds"),
    ("violated", "violated", "violated"),  # every process may wait first, forever
]


def native(ts, prop, fairness: Fairness) -> Outcome:
    return check_ltl(ts, prop, LtlOptions(fairness=fairness)).outcome


def with_n(text: str, n: int):
    return csp.load_csp("m.csp", re.sub(r"#define N \d+;", f"#define N {n};", text)).systems[0]


@pytest.mark.parametrize("n", [2, 3, 5])
def test_mutex_event_atoms_known_by_hand(n):
    ts = with_n(MUTEX, n)
    assert len(ts.properties) == len(MUTEX_EXPECTED)
    for prop, expected in zip(ts.properties, MUTEX_EXPECTED, strict=True):
        for fairness, want in zip(FAIRNESS, expected, strict=True):
            for cutoff in (None, 1, 2):
                got = run_counter_abstraction(ts, prop, fairness, cutoff)
                assert got.outcome.value == want, (prop.name, fairness, cutoff, got.reason)


@pytest.mark.parametrize("n", [2, 3])
def test_mutex_agrees_with_native(n):
    ts = with_n(MUTEX, n)
    for prop in ts.properties:
        for fairness in FAIRNESS:
            got = run_counter_abstraction(ts, prop, fairness, None)
            assert got.outcome is native(ts, prop, fairness), (prop.name, fairness)


COMPONENTS = """
var x = 0;
P(i) = req.i -> ack.0 -> ([x == 0] go{x = x + 1;} -> ([x > 0] back{x = x - 1;} -> P(i)));
Sys() = ||| i:{0..2}@P(i);
#assert Sys() |= []<> req;
#assert Sys() |= []<> ack.0;
#assert Sys() |= [](ack.0 -> <> go);
#assert Sys() |= []<> req.0;
"""


def test_event_components():
    ts = csp.load_csp("c.csp", COMPONENTS).systems[0]
    # 'req' never equals 'req.3' (false everywhere); 'ack.0' is the same for every member
    for prop in ts.properties[:3]:
        for fairness in FAIRNESS:
            got = run_counter_abstraction(ts, prop, fairness, 1)
            assert got.outcome is native(ts, prop, fairness), (prop.name, fairness)
    assert run_counter_abstraction(ts, ts.properties[0], Fairness.NONE).outcome is Outcome.VIOLATED
    # 'req.0' is rendered by P(0) alone: P(0) stays a concrete instance, the family is
    # P(1), P(2), and the atom is decided (002's processes are anonymous; an observed
    # one is kept apart)
    for fairness in FAIRNESS:
        got = run_counter_abstraction(ts, ts.properties[3], fairness, 1)
        assert got.outcome is native(ts, ts.properties[3], fairness), fairness
        assert "counter abstraction: 2 identical instances of P" in got.notes


AMBIGUOUS = """
var x = 0;
P(i) = req.(i % 2) -> ([x == 0] go{x = x + 1;} -> ([x > 0] back{x = x - 1;} -> P(i)));
Sys() = ||| i:{0..2}@P(i);
#assert Sys() |= []<> req.0;
"""


def test_event_atom_rendered_by_several_members_is_refused():
    # req.0 is rendered by P(0) and P(2): the family erases which member took it
    ts = csp.load_csp("a.csp", AMBIGUOUS).systems[0]
    with pytest.raises(UnsupportedError, match=r"event atom 'req\.0'.*family P at a\.csp:3:"):
        run_counter_abstraction(ts, ts.properties[0], Fairness.PROCESS_WEAK, 1)


OTHER = """
var x = 0;
P(i) = [x < 1] up{x = x + 1;} -> ([x > 0] down{x = x - 1;} -> P(i));
Q() = t.x -> Q();
Sys() = (||| i:{0..1}@P(i)) ||| Q();
#assert Sys() |= []<> t;
#assert Sys() |= []<> t.0;
"""


def test_event_components_of_another_instance():
    # Q's event t.x has a component the abstraction does not evaluate: 't' is decided
    # (never equal to 't.0'/'t.1'), 't.0' is refused, naming Q's edge
    ts = csp.load_csp("q.csp", OTHER).systems[0]
    for fairness in FAIRNESS:
        got = run_counter_abstraction(ts, ts.properties[0], fairness, 1)
        assert got.outcome is native(ts, ts.properties[0], fairness) is Outcome.VIOLATED
    with pytest.raises(UnsupportedError, match=r"event atom 't\.0'.*instance Q\(\) at q\.csp:4:"):
        run_counter_abstraction(ts, ts.properties[1], Fairness.NONE, 1)


DEADLOCK = """
var x = 0;
P(i) = [x < 3] inc{x = x + 1;} -> Q(i);
Q(i) = [x > 5] go -> Q(i);
Sys() = ||| i:{0..2}@P(i);
#assert Sys() |= []<> go;
"""


@pytest.mark.parametrize("fairness", FAIRNESS)
def test_undecided_guards_may_deadlock(fairness):
    # x = 3 at the end: every thread is stuck at [x > 5] and the run stutters without
    # 'go'. With a cutoff, x is ω and the guard undecided; the abstraction must keep the
    # stutter (an abstract state whose every transition is undecided may deadlock),
    # else it would claim []<> go holds.
    ts = csp.load_csp("d.csp", DEADLOCK).systems[0]
    prop = ts.properties[0]
    assert native(ts, prop, fairness) is Outcome.VIOLATED
    for cutoff in (None, 1, 2):
        got = run_counter_abstraction(ts, prop, fairness, cutoff)
        assert got.outcome is Outcome.VIOLATED, (cutoff, got.reason)
    # unbounded: the abstract counterexample passes through ω and may be spurious; the
    # model's own size (3 threads) violates with exact counts, so the family does too
    got = run_counter_abstraction(ts, prop, fairness, 2, unbounded=True)
    assert got.outcome is Outcome.VIOLATED
    assert any("ω" in n and "own size (3 processes) violates" in n for n in got.notes)


ML_EXTRA = """
#define free busy == 0;
#assert MetaLock() |= []<> get_slow;
#assert MetaLock() |= [](rel_slow -> <> (handoff || deposit));
#assert MetaLock() |= []<> (access && X rel_slow);
#assert MetaLock() |= [](get_fast -> !free);
#assert MetaLock() |= []<> free;
#assert MetaLock() |= [](enqueue -> <> wake);
"""


@pytest.mark.parametrize("n", [2, 3])
def test_meta_lock_agrees_with_native(n):
    ts = with_n(ML + ML_EXTRA, n)
    for prop in ts.properties:
        for fairness in FAIRNESS:
            want = native(ts, prop, fairness)
            for cutoff in (None, 1):
                got = run_counter_abstraction(ts, prop, fairness, cutoff)
                assert got.outcome is want, (prop.name, fairness, cutoff, got.reason)


def test_meta_lock_paper_rows():
    # 002 section 6 table, rows ML 10/100/1000: []<> access true under every fairness
    for n in (10, 100):
        ts = with_n(ML, n)
        for fairness in FAIRNESS:
            got = run_counter_abstraction(ts, ts.properties[0], fairness, 2)
            assert got.outcome is Outcome.HOLDS, got.reason


# -- random family models against the native checker ------------------------------------

GUARDS = ["", "[x == 0] ", "[x > 0] ", "[y == 1] ", "[y == 0] "]
EFFECTS = ["", "x = x + 1;", "x = x - 1;", "y = 1 - y;"]


@st.composite
def family_models(draw):
    """Return (CSP# text, events used): a family P of N identical threads over globals x
    (a process counter, kept in 0..2 by its guards) and y, and maybe another instance Q."""
    n_locs = draw(st.integers(1, 3))
    used: set[str] = set()

    def branch(param: bool, loc_names: list[str]) -> str:
        guard = draw(st.sampled_from(GUARDS))
        effect = draw(st.sampled_from(EFFECTS))
        if effect == "x = x + 1;":
            guard = "[x < 2] "
        elif effect == "x = x - 1;":
            guard = "[x > 0] "
        name = draw(st.sampled_from(["a", "b", "c"] if param else ["t", "a"]))
        used.add(name)
        target = draw(st.sampled_from(loc_names))
        call = f"{target}(i)" if param else f"{target}()"
        if effect:
            return f"{guard}{name}{{{effect}}} -> {call}"
        comp = ".i" if param and draw(st.booleans()) else ""
        return f"{guard}{name}{comp} -> {call}"

    locs = [f"L{k}" for k in range(n_locs)]
    lines = ["var x = 0; var y = 0;"]
    for loc in locs:
        branches = [branch(True, locs) for _ in range(draw(st.integers(1, 2)))]
        lines.append(f"{loc}(i) = " + " [] ".join(branches) + ";")
    n = draw(st.integers(2, 3))
    family = f"(||| i:{{0..{n - 1}}}@L0(i))"
    if draw(st.booleans()):
        branches = [branch(False, ["Q"]) for _ in range(draw(st.integers(1, 2)))]
        lines.append("Q() = " + " [] ".join(branches) + ";")
        lines.append(f"Sys() = {family} ||| Q();")
    else:
        lines.append(f"Sys() = {family};")
    lines.append("#define p x == 0;")
    lines.append("#define q y == 1;")
    return "\n".join(lines) + "\n", sorted(used)


TEMPLATES = [
    "[]<> {e}", "<>[] !{e}", "[]({e} -> <> {f})", "[]({e} -> X {f})", "[]<> {e} || <>[] p",
    "[](q -> <> {e})", "[]({e} -> q)", "<> ({e} && p)", "[]<> ({e} && X {f})",
    "(!{e}) U {f}", "[]<> q", "<>[] p", "X {e} || X X init",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family_models(), st.data())
def test_random_families_agree_with_native(model, data):
    text, events = model
    formulas = []
    for _ in range(3):
        template = data.draw(st.sampled_from(TEMPLATES))
        formulas.append(template.format(e=data.draw(st.sampled_from(events)),
                                        f=data.draw(st.sampled_from(events))))
    text += "".join(f"#assert Sys() |= {f};\n" for f in formulas)
    ts = csp.load_csp("r.csp", text).systems[0]
    fairness = data.draw(st.sampled_from(FAIRNESS))
    cutoff = data.draw(st.sampled_from([None, 1]))
    for prop in ts.properties:
        want = native(ts, prop, fairness)
        got = run_counter_abstraction(ts, prop, fairness, cutoff)
        assert got.outcome is want, (text, prop.name, fairness, cutoff, got.reason)


OWN_CELLS = """
#define N 3;
var c[N]; var x = 0;
P(i) = [c[i] < 2] inc.i{c[i] = c[i] + 1;} -> P(i)
    [] [c[i] == 2] done.i{c[i] = 0; x = 1 - x;} -> P(i)
    [] [c[i] == 1] skip.i -> P(i);
Sys() = ||| i:{0..N-1}@P(i);
#assert Sys() |= []<> done.0;
#assert Sys() |= [](done.0 -> <> done.0);
#define odd (x == 1);
#define full1 (c[1] == 2);
#assert Sys() |= []<> odd;
#assert Sys() |= []<> full1;
"""


def test_own_cells_become_locals_and_the_observed_member_stays_concrete():
    # c[i] is P(i)'s own cell: the abstraction counts P(1), P(2) with c as a local;
    # done.0 is rendered by P(0) alone, which stays a concrete instance
    from bridge.reductions.counter import analyse_counter_model

    ts = csp.load_csp("own.csp", OWN_CELLS).systems[0]
    model = analyse_counter_model(ts, ts.properties[0].formula)
    (family,) = model.families
    assert family.members == (1, 2) and model.others == [0]
    assert [v.name for v in family.process.locals] == ["c"]
    for prop in ts.properties[:3]:
        for fairness in FAIRNESS:
            got = run_counter_abstraction(ts, prop, fairness)
            assert got.outcome is native(ts, prop, fairness), (prop.text, fairness)
            assert any("c[i] of P(i) are local" in n for n in got.notes)


def test_own_cells_read_by_the_formula_stay_global():
    # the fourth property reads c[1]: the cells are not local, the members differ
    from bridge.diagnostics import ConfigurationError
    from bridge.reductions.counter import analyse_counter_model

    ts = csp.load_csp("own.csp", OWN_CELLS).systems[0]
    with pytest.raises(ConfigurationError, match="at least two identical processes"):
        analyse_counter_model(ts, ts.properties[3].formula)


def test_a_cell_another_instance_touches_is_not_local():
    from bridge.diagnostics import ConfigurationError
    from bridge.reductions.counter import analyse_counter_model

    text = OWN_CELLS.replace("Sys() = ||| i:{0..N-1}@P(i);",
                             "Q() = reset{c[2] = 0;} -> Q();\nSys() = (||| i:{0..N-1}@P(i)) ||| Q();")
    ts = csp.load_csp("own.csp", text).systems[0]
    with pytest.raises(ConfigurationError, match="at least two identical processes"):
        analyse_counter_model(ts, ts.properties[2].formula)
