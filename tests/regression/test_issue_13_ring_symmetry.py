"""Issue 13 item 2: the symmetry detector found no family in the ring models of paper
001 Table 1 that it should reduce. Orienting rings and two-hop coloring failed the
rotation check because ``bit[u*C + color[v]]`` (C cells per node) has a non-constant
index and because the colour component of ``recolor.u.v.k`` was renamed as if it were
a node; both rings are undirected, so reflections are symmetries too. LE_R and LE_OR
(directed rings) keep their rotations; TC_R, whose leader is node 0, has none."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.diagnostics import ConfigurationError
from bridge.frontends.csp import load_csp
from bridge.ir import Fairness
from bridge.reductions.symmetry import detect_symmetry

CASES = Path(__file__).resolve().parents[2] / "case_studies"


@pytest.mark.parametrize("path,group,strides", [
    ("orienting_rings/orienting_rings_3.csp", "full", {"bit": 3, "color": 1, "succ": 1}),
    ("orienting_rings/orienting_rings_4.csp", "dihedral", {"bit": 3, "color": 1, "succ": 1}),
    ("two_hop_coloring/two_hop_coloring_3.csp", "full", {"bit": 3, "color": 1}),
    ("le_r/le_r_5.csp", "rotation", {"bullet": 1, "leader": 1, "shield": 1}),
    ("le_or/le_or_fixed_5.csp", "rotation",
     {"bullet": 1, "label": 1, "leader": 1, "phase": 1, "probe": 1}),
])
def test_ring_symmetry_is_proved(path: str, group: str, strides: dict[str, int]) -> None:
    ts = load_csp(str(CASES / path)).systems[0]
    for prop in ts.properties:
        spec = detect_symmetry(ts, prop.formula, Fairness.STRONG_GLOBAL)
        (family,) = spec.families
        assert family.group == group
        assert dict(zip(family.arrays, family.strides, strict=True)) == strides


def test_token_circulation_with_a_fixed_leader_is_refused() -> None:
    ts = load_csp(str(CASES / "tc_r" / "tc_r_5.csp")).systems[0]
    with pytest.raises(ConfigurationError, match="rotation symmetry.*differ"):
        detect_symmetry(ts, ts.properties[0].formula, Fairness.STRONG_GLOBAL)
