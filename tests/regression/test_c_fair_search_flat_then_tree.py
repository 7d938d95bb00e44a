"""Regression (issue 13 item 1): the orienting rings N = 3 under strong global fairness
(paper 001 Table 1: 2.27 s) took 6-8 s in the C fair search, of which about 60% in
the tree store (a probe of the pair table per inner node over a changed word) and
about half the expansions spent again: every complete accepting component went to
paper 000's Fig. 5, whose local graph re-expanded each of its nodes (a store lookup
per successor), and the strong-global prune sorted every internal edge.

Now (``templates/c/store.c``, ``templates/c/search_ltl.c``) the fair search's store
starts flat (successors' slots prefetched) and becomes the tree only past 2 GB of
vectors (``store_to_tree``: ids unchanged); the live nodes' edges are logged as they
are expanded and Fig. 5 reads them from the log (re-expanding only past the log's
budget); the prune checks node by node before it sorts. None of this may change a
count, a verdict, a Fig. 5 statistic or a counterexample: every layout below (flat,
tree, flat turned tree mid-search; log, no log, a log that runs out of budget) gives
the same numbers, the Python engine's, and a violated check's lasso is replayed on the
Python semantics.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.frontends.csp import load_csp
from bridge.ir import Fairness, Outcome, TransitionSystem
from tests.regression.test_c_ltl_tree_store import _tc_r

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")

ROOT = Path(__file__).resolve().parents[2] / "case_studies"
TC_R = ROOT / "tc_r" / "tc_r_5.csp"
LE_R = ROOT / "le_r" / "le_r_3.csp"
LE_OR = ROOT / "le_or" / "le_or_buggy_3.csp"

# (flat store bytes, edge log bytes): the defaults, trees from the start, a flat store
# turned into trees after 4 KB of vectors, no edge log, a log of 2 KB (it runs out)
LAYOUTS = [(0, 0), (-1, 0), (4096, 0), (0, -1), (0, 2048)]


def _system(path: Path, n: int | None = None) -> TransitionSystem:
    text = path.read_text(encoding="utf-8")
    if n is not None:
        text = re.sub(r"#define N \d+;", f"#define N {n};", text)
    [system] = load_csp(str(path), text=text).systems
    return system


def _check(system: TransitionSystem, engine: str, fairness: Fairness, number: int):
    props = [p for p in system.properties if p.formula is not None]
    return api.check_property(system, props[number],
                              api.CheckOptions(engine=engine, fairness=fairness))


def _numbers(v) -> tuple:
    extra = dict(v.statistics.extra)
    return (v.outcome, v.statistics.states, v.statistics.transitions,
            extra.get("subgraphs_checked"), extra.get("pruned_states"))


@pytest.mark.parametrize("path,n,fairness,number", [
    (TC_R, 5, Fairness.STRONG_GLOBAL, 0),
    (TC_R, 5, Fairness.STRONG_LOCAL, 0),
    (TC_R, 6, Fairness.STRONG_LOCAL, 0),
    (LE_R, None, Fairness.STRONG_GLOBAL, 0),
    (LE_OR, None, Fairness.STRONG_GLOBAL, 0),
])
def test_every_layout_gives_the_python_engines_numbers(monkeypatch, path, n, fairness, number):
    system = _system(path, n)
    python = _check(system, "python", fairness, number)
    seen = set()
    for flat, log in LAYOUTS:
        monkeypatch.setattr(driver, "FLAT_STORE_BYTES", flat)
        monkeypatch.setattr(driver, "EDGE_LOG_BYTES", log)
        c = _check(system, "c", fairness, number)
        assert ("engine", "c") in c.statistics.extra
        assert not any("Python engine" in note for note in c.notes), c.notes
        assert _numbers(c)[:3] == _numbers(python)[:3], (flat, log)
        if c.outcome is Outcome.VIOLATED:
            assert c.lasso is not None and c.lasso.loop
        seen.add(_numbers(c))
    assert len(seen) == 1, seen


def test_the_flat_store_turns_into_the_tree(monkeypatch):
    """TC_R N = 8 strong global (87,381 nodes, 101-byte vectors): flat, about 150 bytes
    a node; trees from the start, under 50; a flat store turned into trees after 64 KB
    of vectors ends as small as the tree (its arena freed), with the same counts."""
    system = _tc_r(8)
    got = {}
    for flat in (0, -1, 65536):
        monkeypatch.setattr(driver, "FLAT_STORE_BYTES", flat)
        c = _check(system, "c", Fairness.STRONG_GLOBAL, 0)
        assert c.outcome is Outcome.HOLDS and c.statistics.states == (4 ** 9 - 1) // 3
        got[flat] = (c.statistics.transitions, dict(c.statistics.extra)["bytes_per_state"])
    assert got[0][0] == got[-1][0] == got[65536][0]
    assert got[0][1] > 100
    assert got[-1][1] < 50 and got[65536][1] < 50
