"""Refinement checking of CSP# ``refines`` assertions (traces, stable failures,
failures-divergence), on the IR's state space: ``graph.py`` (labelled graphs, tau
cycles), ``normalise.py`` (the specification's normal form), ``product.py`` (the
search), ``check.py`` (the verdict of an IR property).
"""

from bridge.refinement.check import check_refines
from bridge.refinement.product import check_refinement

__all__ = ["check_refinement", "check_refines"]
