"""CSP# ``refines`` assertions end to end (cspsharp.md section 6), on small models of
our own; each verdict is derived by hand in the test's docstring from the definitions
of the traces, stable-failures and failures-divergence models (Roscoe, *Understanding
Concurrent Systems*; PAT checks the same three). ``terminate`` (Skip's tick) is a
visible event, as in PAT."""

from __future__ import annotations

import json
from pathlib import Path

from bridge import api
from bridge.frontends.csp import load_csp
from bridge.ir import Outcome, PropertyKind, RefinementModel
from tests.cli.conftest import run_bridge


def verdicts(text: str) -> list[tuple[str, Outcome]]:
    model = load_csp("t.csp", text)
    return [(v.property, v.outcome) for v in api.check(model)]


HOLDS, VIOLATED = Outcome.HOLDS, Outcome.VIOLATED


def test_the_assertion_is_a_refines_property_with_its_model_and_spec() -> None:
    model = load_csp("t.csp", "P() = a -> P();\nQ() = a -> Q();\n"
                              "#assert P() refines Q();\n#assert P() refines <F> Q();\n"
                              "#assert P() refines <FD> Q();\n")
    props = [p for _, p in model.properties()]
    assert [p.kind for p in props] == [PropertyKind.REFINES] * 3
    assert [p.refinement for p in props] == list(RefinementModel)
    assert [p.number for p in props] == [1, 2, 3]
    assert {p.spec.name for p in props} == {"Q"}
    assert [s.name for s in model.systems] == ["P"]  # the spec is no system of the file


def test_data_state_decides_the_traces() -> None:
    """Inc counts x up to 2 with 'up' and goes back with 'reset', so its traces are the
    prefixes of (up up reset)*, exactly Spec's: both ways hold in T and, both being
    deterministic with no tau, in F and FD too. Spec2 resets after one 'up': Inc's
    <up, up> is no trace of Spec2."""
    text = """var x = 0;
Inc() = [x < 2] up{x = x + 1} -> Inc() [] [x == 2] reset{x = 0} -> Inc();
Spec() = up -> up -> reset -> Spec();
Spec2() = up -> reset -> Spec2();
#assert Inc() refines Spec();
#assert Spec() refines <F> Inc();
#assert Inc() refines <FD> Spec();
#assert Inc() refines Spec2();
"""
    assert [o for _, o in verdicts(text)] == [HOLDS, HOLDS, HOLDS, VIOLATED]
    model = load_csp("t.csp", text)
    v = api.check(model, 4)[0]
    assert [s.event for s in v.trace.steps] == ["up", "up"]
    assert "cannot do 'up'" in v.reason


def test_internal_choice_is_told_apart_only_by_failures() -> None:
    """Ext offers b and c after a; Int chooses internally. traces(Int) = traces(Ext):
    T holds both ways. After <a>, Int can resolve to the b branch and refuse c, which
    Ext cannot: Int [F= Ext fails with refusal {c} (breadth first, the b branch comes
    first). Ext [F= Int and [FD= Int hold: Ext's stable state after <a> offers {b, c},
    which contains the offer {b} of one of Int's stable states there, and neither
    diverges."""
    text = """Ext() = a -> (b -> Ext() [] c -> Ext());
Int() = a -> (b -> Int() <> c -> Int());
#assert Int() refines Ext();
#assert Ext() refines Int();
#assert Int() refines <F> Ext();
#assert Ext() refines <F> Int();
#assert Ext() refines <FD> Int();
"""
    assert [o for _, o in verdicts(text)] == [HOLDS, HOLDS, VIOLATED, HOLDS, HOLDS]
    v = api.check(load_csp("t.csp", text), 3)[0]
    assert v.refusal == ("c",)
    assert [s.event for s in v.trace.steps] == ["a", None]


def test_divergence_matters_in_fd_only() -> None:
    """Loop = (a -> Loop) \\ {a} only does tau for ever: its traces are {<>}, like
    Stop's, and it has no stable state, hence no stable failure: it refines Stop in T
    and F. In FD it diverges after <>, which Stop does not: NOT VALID, with the tau
    loop. Stop refines Loop in FD: Loop diverges at once, which allows everything."""
    text = """Loop() = (a -> Loop()) \\ {a};
Idle() = Stop;
#assert Loop() refines Idle();
#assert Loop() refines <F> Idle();
#assert Loop() refines <FD> Idle();
#assert Idle() refines <FD> Loop();
"""
    assert [o for _, o in verdicts(text)] == [HOLDS, HOLDS, VIOLATED, HOLDS]
    v = api.check(load_csp("t.csp", text), 3)[0]
    assert v.lasso is not None and v.lasso.loop
    assert all(step.event is None for step in v.lasso.loop)


def test_termination_is_visible() -> None:
    """Done = a -> Skip has the trace <a, terminate>; Never = a -> Stop has not: Done
    does not refine Never in T (the event Never cannot do is terminate); Never refines
    Done in T, but not in F: after <a>, Never refuses terminate, which Done (a stable
    Skip offering only terminate) cannot."""
    text = """Done() = a -> Skip;
Never() = a -> Stop;
#assert Done() refines Never();
#assert Never() refines Done();
#assert Never() refines <F> Done();
"""
    assert [o for _, o in verdicts(text)] == [VIOLATED, HOLDS, VIOLATED]
    model = load_csp("t.csp", text)
    assert "'terminate'" in api.check(model, 1)[0].reason
    assert api.check(model, 3)[0].refusal == ("terminate",)


def test_a_parallel_implementation_of_a_sequential_specification() -> None:
    """Sys = (left -> mid -> Skip || mid -> right -> Skip) synchronises on mid: its
    only run is left, mid, right, terminate (the joint tick), with no tau, so it is
    failures-divergence equivalent to Seq = left -> mid -> right -> Skip: FD holds
    both ways. Swapped = right first is no trace of Sys: Sys's <left> fails there."""
    text = """Sys() = (left -> mid -> Skip || mid -> right -> Skip);
Seq() = left -> mid -> right -> Skip;
Swapped() = right -> left -> mid -> Skip;
#assert Sys() refines <FD> Seq();
#assert Seq() refines <FD> Sys();
#assert Sys() refines Swapped();
"""
    assert [o for _, o in verdicts(text)] == [HOLDS, HOLDS, VIOLATED]


def test_a_model_error_in_the_specification_is_a_violation_with_its_trace() -> None:
    """Spec divides by x, which is 0 after one 'a': the error is met when the product
    asks for the specification's moves after <a>; the trace is the implementation's."""
    text = """var x = 1;
Impl() = a -> a -> Stop;
Spec() = a{x = x - 1} -> b{x = 1 / x} -> Spec();
#assert Impl() refines Spec();
"""
    v = api.check(load_csp("t.csp", text))[0]
    assert v.outcome is VIOLATED
    assert any("in the specification" in note for note in v.notes)


def test_cli_prints_verdict_trace_and_json(tmp_path) -> None:
    path = tmp_path / "r.csp"
    path.write_text("Ext() = a -> (b -> Ext() [] c -> Ext());\n"
                    "Int() = a -> (b -> Int() <> c -> Int());\n"
                    "#assert Int() refines Ext();\n#assert Int() refines <F> Ext();\n")
    done = run_bridge("check", str(path))
    assert done.code == 1
    assert "[1] Int() refines Ext()  HOLDS" in done.out
    assert "[2] Int() refines <F> Ext()  VIOLATED" in done.out
    assert "visible trace: <init -> a>" in done.out
    done = run_bridge("check", "--json", "--assert", "2", str(path))
    record = json.loads(done.out)
    assert record["verdict"] == "violated" and record["number"] == 2
    assert record["refusal"] == ["c"]
    assert [s["event"] for s in record["trace"]["steps"]] == ["a", None]


def test_translate_to_promela_refuses_refines_by_name(tmp_path) -> None:
    path = tmp_path / "r.csp"
    path.write_text("P() = a -> P();\n#assert P() refines P();\n")
    done = run_bridge("translate", "--to", "promela", str(path))
    assert done.code == 2
    assert "r.csp:2:1: error: refinement checking 'refines' has no SPIN check" in done.err


def test_the_readme_model() -> None:
    """tests/models/csp/refines_choice.csp (the README's example): the verdicts of its
    comments, derived as in test_internal_choice_is_told_apart_only_by_failures and
    test_divergence_matters_in_fd_only; the divergence is found in the initial state."""
    path = Path(__file__).resolve().parents[2] / "models" / "csp" / "refines_choice.csp"
    verdicts = api.check(load_csp(str(path), path.read_text(encoding="utf-8")))
    assert [v.outcome for v in verdicts] == [HOLDS, VIOLATED, HOLDS, VIOLATED]
    assert verdicts[1].refusal == ("c",)
    assert verdicts[3].statistics.states == 1 and verdicts[3].lasso is not None


def test_a_state_limit_gives_unknown() -> None:
    """Count up to 50 with 'up' against a spec that does 'up' for ever: 51 product
    pairs, so a limit of 10 stops the search before any verdict."""
    text = """var n = 0;
Count() = [n < 50] up{n = n + 1} -> Count();
Ups() = up -> Ups();
#assert Count() refines Ups();
"""
    model = load_csp("t.csp", text)
    (v,) = api.check(model, options=api.CheckOptions(max_states=10))
    assert v.outcome is Outcome.UNKNOWN and v.reason == "state limit 10 reached"
    (v,) = api.check(model)
    assert v.outcome is HOLDS and v.statistics.states == 51

