"""Regression: partial order reduction with fairness annotations spent nearly all its
time deciding whether a step is *inevitable* (``_enabling.EnablingAnalysis``, paper 000
section 4): one fixed point per (event, edges) pair, each narrowing every instance from
"every edge usable" and searching its process graph for cycles at every narrowing.
On Milner's cyclic scheduler with annotations (paper 000 Table 3, PAT with POR: N = 100
in 5.5 s, N = 200 in 27.4 s) that took 37 of 44 s at N = 100 (596 fixed points,
472,648 cycle searches; 12.7 s unprofiled) and made N = 200 take 72.9 s.

Now a fixed point is computed once per event and set of participating instances (which
of their edges the step takes does not matter for a named event), starts from the
fixed point with no step kept enabled, works on bit masks, and memoises the cycle
search per instance and edge set. These counts pin that, together with the reduced
state count (368 at N = 10, unchanged) and the verdicts of the full inevitability
analysis, computed the old way, on a small model.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bridge import api
from bridge.frontends.csp import load_csp
from bridge.ir.verdict import Outcome
from bridge.reductions import _enabling
from bridge.reductions.dependencies import analyse_edges

MODEL = Path(__file__).resolve().parents[2] / "case_studies" / "ms" / "ms_annotated.csp"


def _model(n: int):
    text = re.sub(r"#define N \d+;", f"#define N {n};", MODEL.read_text(encoding="utf-8"))
    return load_csp(str(MODEL), text=text)


def test_inevitability_is_decided_once_per_event_and_participants(monkeypatch):
    made: list[_enabling.EnablingAnalysis] = []
    original = _enabling.EnablingAnalysis.__init__

    def record(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(_enabling.EnablingAnalysis, "__init__", record)
    [verdict] = api.check(_model(10), 1, api.CheckOptions(por=True, engine="python"))
    assert verdict.outcome is Outcome.HOLDS
    assert verdict.statistics.states == 368
    [analysis] = [a for a in made if a.statistics.fixpoints]
    stats = analysis.statistics
    # 4 N - 2 step kinds (a.i, b.i: Cell and Worker; c.i: two Cells) plus the fixed
    # point with no step kept enabled; 56 fixed points before (one per edge pair)
    assert stats.fixpoints == 4 * 10 - 2 + 1
    # one cycle search per instance and edge set (4108 before: one per narrowing)
    assert stats.cycle_searches <= 6 * 2 * 10
    assert stats.cycle_searches < stats.narrowings


def _fixpoint_from_the_top(analysis: _enabling.EnablingAnalysis, event: str | None,
                           edges: tuple[tuple[int, int], ...]) -> bool:
    """The old computation: every instance narrowed from "every edge usable", with a
    cycle search per narrowing, on sets (the definition in ``_enabling``'s docstring)."""
    procs = analysis.processes
    names = analysis._names
    usable = [set(range(len(p.edges))) for p in procs]
    for k, i in edges:
        proc = procs[k]
        if event is None:
            region, taken = {proc.edges[i].source}, {i}
        else:
            taken = {j for j in range(len(proc.edges)) if names[k][j] == event}
            region = {proc.edges[j].source for j in taken}
        usable[k] = {j for j, e in enumerate(proc.edges)
                     if j not in taken and e.source in region and e.target in region}

    def possible(name: str | None, k: int) -> bool:
        return name is None or all(
            m == k or any(names[m][j] == name for j in usable[m])
            for m in analysis._necessary.get(name, ()))

    changed = True
    while changed:
        changed = False
        for k, proc in enumerate(procs):
            kept = {j for j in _enabling._on_cycles(proc, usable[k]) if possible(names[k][j], k)}
            if kept != usable[k]:
                usable[k], changed = kept, True
    return not any(usable)


# b.0 can be put off forever (P loops on a.0), a.0 and c.0 cannot (P must leave, and
# Q || W stops: W has no cycle and is Q's necessary partner on d.0); d.0 and e.0 can
# (P loops)
AVOIDABLE = """
P() = a.0 -> P() [] b.0 -> c.0 -> P();
Q() = d.0 -> e.0 -> Q();
W() = d.0 -> Stop;
Sys() = P() ||| (Q() || W());
#assert Sys() |= []<> a.0;
"""


@pytest.mark.parametrize("source", ["ms3", "ms4", "avoidable"])
def test_inevitability_agrees_with_the_fixed_point_from_the_top(source):
    if source == "avoidable":
        system = load_csp("avoidable.csp", text=AVOIDABLE).systems[0]
    else:
        system = _model(int(source[2:])).systems[0]
    analysis = _enabling.EnablingAnalysis(
        system, analyse_edges(system), _enabling.annotated_events(system, ()))
    answers: set[bool] = set()
    for k, proc in enumerate(analysis.processes):
        for i in range(len(proc.edges)):
            name = analysis._names[k][i]
            partners = [(m, j) for m, p in enumerate(analysis.processes) if m != k
                        for j in range(len(p.edges)) if name and analysis._names[m][j] == name]
            for step in ([(k, i)], [(k, i), *partners[:1]], [(k, i), *partners]):
                got = analysis.inevitable(name, step)
                assert got is _fixpoint_from_the_top(analysis, name, tuple(sorted(step)))
                answers.add(got)
                # the same edge read as a step without event: its source location only
                assert analysis.inevitable(None, [(k, i)]) is _fixpoint_from_the_top(
                    analysis, None, ((k, i),))
    assert answers == ({True, False} if source == "avoidable" else {True})
