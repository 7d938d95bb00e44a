"""Refinement checking of CSP# ``refines`` assertions (traces, stable failures,
failures-divergence), on the IR's state space: ``graph.py`` (labelled graphs, tau
cycles), ``normalise.py`` (the specification's normal form), ``product.py`` (the
search), ``check.py`` (the verdict of an IR property), ``table.py`` (a specification's whole
normal form as a table, for the compiled engine's search, and ``check.verdict_from_c``
the verdict of its answer).
"""

from bridge.refinement.check import (
    ReplayRefuted,
    check_refines,
    normalisation_stopped,
    verdict_from_c,
)
from bridge.refinement.graph import TimeUp
from bridge.refinement.product import check_refinement
from bridge.refinement.table import NormalFormTooLarge, SpecTable, normalise_whole

__all__ = ["NormalFormTooLarge", "ReplayRefuted", "SpecTable", "check_refinement",
           "check_refines", "normalisation_stopped", "normalise_whole", "TimeUp", "verdict_from_c"]
