"""Regression (issue 13 item 1, issue 12 item 5): the C fair search kept every system
state's packed vector whole, 101 bytes for TC_R N = 11 (22 CSP# ``var`` cells of 4
bytes holding 0 or 1), and the arena, the hash table (load at most 1/2) and the
per-node arrays grew by doubling: 244.5 bytes per product node at N = 11 strong global,
about 29 GB for N = 13 (89.5 million nodes; the run stopped at a 12 GB store). The fair
search's store now keeps a fixed-length vector as a tree of interned pairs of 32-bit
words (``templates/c/store.c``, after LTSmin's tree table): a state is its 8-byte root
pair; the table fills to 3/4 and the big arrays grow by a quarter; the letter of a
system state takes 1 or 2 bytes when the formula has at most 8 or 16 propositions, the
atomicity flags are kept only once a state has a holder (Promela atomic), and a node's
automaton state only when the automaton has more than one. N = 11 strong global then
reports 43.6 bytes per node. The layout must change no count, no verdict and no
counterexample: the counts below are the Python engine's, and a violated check's lasso
(built from vectors the C store decodes) is replayed on the Python semantics.
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
from tests.cli.conftest import run_bridge

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")

TC_R = Path(__file__).resolve().parents[2] / "case_studies" / "tc_r" / "tc_r_5.csp"

# One counter, one process: a 5-byte vector, two leaves of the tree under its root.
SMALL = """
var x = 0;
P() = inc{x = (x + 1) % 5} -> P() [] reset{x = 0} -> P();
#define zero (x == 0);
#assert P() |= []<> zero;
#assert P() |= <> [] zero;
"""


def _tc_r_text(n: int) -> str:
    text = re.sub(r"#define N \d+;", f"#define N {n};", TC_R.read_text(encoding="utf-8"))
    body = "".join(f"InitNode{i}() = " + "\n    [] ".join(
        f"setup.{i}.{k}{{token[{i}] = {k % 2}; label[{i}] = {k // 2};}} -> Skip"
        for k in range(4)) + ";\n" for i in range(n))
    text = re.sub(r"InitNode0\(\) =.*?(?=Init\(\) =)", body, text, flags=re.S)
    text = re.sub(r"Init\(\) = [^\n]*", "Init() = " + "; ".join(
        f"InitNode{i}()" for i in range(n)) + ";", text)
    text = re.sub(r"#define oneToken \([^\n]*", "#define oneToken (" + " + ".join(
        f"token[{i}]" for i in range(n)) + " == 1);", text)
    return text


def _tc_r(n: int) -> TransitionSystem:
    [system] = load_csp(str(TC_R), text=_tc_r_text(n)).systems
    return system


def _check(system: TransitionSystem, engine: str, fairness: Fairness, number: int = 0):
    props = [p for p in system.properties if p.formula is not None]
    return api.check_property(system, props[number],
                              api.CheckOptions(engine=engine, fairness=fairness))


def _counts(v) -> tuple:
    return v.outcome, v.statistics.states, v.statistics.transitions


@pytest.mark.parametrize("n,fairness,outcome", [
    (5, Fairness.STRONG_GLOBAL, Outcome.HOLDS),
    (5, Fairness.WEAK, Outcome.VIOLATED),
    (6, Fairness.STRONG_LOCAL, Outcome.VIOLATED),
    (6, Fairness.NONE, Outcome.VIOLATED),
])
def test_tc_r_counts_are_the_python_engines(n, fairness, outcome):
    system = _tc_r(n)
    c = _check(system, "c", fairness)
    assert ("engine", "c") in c.statistics.extra
    assert not any("Python engine" in note for note in c.notes), c.notes
    assert _counts(c) == _counts(_check(system, "python", fairness))
    assert c.outcome is outcome
    if outcome is Outcome.VIOLATED:
        assert c.lasso is not None and c.lasso.loop


def test_tc_r_bytes_per_node_stay_small(monkeypatch):
    """N = 8: 87,381 nodes; the flat store reported 148.7 bytes a node, the tree store
    53.4, and 44.4 once the letter took one byte (one proposition), the atomicity flags
    none (CSP#) and the automaton state none (one automaton state): most of what is
    left is the hash table and the per-node arrays (the pairs are shared). The store
    stays flat up to 2 GB of vectors (test_c_fair_search_flat_then_tree): trees here
    from the start."""
    monkeypatch.setattr(driver, "FLAT_STORE_BYTES", -1)
    c = _check(_tc_r(8), "c", Fairness.STRONG_GLOBAL)
    extra = dict(c.statistics.extra)
    assert c.outcome is Outcome.HOLDS and c.statistics.states == (4 ** 9 - 1) // 3
    assert extra["engine"] == "c"
    assert extra["bytes_per_state"] < 50


@pytest.mark.parametrize("number,outcome", [(0, Outcome.HOLDS), (1, Outcome.VIOLATED)])
def test_short_vectors_counts_are_the_python_engines(tmp_path, number, outcome):
    path = tmp_path / "small.csp"
    path.write_text(SMALL)
    [system] = load_csp(str(path)).systems
    c = _check(system, "c", Fairness.WEAK, number)
    assert ("engine", "c") in c.statistics.extra
    assert _counts(c) == _counts(_check(system, "python", Fairness.WEAK, number))
    assert c.outcome is outcome


def test_tree_store_memory_limit_stops_cleanly(tmp_path):
    path = tmp_path / "tc_r_8.csp"
    path.write_text(_tc_r_text(8))
    result = run_bridge("check", "--engine", "c", "--fairness", "strong-global",
                        "--max-memory", "1", str(path))
    assert result.code == 3, result.err
    assert "UNKNOWN (memory limit reached before a verdict)" in result.out


@pytest.mark.parametrize("k", [3, 9, 17])
def test_letters_of_one_two_and_four_bytes(tmp_path, k):
    """A system state's letter takes 1, 2 or 4 bytes for k propositions: []<> a{k-1},
    the highest one (the others only make k), holds and [] !a{k-1} fails; dropping its
    bit would turn both."""
    defines = "".join(f"#define a{i} (x == {i});\n" for i in range(k))
    others = " && ".join(f"a{i}" for i in range(k - 1))
    path = tmp_path / "letters.csp"
    path.write_text(f"var x = 0;\nP() = inc{{x = (x + 1) % 20}} -> P();\n{defines}"
                    f"#assert P() |= []<> (({others}) || a{k - 1});\n"
                    f"#assert P() |= [] !a{k - 1};\n")
    [system] = load_csp(str(path)).systems
    for number, outcome in ((0, Outcome.HOLDS), (1, Outcome.VIOLATED)):
        c = _check(system, "c", Fairness.NONE, number)
        assert ("engine", "c") in c.statistics.extra
        assert _counts(c) == _counts(_check(system, "python", Fairness.NONE, number))
        assert c.outcome is outcome
