"""``rare_full_collections`` puts off the collector's full passes during a search and
restores the thresholds after (issue 13)."""

from __future__ import annotations

import gc

import pytest

from bridge.semantics.collector import FULL_COLLECTION_EVERY, rare_full_collections


def test_full_passes_are_put_off_and_restored() -> None:
    before = gc.get_threshold()
    with rare_full_collections():
        inside = gc.get_threshold()
    assert inside[:2] == before[:2]
    assert inside[2] >= FULL_COLLECTION_EVERY
    assert gc.get_threshold() == before


def test_thresholds_are_restored_after_an_error() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), rare_full_collections():
        raise RuntimeError("search failed")
    assert gc.get_threshold() == before


def test_the_counter_abstraction_search_runs_with_full_passes_put_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bridge.frontends.csp import load_csp
    from bridge.reductions import counter

    seen: list[tuple[int, int, int]] = []
    original = counter.run_counter_abstraction

    def spy(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        seen.append(gc.get_threshold())
        return original(*args, **kwargs)

    monkeypatch.setattr(counter, "run_counter_abstraction", spy)
    system = load_csp("m.csp", """var n = 0;
Node(i) = [n < 2] up.i{n = n + 1;} -> Node(i);
Sys = ||| x:{0..3}@Node(x);
#define two (n == 2);
#assert Sys |= <> two;
""").systems[0]
    verdict = counter.check_counter_abstraction(system, system.properties[0])
    assert verdict.outcome.name == "HOLDS"
    assert seen and seen[0][2] >= FULL_COLLECTION_EVERY
