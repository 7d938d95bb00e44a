"""bridge.api: the flat verbs over hand-built IR (no front-end needed)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bridge import api
from bridge.diagnostics import ConfigurationError
from bridge.ir import (
    Fairness,
    FairnessMark,
    LtlState,
    LtlUnary,
    ModelFile,
    Outcome,
    Property,
    PropertyKind,
)
from tests.irbuild import G, assign, counter, edge, int_var, lt, op, process, system


def _model() -> ModelFile:
    """x counts 0,1,2,0,...; a second process deadlocks after one step."""
    props = (
        Property("dl", PropertyKind.DEADLOCK_FREE, "Sys deadlockfree", number=1),
        Property("inv", PropertyKind.INVARIANT, "x < 3", condition=lt(G("x"), 3), number=2),
        Property("small", PropertyKind.LTL, "[](x < 2)", number=3,
                 formula=LtlUnary("G", LtlState(lt(G("x"), 2), "x < 2"))),
    )
    ts = system([counter("Count", "x", 3, event="inc")], globals_=[int_var("x", 0)],
                properties=props)
    return ModelFile("m.csp", (ts,))


@pytest.mark.parametrize(("name", "expected"), [
    ("none", Fairness.NONE), ("All", Fairness.NONE), ("wf", Fairness.WEAK),
    ("Event-level Weak Fair Only", Fairness.WEAK),
    ("event-level strong fair only", Fairness.STRONG_LOCAL),
    ("sf", Fairness.STRONG_LOCAL), ("strong_local", Fairness.STRONG_LOCAL),
    ("Global Fair Only", Fairness.STRONG_GLOBAL), ("gf", Fairness.STRONG_GLOBAL),
    ("Process-level Weak Fair Only", Fairness.PROCESS_WEAK), ("pwf", Fairness.PROCESS_WEAK),
    ("Process-level Strong Fair Only", Fairness.PROCESS_STRONG),
    ("process-strong", Fairness.PROCESS_STRONG),
])
def test_fairness_names(name, expected) -> None:
    assert api.parse_fairness(name) is expected


def test_unknown_fairness_lists_the_allowed() -> None:
    with pytest.raises(ConfigurationError, match="allowed: none, weak"):
        api.parse_fairness("fairish")


def test_annotations() -> None:
    assert api.parse_annotation("sf:rule1.0.1") == (FairnessMark.SF, "rule1.0.1")
    with pytest.raises(ConfigurationError):
        api.parse_annotation("xx:go")


@pytest.mark.parametrize(("path", "language"), [
    ("a.pml", "promela"), ("b.PRM", "promela"), ("c.promela", "promela"), ("d.csp", "csp")])
def test_language_by_extension(path, language) -> None:
    assert api.language_of(path) == language


def test_selection_by_number_name_and_text() -> None:
    model = _model()
    assert [p.name for _, p in api.select_properties(model)] == ["dl", "inv", "small"]
    assert [p.name for _, p in api.select_properties(model, 2)] == ["inv"]
    assert [p.name for _, p in api.select_properties(model, "small")] == ["small"]
    assert [p.name for _, p in api.select_properties(model, "Sys  deadlockfree;")] == ["dl"]
    with pytest.raises(ConfigurationError, match="the assertions are: 1: dl"):
        api.select_properties(model, "9")


def test_check_dispatches_non_ltl_to_the_explorer() -> None:
    dl, inv = api.check(_model(), "1")[0], api.check(_model(), "2")[0]
    assert dl.outcome is Outcome.HOLDS and inv.outcome is Outcome.HOLDS
    assert dl.statistics.states == 3


def test_fairness_on_a_non_ltl_assertion_is_noted_not_silent() -> None:
    [verdict] = api.check(_model(), "1", api.CheckOptions(fairness=Fairness.WEAK,
                                                          por=True))
    assert any("applies to LTL assertions and never claims only" in n for n in verdict.notes)
    assert any("--por/--symmetry: not used" in n for n in verdict.notes)


def test_state_limit_gives_unknown_with_statistics() -> None:
    up = process("Up", [edge(0, 0, effect=[assign("x", op("+", G("x"), 1))], event="up")])
    ts = system([up], globals_=[int_var("x", 0)], properties=(
        Property("dl", PropertyKind.DEADLOCK_FREE, "deadlockfree", number=1),))
    [verdict] = api.check(ModelFile("u.csp", (ts,)), None, api.CheckOptions(max_states=40))
    assert verdict.outcome is Outcome.UNKNOWN
    assert verdict.statistics.states >= 1
    assert api.outcome_exit_code([verdict]) == 3


def test_exit_code_order() -> None:
    [holds] = api.check(_model(), "1")
    assert api.outcome_exit_code([holds]) == 0
    violated = replace(holds, outcome=Outcome.VIOLATED)
    unknown = replace(holds, outcome=Outcome.UNKNOWN)
    assert api.outcome_exit_code([holds, unknown, violated]) == 1
    assert api.outcome_exit_code([holds, unknown]) == 3


def test_explore_and_simulate() -> None:
    [(system_, statistics)] = api.explore(_model())
    assert statistics.states == 3 and statistics.transitions == 3
    trace = api.simulate(_model(), 4, seed=1)
    assert len(trace.steps) == 4
    assert [step.event for step in trace.steps] == ["inc"] * 4


def test_show_and_validate() -> None:
    assert "process Count()" in api.show(_model())
    assert '"$type": "ModelFile"' in api.show(_model(), as_json=True)
    assert api.validate(_model()) == []


def test_defines_are_for_promela_only(tmp_path) -> None:
    model = tmp_path / "m.csp"
    model.write_text("var x = 0;\n")
    with pytest.raises(ConfigurationError, match="Promela models only"):
        api.load_model(str(model), {"N": "3"})


def test_ltl_goes_to_the_fair_checker_and_refused_reductions_are_noted() -> None:
    [verdict] = api.check(_model(), "small", api.CheckOptions(
        fairness=Fairness.STRONG_LOCAL, por=True, symmetry=True))
    assert verdict.outcome is Outcome.VIOLATED and verdict.lasso is not None
    assert verdict.fairness.startswith("strong-local")
    assert any(n.startswith("por: ") and "unsound under strong-local" in n
               for n in verdict.notes)
    assert any(n.startswith("symmetry: not applied") for n in verdict.notes)


def _independent_counters() -> ModelFile:
    """Two processes counting their own variable modulo 3; [](x < 3) only reads x."""
    bounded = Property("bounded", PropertyKind.LTL, "[](x < 3)", number=1,
                       formula=LtlUnary("G", LtlState(lt(G("x"), 3), "x < 3")))
    small = Property("small", PropertyKind.LTL, "[](x < 2)", number=2,
                     formula=LtlUnary("G", LtlState(lt(G("x"), 2), "x < 2")))
    ts = system([counter("A", "x", 3), counter("B", "y", 3)],
                globals_=[int_var("x", 0), int_var("y", 0)], properties=(bounded, small))
    return ModelFile("c.csp", (ts,))


def test_por_is_applied_when_sound_and_keeps_the_verdicts() -> None:
    model = _independent_counters()
    for assertion in ("bounded", "small"):
        [full] = api.check(model, assertion)
        [reduced] = api.check(model, assertion, api.CheckOptions(por=True))
        assert reduced.outcome is full.outcome
        assert any("partial order reduction applied" in n for n in reduced.notes)
        if full.outcome is Outcome.HOLDS:  # a complete search: the reduction shows
            assert reduced.statistics.states <= full.statistics.states
            assert reduced.statistics.transitions < full.statistics.transitions
        else:
            assert reduced.lasso is not None


LE_C_4 = Path(__file__).resolve().parents[2] / "case_studies" / "le_c" / "le_c_4.csp"


def test_symmetry_quotient_violation_gets_a_concrete_counterexample() -> None:
    model = api.load_model(str(LE_C_4))
    [plain] = api.check(model)
    [reduced] = api.check(model, None, api.CheckOptions(symmetry=True))
    assert plain.outcome is reduced.outcome is Outcome.VIOLATED
    assert reduced.lasso is not None
    assert any("counterexample comes from a search of the full state space" in n
               for n in reduced.notes)
    # the printed run is the full search's, step for step
    assert reduced.lasso == plain.lasso


def test_symmetry_under_strong_global_fairness_shrinks_the_search() -> None:
    model = api.load_model(str(LE_C_4))
    options = api.CheckOptions(fairness=Fairness.STRONG_GLOBAL)
    [plain] = api.check(model, None, options)
    [reduced] = api.check(model, None, replace(options, symmetry=True))
    assert plain.outcome is reduced.outcome is Outcome.HOLDS
    assert reduced.statistics.states < plain.statistics.states
    assert any(n.startswith("symmetry: ") and "instances of Node" in n for n in reduced.notes)


def test_property_fairness_is_used_unless_the_command_line_overrides() -> None:
    model = _model()
    ts = model.systems[0]
    weak_prop = replace(ts.properties[2], fairness=Fairness.WEAK)
    model = ModelFile("m.csp", (replace(ts, properties=ts.properties[:2] + (weak_prop,)),))
    [own] = api.check(model, "3")
    assert own.fairness == "weak" and own.notes
    [overridden] = api.check(model, "3", api.CheckOptions(fairness=Fairness.NONE))
    assert overridden.fairness == "none"
    assert any("the command line's none was used" in n for n in overridden.notes)
