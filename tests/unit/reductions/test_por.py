"""Partial order reduction (bridge/reductions/por.py): ample sets C0-C3, refusals."""

from __future__ import annotations

import pytest

from bridge.diagnostics import ConfigurationError
from bridge.ir import Fairness, LtlBinary, LtlEvent, LtlState, LtlUnary
from bridge.reductions.dependencies import analyse_edges, conflicts_across_instances
from bridge.reductions.por import PartialOrderReduction, back_edges, por_refusal
from bridge.semantics.statespace import build_state_space
from tests.irbuild import G, add, assign, counter, edge, eq, int_var, op, process, system
from tests.unit.reductions.fairtools import check, reachable, replay


def _state(text: str, expr) -> LtlState:
    return LtlState(expr, text)


def F(f):
    return LtlUnary("F", f)


def Gl(f):
    return LtlUnary("G", f)


def _independent_counters():
    # three processes each counting on a private variable, forever
    procs = [counter("A", "x", 3), counter("B", "y", 3), counter("C", "z", 3)]
    return system(procs, globals_=[int_var("x", 0), int_var("y", 0), int_var("z", 0)])


def test_dependencies_see_shared_and_private_variables():
    ts = _independent_counters()
    acc = analyse_edges(ts)
    a, b = acc[("A", 0)], acc[("B", 0)]
    assert ("g", "x", None) in a.writes and ("g", "x", None) in a.reads
    assert not conflicts_across_instances(a, "A", b, "B")
    assert conflicts_across_instances(a, "A", a, "A")  # two instances of A share x


def _steppers(n: int = 3, length: int = 3):
    # n processes, each taking ``length`` steps on a private variable, then stopping
    names = "xyzuvw"[:n]
    procs = [
        process(
            f"P{k}",
            [edge(i, i + 1, effect=[assign(v, i + 1)]) for i in range(length)],
            terminal=[length],
        )
        for k, v in enumerate(names)
    ]
    return system(procs, globals_=[int_var(v, 0) for v in names])


def test_independent_processes_are_reduced_and_verdict_kept():
    ts = _steppers()
    full = build_state_space(ts)
    formula = Gl(F(_state("x==3", eq(G("x"), 3))))
    por = PartialOrderReduction(build_state_space(ts), ts, formula)
    assert len(reachable(full)) == 64
    expected, got = check(full, formula), check(por, formula)
    assert got.violated == expected.violated
    assert got.nodes < expected.nodes  # product states stored by the search
    assert por.statistics.reduced > 0


def test_visible_edges_are_never_ample_alone():
    ts = _independent_counters()
    formula = Gl(F(_state("x==0", eq(G("x"), 0))))
    por = PartialOrderReduction(build_state_space(ts), ts, formula)
    reducible = por.reducible_locations()
    assert reducible[("A", 0)] is False  # A writes x, which the formula reads
    assert reducible[("B", 0)] is True


def test_violation_found_in_reduced_space_is_a_real_run():
    # x only increases to 2 then stays; F G x==0 is violated
    inc = process("Inc", [edge(0, 1, effect=[assign("x", 2)]), edge(1, 1, effect=[assign("x", 2)])])
    other = counter("B", "y", 2)
    ts = system([inc, other], globals_=[int_var("x", 0), int_var("y", 0)])
    formula = F(Gl(_state("x==0", eq(G("x"), 0))))
    full = build_state_space(ts)
    por = PartialOrderReduction(build_state_space(ts), ts, formula)
    got = check(por, formula)
    assert got.violated and check(full, formula).violated
    replay(full, got.initial, got.prefix + got.loop)


@pytest.mark.parametrize(
    "fairness", [Fairness.STRONG_LOCAL, Fairness.STRONG_GLOBAL, Fairness.PROCESS_STRONG]
)
def test_refused_under_strong_fairness(fairness):
    ts = _independent_counters()
    formula = F(_state("x==0", eq(G("x"), 0)))
    reason = por_refusal(fairness, formula, ts)
    assert reason is not None and "unsound" in reason
    with pytest.raises(ConfigurationError, match="unsound"):
        PartialOrderReduction(build_state_space(ts), ts, formula, fairness)


def test_refused_for_next_and_order_sensitive_event_atoms():
    ts = _independent_counters()
    assert "X" in por_refusal(Fairness.NONE, LtlUnary("X", _state("x", eq(G("x"), 0))), ts)
    assert por_refusal(Fairness.WEAK, F(_state("x", eq(G("x"), 0))), ts) is None
    # event atoms whose truth cannot depend on an inserted invisible step are accepted
    a, b = LtlEvent("a"), LtlEvent("b")
    assert por_refusal(Fairness.NONE, Gl(F(a)), ts) is None
    assert por_refusal(Fairness.NONE, Gl(LtlBinary("->", a, F(b))), ts) is None
    # G(a -> (a U p)): a, then an invisible step, then a no longer satisfies a U p
    until = Gl(LtlBinary("->", a, LtlBinary("U", a, _state("x", eq(G("x"), 0)))))
    reason = por_refusal(Fairness.NONE, until, ts)
    assert reason is not None and "event atoms (a)" in reason and "inserted" in reason


def test_shared_variable_blocks_reduction():
    # both processes write x: no ample set may contain only one of them
    p = process("P", [edge(0, 0, effect=[assign("x", op("mod", add(G("x"), 1), 3))])])
    q = process("Q", [edge(0, 0, effect=[assign("x", 0)])])
    ts = system([p, q], globals_=[int_var("x", 0), int_var("y", 0)])
    formula = F(_state("y==1", eq(G("y"), 1)))
    por = PartialOrderReduction(build_state_space(ts), ts, formula)
    assert check(por, formula).nodes == check(build_state_space(ts), formula).nodes
    assert por.statistics.reduced == 0


def test_back_edges_of_a_loop():
    p = process("P", [edge(0, 1), edge(1, 2), edge(2, 0), edge(1, 1)])
    assert back_edges(p) == frozenset({2, 3})


def test_fairness_visible_edges_are_not_reduced():
    # P0's edge is annotated wf; P1 writes the variable P0's annotated guard reads
    from bridge.ir import Edge, FairnessMark

    annotated = Edge(0, 1, guard=eq(G("y"), 1), effect=(assign("x", 1),),
                     fairness=FairnessMark.WF)
    p0 = process("P0", [annotated], terminal=[1])
    p1 = process("P1", [edge(0, 1, effect=[assign("y", 1)])], terminal=[1])
    p2 = process("P2", [edge(0, 1, effect=[assign("z", 1)])], terminal=[1])
    ts = system([p0, p1, p2], globals_=[int_var("x", 0), int_var("y", 0), int_var("z", 0)])
    formula = F(_state("x==7", eq(G("x"), 7)))
    por = PartialOrderReduction(build_state_space(ts), ts, formula, Fairness.NONE)
    reducible = por.reducible_locations()
    assert reducible[("P0", 0)] is False  # annotated itself
    assert reducible[("P1", 0)] is False  # enables the annotated edge: fairness visible
    assert reducible[("P2", 0)] is True


def _ignoring_model(cycle: int):
    # P0 cycles forever through ``cycle`` locations on its private z (invisible,
    # independent: always a candidate ample set); P1 sets x once (visible).
    loop = [edge(i, (i + 1) % cycle, effect=[assign("z", (i + 1) % cycle)]) for i in range(cycle)]
    p0 = process("P0", loop, n_locations=cycle)
    p1 = process("P1", [edge(0, 1, effect=[assign("x", 1)])], terminal=[1])
    return system([p0, p1], globals_=[int_var("x", 0), int_var("z", 0)])


@pytest.mark.parametrize("cycle", [1, 3])
def test_stack_proviso_prevents_ignoring_a_process(cycle):
    # Without C3 every state would explore P0 alone and P1's x = 1 would be ignored:
    # G x==0 would wrongly hold. The proviso expands the state closing P0's cycle.
    ts = _ignoring_model(cycle)
    formula = Gl(_state("x==0", eq(G("x"), 0)))
    full = build_state_space(ts)
    for fairness in (Fairness.NONE, Fairness.WEAK):
        por = PartialOrderReduction(build_state_space(ts), ts, formula, fairness)
        got = check(por, formula, fairness, full_enabled=fairness is not Fairness.NONE)
        assert got.violated and check(full, formula, fairness).violated
        replay(full, got.initial, got.prefix + got.loop)
        assert por.statistics.reduced > 0  # P0 was proposed as an ample set


def test_ample_choice_is_made_once_per_product_state():
    # The product stores each node's successors when it is expanded in the search; a
    # later search of the same nodes (Fig. 5 re-searches) sees the same edges, and a
    # node expanded outside a search that reports its stack is fully expanded.
    from bridge.automata.ltl import translate_formula
    from bridge.fairness.conditions import make_condition
    from bridge.fairness.emptiness import find_fair_lasso
    from bridge.fairness.product import Product

    ts = _steppers()
    formula = Gl(F(_state("x==3", eq(G("x"), 3))))
    por = PartialOrderReduction(build_state_space(ts), ts, formula)
    aut = translate_formula(formula)
    pred = por.predicate(eq(G("x"), 3))
    product = Product(por, aut.buchi, lambda s: int(pred(s)), lambda e: 0)
    assert find_fair_lasso(product, make_condition(product, Fairness.NONE)) is None
    assert product.search_stack is None
    assert product.ample_nodes > 0
    explored = product.num_nodes
    before = [list(product.successors(n)) for n in range(explored)]
    assert [list(product.successors(n)) for n in range(explored)] == before
    assert product.num_nodes == explored
    # A fresh product asked outside a search: every enabled step.
    fresh = Product(por, aut.buchi, lambda s: int(pred(s)), lambda e: 0)
    node = fresh.initial_nodes()[0]
    state = fresh.sys_states[fresh.node_sys[node]]
    assert len(fresh.successors(node)) >= len(por.full_successors(state))
    assert fresh.ample_nodes == 0


def _enabler_model(p1_loops: bool):
    # P0 may take p (private, unannotated) once, which enables its own sf-annotated a;
    # P1 loops on b forever (p1_loops) or stops after one b.
    import dataclasses

    from bridge.ir import FairnessMark
    from tests.irbuild import ev

    a = dataclasses.replace(edge(1, 1, event=ev("a")), fairness=FairnessMark.SF)
    p0 = process("P0", [edge(0, 1, event=ev("p")), a])
    p1 = process("P1", [edge(0, 0 if p1_loops else 1, event=ev("b"))], n_locations=2,
                 terminal=[] if p1_loops else [1])
    return system([p0, p1])


@pytest.mark.parametrize("p1_loops", [True, False])
def test_step_enabling_an_annotated_event_must_be_inevitable(p1_loops):
    # The run where P0 never takes p and P1 loops is fair under sf(a) (a is never
    # enabled) and violates G F a. An ample set {p} at the start would force p, after
    # which sf(a) makes every run take a forever: the violation would be lost. p may
    # enable the stable a, so it is reducible only if inevitable: when P1 stops, a run
    # cannot stay forever without p, and p is reduced.
    from bridge import api
    from bridge.ir import PropertyKind
    from bridge.reductions._enabling import EnablingAnalysis, annotated_events
    from bridge.reductions.dependencies import analyse_edges
    from tests.irbuild import prop

    ts = _enabler_model(p1_loops)
    formula = Gl(F(LtlEvent("a")))
    enabling = EnablingAnalysis(ts, analyse_edges(ts), annotated_events(ts, ()))
    assert enabling.may_enable(0, 0) == {"a"} and enabling.stable("a")
    assert enabling.inevitable("p", [(0, 0)]) is (not p1_loops)
    p = prop(PropertyKind.LTL, formula=formula)
    expected = api.check_property(ts, p, api.CheckOptions())
    got = api.check_property(ts, p, api.CheckOptions(por=True))
    assert expected.outcome.value == ("violated" if p1_loops else "holds")
    assert got.outcome == expected.outcome
    assert any("partial order reduction applied" in n for n in got.notes)


def test_stable_events_are_guard_free_and_never_left_unless_taken():
    import dataclasses

    from bridge.ir import FairnessMark
    from bridge.reductions._enabling import EnablingAnalysis, annotated_events
    from bridge.reductions.dependencies import analyse_edges
    from tests.irbuild import ev

    def sf(e):
        return dataclasses.replace(e, fairness=FairnessMark.SF)

    # a: offered at 1 and at 2; the other edge at 1 goes to 2, which offers it again
    p0 = process("P0", [edge(0, 1, event=ev("u")), sf(edge(1, 0, event=ev("a"))),
                        edge(1, 2, event=ev("v")), sf(edge(2, 0, event=ev("a"))),
                        # b: its location can be left by w without taking b
                        sf(edge(0, 0, event=ev("b"))), edge(0, 3, event=ev("w")),
                        # c: guarded by data
                        sf(edge(3, 3, guard=eq(G("x"), 0), event=ev("c")))])
    ts = system([p0], globals_=[int_var("x", 0)])
    enabling = EnablingAnalysis(ts, analyse_edges(ts), annotated_events(ts, ()))
    assert enabling.stable("a")
    assert not enabling.stable("b")
    assert not enabling.stable("c")
    assert enabling.may_enable(0, 0) == {"a"}  # u enters a location offering a
    assert enabling.may_enable(0, 5) == {"c"}  # w enters the location of c


WAITER = """
int x;
proctype Worker() { x = x + 1 }
active proctype Main() {
  run Worker(); run Worker();
  (_nr_pr == 1) -> x = 0
}
"""


@pytest.mark.parametrize("source", ["promela_le_c/le_c_3.pml", "promela_tc_r/tc_r_3.pml",
                                    "ms/ms_annotated.csp", "stack/stack_anon.csp", WAITER])
def test_indexed_conflicts_equal_the_pairwise_ones(source, tmp_path):
    # _template_conflicts finds candidate edges through shared data keys; it must find
    # every pair conflicts_across_instances reports (a Worker finishing, procs-end,
    # against Main reading _nr_pr, procs, included)
    from pathlib import Path

    from bridge import api
    from bridge.reductions.por import _template_conflicts

    if source == WAITER:
        path = tmp_path / "waiter.pml"
        path.write_text(WAITER)
    else:
        path = Path(__file__).resolve().parents[3] / "case_studies" / source
    ts = api.select_system(api.load_model(str(path)))
    access = analyse_edges(ts)
    counts: dict[str, int] = {}
    for inst in ts.instances:
        counts[inst.process] = counts.get(inst.process, 0) + 1
    got = _template_conflicts(access, counts)
    for key, acc in access.items():
        expected = {other[0] for other, acc2 in access.items()
                    if not (other[0] == key[0] and counts.get(key[0], 1) <= 1)
                    and conflicts_across_instances(acc, key[0], acc2, other[0])}
        assert got[key] == expected, key


def test_ample_is_the_first_candidate(tmp_path):
    # the product takes ample_candidate (the fast path of ``ample``); a search that tries
    # candidates in turn takes ample_candidates: the first must be the same set
    from pathlib import Path

    from bridge import api

    text = (Path(__file__).resolve().parents[3] / "case_studies" / "ms" / "ms_annotated.csp").read_text()
    path = tmp_path / "ms4.csp"
    path.write_text(text.replace("#define N 3;", "#define N 4;"))
    ((ts, prop),) = api.select_properties(api.load_model(str(path)))
    full = build_state_space(ts)
    por = PartialOrderReduction(build_state_space(ts), ts, prop.formula, Fairness.NONE)
    several = 0
    for state in reachable(full):
        succ = full.successors(state)
        candidates = por.ample_candidates(state, succ)
        assert por.ample(state, succ) == (candidates[0] if candidates else succ)
        assert all(len(c) < len(succ) for c in candidates)
        several += len(candidates) > 1
    assert several > 0
