"""A node with many edges keeps them for recomputation (``Product._remember``, issue
13): checking le_pl at N = 300 expands its initial state (601 successors, each a copy
of 300-odd slots) once instead of four times, with the same verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.fairness import product
from bridge.ir import Fairness
from bridge.semantics import statespace

ROOT = Path(__file__).resolve().parents[3]

MANY = """var c = 0;
Node(i) = [c < 3] up.i{c = c + 1;} -> Node(i) [] [c > 0] down.i{c = c - 1;} -> Node(i);
Sys = ||| x:{0..299}@Node(x);
#define full (c == 3);
#assert Sys |= []<> full;
#assert Sys |= <>[] full;
"""


def _check(path: str, text: str, fairness: Fairness) -> tuple[list, list[int]]:
    from bridge.frontends.csp import load_csp

    calls: list[int] = []
    original = statespace.CompiledStateSpace.successors

    def counting(self, state):  # noqa: ANN001, ANN202
        calls.append(hash(state))
        return original(self, state)

    verdicts = []
    with pytest.MonkeyPatch.context() as m:
        m.setattr(statespace.CompiledStateSpace, "successors", counting)
        system = load_csp(path, text).systems[0]
        for prop in system.properties:
            v = api.check_property(system, prop, api.CheckOptions(
                engine="python", fairness=fairness))
            verdicts.append((v.outcome, v.statistics.states, v.statistics.transitions,
                             v.lasso, v.trace))
    return verdicts, calls


@pytest.mark.parametrize("fairness", [Fairness.NONE, Fairness.WEAK, Fairness.STRONG_LOCAL])
def test_kept_edges_give_the_same_verdicts(fairness: Fairness, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    kept, kept_calls = _check("many.csp", MANY, fairness)
    monkeypatch.setattr(product, "RECENT_MIN_EDGES", 10**9)
    recomputed, calls = _check("many.csp", MANY, fairness)
    assert kept == recomputed
    assert len(kept_calls) < len(calls)


def test_le_pl_expands_its_initial_state_once() -> None:
    text = (ROOT / "case_studies" / "le_pl" / "le_pl.csp").read_text()
    text = text.replace("#define N 10;", "#define N 300;")
    verdicts, calls = _check("le_pl.csp", text, Fairness.NONE)
    assert [v[:3] for v in verdicts] == [(verdicts[0][0], 603, 603)]
    assert verdicts[0][0].name == "VIOLATED"
    assert len(calls) == len(set(calls))  # no state's successors computed twice
