"""The strong global fairness premise of the SPIN back-end (paper 000 Def. 4): the
explicit graph ``compare.explicit_graph_for`` computes, the ``st_k``/``tk_j``/``stp``
bookkeeping ``emit_promela`` writes from it, and the refusals (no graph, too many steps,
a step no option takes, channels). No SPIN needed here; the verdicts are checked against
the native engine in ``tests/differential/test_strong_global_premise_spin.py``."""

from __future__ import annotations

import re

import pytest

from bridge.backends.spin.emit import emit_promela
from bridge.backends.spin.emitted import STRONG_GLOBAL_MAX_STEPS, ExplicitGraph, ExplicitStep
from bridge.compare import explicit_graph_for
from bridge.diagnostics import UnsupportedError
from bridge.frontends.csp import load_csp
from bridge.ir import Fairness, TransitionSystem

# Paper 000 Fig. 4(a): 0 -a-> 1 -b-> 0 and 0 -b-> 2 -a-> 0.
FIG4A = """\
var s = 0;
P() = [s == 0] a{s = 1} -> P() [] [s == 0] b{s = 2} -> P()
   [] [s == 1] b{s = 0} -> P() [] [s == 2] a{s = 0} -> P();
#define state2 s == 2;
#assert P() |= []<> state2;
"""

ARRAY = """\
var a[2] = [0, 0];
P(i) = [a[i] == 0] set.i{a[i] = 1} -> P(i) [] [a[i] == 1] clr.i{a[i] = 0} -> P(i);
System = P(0) ||| P(1);
#define both a[0] == 1 && a[1] == 1;
#assert System |= []<> both;
"""

CHANNEL = """\
channel c 1;
P() = c!1 -> c?x -> P();
#assert P() |= []<> true;
"""


def _system(text: str) -> TransitionSystem:
    return load_csp("model.csp", text).systems[0]


def test_explicit_graph_of_fig4a_has_its_three_states_and_four_steps() -> None:
    graph = explicit_graph_for(_system(FIG4A))
    assert [dict(s.globals)["s"] for s in graph.states] == [(0,), (1,), (2,)]
    assert all(s.locations == (0,) for s in graph.states)
    pairs = {(st.source, st.target) for st in graph.steps}
    assert pairs == {(0, 1), (0, 2), (1, 0), (2, 0)}
    assert len({st.edges for st in graph.steps}) == 4


def test_premise_has_one_conjunct_per_source_state_over_its_steps() -> None:
    system = _system(FIG4A)
    graph = explicit_graph_for(system)
    model = emit_promela(system, "premise", Fairness.STRONG_GLOBAL, system.properties[0],
                         explicit_graph=graph)
    prop = model.properties[0]
    assert prop.premises == 3
    assert "byte stp = 0;" in model.text
    assert "#define st_0 ((pc_0 == 0) && (g_s == 0))" in model.text
    for j in range(1, 5):
        assert f"#define tk_{j} (stp == {j})" in model.text
        assert f"GF tk_{j}" in (prop.spot_formula or "")
    assert "(GF st_0) -> ((GF tk_1) & (GF tk_2))" in (prop.spot_formula or "")
    # Every option records the step it takes before its effects change the state.
    for line in model.text.splitlines():
        if "d_step" in line and "timeout" not in line:
            assert re.search(r"-> stp = \(st_\d -> \d : 0\); g_s = ", line), line


def test_array_and_parameters_are_part_of_the_valuation() -> None:
    system = _system(ARRAY)
    graph = explicit_graph_for(system)
    assert len(graph.states) == 4 and len(graph.steps) == 8
    model = emit_promela(system, "premise", Fairness.STRONG_GLOBAL, system.properties[0],
                         explicit_graph=graph)
    assert "(g_a[0] == 1) && (g_a[1] == 0)" in model.text
    # set.0 is taken from two states (a[1] = 0 or 1): a two-way chain.
    assert re.search(r"stp = \(st_\d -> \d : \(st_\d -> \d : 0\)\)", model.text)


def test_strong_global_premise_needs_the_graph() -> None:
    system = _system(FIG4A)
    with pytest.raises(UnsupportedError, match="explicit state graph"):
        emit_promela(system, "premise", Fairness.STRONG_GLOBAL, system.properties[0])
    with pytest.raises(UnsupportedError, match="no action-process encoding"):
        emit_promela(system, "action-process", Fairness.STRONG_GLOBAL, system.properties[0],
                     explicit_graph=explicit_graph_for(system))


def test_too_many_steps_are_refused() -> None:
    system = _system(FIG4A)
    graph = explicit_graph_for(system)
    big = ExplicitGraph(graph.states, graph.steps * (STRONG_GLOBAL_MAX_STEPS // 4 + 1))
    with pytest.raises(UnsupportedError, match="per-step form"):
        emit_promela(system, "premise", Fairness.STRONG_GLOBAL, system.properties[0],
                     explicit_graph=big)
    with pytest.raises(UnsupportedError, match="more than 3 steps"):
        explicit_graph_for(system, max_steps=3)


def test_a_step_no_option_takes_is_refused() -> None:
    system = _system(FIG4A)
    graph = explicit_graph_for(system)
    wrong = ExplicitGraph(graph.states, (ExplicitStep(0, ((0, 9),), 1),))
    with pytest.raises(UnsupportedError, match="matches no option"):
        emit_promela(system, "premise", Fairness.STRONG_GLOBAL, system.properties[0],
                     explicit_graph=wrong)


def test_non_deterministic_option_is_refused() -> None:
    system = _system(FIG4A)
    graph = explicit_graph_for(system)
    first = graph.steps[0]
    twice = ExplicitGraph(graph.states, (first, ExplicitStep(first.source, first.edges, 2)))
    with pytest.raises(UnsupportedError, match="not deterministic"):
        emit_promela(system, "premise", Fairness.STRONG_GLOBAL, system.properties[0],
                     explicit_graph=twice)


def test_channels_are_refused_by_the_graph() -> None:
    with pytest.raises(UnsupportedError, match="channel"):
        explicit_graph_for(_system(CHANNEL))


def test_other_fairness_ignores_the_graph() -> None:
    system = _system(FIG4A)
    graph = explicit_graph_for(system)
    with_graph = emit_promela(system, "premise", Fairness.STRONG_LOCAL, system.properties[0],
                              explicit_graph=graph)
    without = emit_promela(system, "premise", Fairness.STRONG_LOCAL, system.properties[0])
    assert with_graph.text == without.text
    assert "stp" not in without.text


TWO_BOTTOMS = """\
var x = 0;
P() = [x == 0] go1{x = 1} -> P() [] [x == 0] go2{x = 2} -> P()
   [] [x == 1] l1{x = 3} -> P() [] [x == 3] r1{x = 1} -> P() [] [x == 2] l2 -> P();
#define one x == 1;
#assert P() |= []<> one;
"""


def test_bottom_scc_form_is_one_disjunct_per_bottom_scc_with_a_sweep_counter() -> None:
    system = _system(TWO_BOTTOMS)
    graph = explicit_graph_for(system)
    model = emit_promela(system, "premise", Fairness.STRONG_GLOBAL, system.properties[0],
                         explicit_graph=graph, strong_global_form="bottom-scc")
    prop = model.properties[0]
    assert prop.premises == 1
    spot = prop.spot_formula or ""
    # {x = 1, x = 3} and {x = 2} are the bottom SCCs; x = 0 is transient.
    assert spot.count("FG in_b") == 2 and spot.count("GF wr_b") == 2
    states = {dict(s.globals)["x"][0]: k for k, s in enumerate(graph.states)}
    b_13 = sorted((states[1], states[3]))
    assert f"#define in_b0 (st_{b_13[0]} || st_{b_13[1]})" in model.text
    assert f"#define in_b1 (st_{states[2]})" in model.text
    assert f"st_{states[0]})" not in model.text.split("#define in_b0")[1].split("\n")[0]
    assert "byte sw_0 = 0;" in model.text and "byte sw_1 = 0;" in model.text
    assert "byte wr = 0;" in model.text


def test_unknown_strong_global_form_is_a_configuration_error() -> None:
    from bridge.diagnostics import ConfigurationError

    system = _system(FIG4A)
    with pytest.raises(ConfigurationError, match="strong global form"):
        emit_promela(system, "premise", Fairness.STRONG_GLOBAL, system.properties[0],
                     explicit_graph=explicit_graph_for(system), strong_global_form="x")


def test_bottom_scc_form_accepts_graphs_past_the_per_step_limit() -> None:
    from bridge.backends.spin.emit import strong_global_limit

    system = _system(FIG4A)
    graph = explicit_graph_for(system)
    big = ExplicitGraph(graph.states, graph.steps * (STRONG_GLOBAL_MAX_STEPS // 4 + 1))
    assert strong_global_limit("bottom-scc") > len(big.steps) > strong_global_limit("per-step")
    model = emit_promela(system, "premise", Fairness.STRONG_GLOBAL, system.properties[0],
                         explicit_graph=big, strong_global_form="bottom-scc")
    assert model.properties[0].premises == 1
