"""One C code per family of static instances (issue 12 item 1, ``engine_c/gen_families``).

A static system (every CSP# model) gets one C function per control location of each
family of instances whose code differs only in data, not one per instance: the
generated unit of LE (``case_studies/le_pl``) must not grow with N but for its tables,
and both engines must still agree where shared code and specialised code (instances
that synchronise on a barrier) run side by side.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.frontends.csp import load_csp
from bridge.ir import Fairness, TransitionSystem
from tests.conftest import in_ci
from tests.differential.test_engine_c import assert_engines_agree
from tests.differential.test_engine_c_ltl import compare

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

ROOT = Path(__file__).resolve().parents[2]
LE = ROOT / "case_studies" / "le_pl" / "le_pl.csp"
LOCATION_FUNCTION = re.compile(r"^static void [LET]\w+\(ctx_t \*c,", re.M)


def _le(n: int) -> TransitionSystem:
    text = re.sub(r"#define N \d+;", f"#define N {n};", LE.read_text())
    return load_csp(f"le_pl_{n}.csp", text).systems[0]


def _unit(system: TransitionSystem) -> str:
    return driver.generate_model(system).source


def test_le_location_functions_do_not_grow_with_the_instances() -> None:
    small, large = _unit(_le(20)), _unit(_le(400))
    # Oracle and Guesser (3 locations with steps) and the Node family (3): 6 functions
    # at any N, where per-instance code had 3 more per node
    assert len(LOCATION_FUNCTION.findall(small)) == len(LOCATION_FUNCTION.findall(large)) == 6
    assert "LF0_0" in large and "LI30_" not in large  # no instance has code of its own
    # what still grows is data (segment, event and label tables): about 120 bytes per
    # instance where per-instance code took 2,250
    assert (len(large) - len(small)) / (400 - 20) < 400


def test_le_engines_agree_with_shared_code() -> None:
    ts = _le(5)
    assert "LF0_0" in _unit(ts)
    assert assert_engines_agree(ts) >= 1
    assert compare(ts, 200000, notions=(Fairness.NONE, Fairness.PROCESS_WEAK,
                                        Fairness.STRONG_LOCAL)) == 3


MIXED = """var x = 0;
P(i) = [x < 3] work.i{x = x + 1} -> sync -> P(i);
Q() = sync -> reset{x = 0} -> Q();
W(j) = tick.j -> W(j);
Sys() = ((|| i:{0..2}@P(i)) || Q()) ||| (||| j:{0..3}@W(j));
#define low x < 2;
#assert Sys() deadlockfree;
#assert Sys() |= []<> low;
"""


def test_barrier_members_share_and_agree(tmp_path: Path) -> None:
    # the P instances synchronise on 'sync' with each other and Q (one vector, the same
    # edge of each P): one family; the W instances another; Q has code of its own
    path = tmp_path / "mixed.csp"
    path.write_text(MIXED)
    [ts] = api.load_model(str(path)).systems
    unit = _unit(ts)
    shared = set(re.findall(r"^static void (LF\d+)_\d+\(ctx_t \*c,", unit, re.M))
    own = set(re.findall(r"^static void (LI\d+)_\d+\(ctx_t \*c,", unit, re.M))
    assert len(shared) == 2 and len(own) == 1, (shared, own)
    assert "/* barrier sync */" in unit
    assert assert_engines_agree(ts) == 2
    assert compare(ts, 200000) == len(Fairness)


# Parameters in guards, effects and computed array indices: the CSP# front-end lowers
# each instance on its own, with its parameter's value written in as literals; the
# instances share one code that reads the literals that differ from BR_PK.
GUARDED = """#define N %d;
var x = 0;
var bit[N];
W(j) = [x != j] a.j{x = j; bit[j] = 1 - bit[j];} -> W(j)
    [] [bit[(j + 1) %% N] == 1 && x < N - 1] b.j{x = (j * 2 + 1) %% N;} -> W(j);
Sys() = ||| j:{0..N-1}@W(j);
#define home (x == 0);
#define low (x < 2);
#assert Sys() deadlockfree;
#assert Sys() |= []<> home;
#assert Sys() |= <>[] low;
"""


def _guarded(n: int) -> TransitionSystem:
    return load_csp(f"guarded_{n}.csp", GUARDED % n).systems[0]


def _functions(unit: str, kind: str) -> set[str]:
    return set(re.findall(rf"^static void (L{kind}\d+)_\d+\(ctx_t \*c,", unit, re.M))


def test_guarded_literals_share_code_and_engines_agree() -> None:
    ts = _guarded(3)
    unit = _unit(ts)
    assert len(_functions(unit, "F")) == 1 and not _functions(unit, "I")
    assert "BR_PK[BR_PK_OFF[pid] + 0]" in unit
    assert driver.generate_model(ts).own_code == 0
    assert assert_engines_agree(ts) >= 1
    assert compare(ts, 200000, notions=(Fairness.NONE, Fairness.PROCESS_WEAK,
                                        Fairness.STRONG_GLOBAL)) == 6


def test_guarded_code_does_not_grow_with_the_instances() -> None:
    small, large = _unit(_guarded(20)), _unit(_guarded(400))
    assert len(LOCATION_FUNCTION.findall(small)) == len(LOCATION_FUNCTION.findall(large)) == 1
    # data only: the tables of events, labels and the 3 literals of each instance
    # (per-instance code took about 900 bytes each)
    assert (len(large) - len(small)) / (400 - 20) < 150


OUT_OF_RANGE = """var x = 0;
var bit[3];
V(j) = [x == j] c.j{x = (bit[j + 1] + j + 1) % 3;} -> V(j);
Sys() = ||| j:{0..2}@V(j);
#define zero (x == 0);
#assert Sys() deadlockfree;
#assert Sys() |= []<> zero;
"""


def test_guarded_index_out_of_range_in_one_member(tmp_path: Path) -> None:
    # V(2) reads bit[3]: a literal index checked at run time in the shared code, as the
    # Python engine checks it
    path = tmp_path / "range.csp"
    path.write_text(OUT_OF_RANGE)
    [ts] = api.load_model(str(path)).systems
    unit = _unit(ts)
    assert len(_functions(unit, "F")) == 1 and not _functions(unit, "I")
    assert assert_engines_agree(ts) >= 1
    for prop in ts.properties:
        c = api.check_property(ts, prop, api.CheckOptions(engine="c"))
        py = api.check_property(ts, prop, api.CheckOptions(engine="python"))
        assert (c.outcome, c.reason) == (py.outcome, py.reason)
        assert "index" in c.reason, c.reason
    assert compare(ts, 200000, notions=(Fairness.NONE, Fairness.STRONG_GLOBAL)) == 2
