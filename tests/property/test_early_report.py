"""The on-the-fly search's early reports never change a verdict (issue 11, item 5).

hypothesis builds random small systems, automata, notions and annotations (the
generators of ``test_fairness_oracle.py``); the search with early reports and the search
that judges complete components only (``early=False``, paper 000 Fig. 5 on every SCC)
must agree, and every lasso the early search returns is replayed and re-checked by the
independent checker of ``tests/fairness/oracle.py``. Then the same agreement on every
model of ``tests/models/`` under every notion and annotation mark.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bridge.fairness.check import LtlOptions, check_ltl
from bridge.fairness.components import SearchStatistics
from bridge.fairness.conditions import make_condition
from bridge.fairness.emptiness import find_fair_lasso
from bridge.fairness.product import Product
from bridge.ir import Outcome, PropertyKind
from bridge.ir.model import FairnessMark
from bridge.ir.property import Fairness
from tests.fairness.explicit import event_units
from tests.fairness.oracle import check_lasso
from tests.property.test_fairness_oracle import ACTIONS, _letters, buchi_strategy, lts_strategy

MODELS = Path(__file__).resolve().parents[1] / "models"

marks_strategy = st.dictionaries(
    st.sampled_from(ACTIONS),
    st.sampled_from(list(FairnessMark)),
    max_size=3,
)


def _search(lts, buchi, fairness, marks, early):
    sl, el = _letters(lts)
    product = Product(lts, buchi, sl, el)
    cond = make_condition(product, fairness, dict(marks) or None, event_units(product))
    stats = SearchStatistics()
    return product, find_fair_lasso(product, cond, stats, early=early), stats


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lts_strategy(), buchi_strategy(), st.sampled_from(list(Fairness)), marks_strategy)
def test_early_and_complete_component_searches_agree(lts, buchi, fairness, marks):
    product, lasso, stats = _search(lts, buchi, fairness, marks, early=True)
    _, complete, complete_stats = _search(lts, buchi, fairness, marks, early=False)
    assert not complete_stats.early_report
    assert (lasso is not None) == (complete is not None)
    event(f"{fairness.value}: {'early report' if stats.early_report else 'complete SCCs'}")
    if lasso is None:
        return
    sl, el = _letters(lts)
    run = [(product.sys_states[product.node_sys[lasso.initial]][0], product.node_q[lasso.initial])]
    actions = []
    for _u, k, v in lasso.prefix + lasso.loop:
        run.append((product.sys_states[product.node_sys[v]][0], product.node_q[v]))
        step = product.steps[k]
        actions.append(("<stutter>", ()) if step.stutter else (step.action, step.processes))
    check_lasso(lts, buchi, sl, el, run, actions, len(lasso.prefix), fairness, marks or None)


# ---------------------------------------------------------------------------------
# Every test model, every notion, every annotation mark


def _load(path: Path):
    # api.load_model completes a lazily unfolded CSP# process (pat35_fork_join_lazy.csp)
    from bridge import api

    return api.load_model(str(path))


def _models():
    """Yield ``(path, model)`` for every model of ``tests/models/`` that loads (some are
    written to test an error)."""
    for path in sorted(MODELS.rglob("*")):
        if path.suffix not in (".csp", ".pml"):
            continue
        try:
            yield path, _load(path)
        except Exception:  # noqa: S112 - a model written to test an error
            continue


def _ltl_properties():
    out = []
    for path, model in _models():
        for i, (system, prop) in enumerate(model.properties()):
            if prop.kind is PropertyKind.LTL:
                out.append(pytest.param(system, prop, id=f"{path.name}#{i + 1}"))
    return out


def _an_event(system) -> str | None:
    """Return a visible event (or a statement label) of a step near the start."""
    from bridge.diagnostics import ModelRuntimeError
    from bridge.semantics.statespace import build_state_space

    space = build_state_space(system)
    try:
        todo = list(space.initial_states())
    except ModelRuntimeError:
        return None
    seen = set(todo)
    while todo and len(seen) < 200:
        state = todo.pop(0)
        try:
            successors = space.successors(state)
        except ModelRuntimeError:
            continue
        for step, nxt in successors:
            if step.event is not None:
                return step.event
            for inst, idx in step.edges:
                edge = space.edge(inst, idx, state)
                if edge is not None and edge.label is not None:
                    return edge.label
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return None


SETTINGS = [(f, ()) for f in Fairness] + [
    (Fairness.NONE, (mark,)) for mark in FairnessMark
] + [(Fairness.PROCESS_WEAK, (FairnessMark.SF,)), (Fairness.STRONG_GLOBAL, (FairnessMark.F,))]


@pytest.mark.parametrize(("system", "prop"), _ltl_properties())
def test_every_test_model_gets_the_same_verdicts(system, prop):
    event_name = _an_event(system)
    compared = 0
    for fairness, marks in SETTINGS:
        if marks and event_name is None:
            continue
        annotations = tuple((m, event_name) for m in marks)
        verdicts = []
        for early in (True, False):
            options = LtlOptions(fairness=fairness, annotations=annotations, max_states=15000,
                                 early_report=early)
            verdicts.append(check_ltl(system, prop, options))
        fast, slow = verdicts
        if Outcome.UNKNOWN in (fast.outcome, slow.outcome):
            continue  # a state limit: no verdict to compare
        compared += 1
        assert fast.outcome is slow.outcome, (fairness, annotations)
        if fast.outcome is Outcome.HOLDS:
            # nothing reported early: both searches explored the same product
            assert fast.statistics.states == slow.statistics.states
    assert compared > 0


def _systems():
    out = []
    for path, model in _models():
        for i, system in enumerate(model.systems):
            out.append(pytest.param(system, id=f"{path.name}:{i + 1}"))
    return out


def _infinitely_often(event_name: str | None):
    """Return the automaton of GF(event) (the universal one without an event): is
    there a fair run taking ``event`` infinitely often?"""
    from bridge.automata.buchi import Buchi, BuchiEdge, universal_buchi

    if event_name is None:
        return universal_buchi(), (lambda e: 0)
    edges = ((BuchiEdge(0, 0, (0, True, False), 1), BuchiEdge(0, 0, (0, False, True), 0)),)
    return Buchi(1, 0, edges, 1, ("p0",)), (lambda e: 1 if e == event_name else 0)


@pytest.mark.parametrize("system", _systems())
def test_every_test_model_has_the_same_fair_runs(system):
    """GF(event) under every notion and annotation mark, on every system of
    ``tests/models/`` (most have no LTL property): same answer with and without early
    reports, unless a search stops first (state limit, or a model error met by one
    search order and not by the other)."""
    from bridge.diagnostics import ModelRuntimeError
    from bridge.fairness.check import build_condition
    from bridge.fairness.product import LimitReached, ModelErrorAt
    from bridge.semantics.statespace import build_state_space

    event_name = _an_event(system)
    buchi, event_letter = _infinitely_often(event_name)
    for fairness, marks in SETTINGS:
        if marks and event_name is None:
            continue
        options = LtlOptions(annotations=tuple((m, event_name) for m in marks))
        answers = []
        for early in (True, False):
            try:
                product = Product(build_state_space(system), buchi, lambda s: 0, event_letter,
                                  max_states=5000)
                condition = build_condition(product, fairness, options, system)
                answers.append(find_fair_lasso(product, condition, early=early) is not None)
            except LimitReached:
                answers.append(None)
            except (ModelErrorAt, ModelRuntimeError):
                answers.append(None)  # the search stopped at a model error (order-dependent)
        if None not in answers:
            assert answers[0] == answers[1], (fairness, marks)
