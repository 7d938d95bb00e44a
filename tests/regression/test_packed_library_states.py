"""Regression: equal system states holding library values (tuples) packed differently.

The fair search's product interns system states packed into bytes
(``fairness/packed.py``); a state with a non-int slot (a value of PAT's library classes)
was packed with ``marshal`` version 4, which flags an object shared elsewhere (reference
count above one) with a reference bit: the same set held once or shared by two states
gave two packings, so one state became two product nodes (inflated counts, and the C
fair search's part reported "not strongly connected on the Python product"). Fixed by
packing with marshal version 2, which has no references.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c.build import find_compiler
from bridge.fairness.packed import PackedStates, pack_state, unpack_state
from bridge.ir import PropertyKind
from tests.conftest import in_ci

MODELS = Path(__file__).resolve().parents[1] / "models" / "csp"


def test_equal_states_with_a_shared_tuple_pack_alike() -> None:
    alone = (tuple([1, 3]), 0)  # its set is referenced by this state only
    shared = tuple([1, 3])
    keep = [shared]  # and this one by another owner too
    other = (shared, 0)
    assert alone == other and keep
    assert pack_state(alone) == pack_state(other)
    assert unpack_state(pack_state(alone)) == alone
    states = PackedStates()
    assert states.add(alone) == states.add(other) == 0


@pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")
def test_the_fair_product_counts_each_state_once() -> None:
    """The Python product of a model whose sets are built in several orders has as
    many nodes as the C engine's (which interns values by content), and the C engine's
    fair parts replay on it."""
    ts = api.load_model(str(MODELS / "library_set_orders.csp")).systems[0]
    for prop in (p for p in ts.properties if p.kind is PropertyKind.LTL):
        got = {e: api.check_property(ts, prop, api.CheckOptions(engine=e))
               for e in ("c", "python")}
        assert got["c"].statistics.states == got["python"].statistics.states, prop.text
        assert got["c"].outcome == got["python"].outcome, prop.text
        assert not any("checked by the Python engine" in n for n in got["c"].notes), prop.text
