"""Regression: ``--timeout`` did not bound the lazy unfolding of CSP# processes that
loading a model completes (``semantics.unfolding``): a model whose unfolding needs
many rounds (a public 2PC model: about 35 minutes) ran them all before the first
assertion's limit began. Now ``load_model``/``complete_unfoldings`` take the command's
time limit and stop with ``ResourceLimitReached`` (exit code 3) between rounds and
inside a round's search."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.diagnostics import ResourceLimitReached
from bridge.frontends.csp import load_csp

MODEL = Path(__file__).resolve().parents[1] / "models" / "csp" / "pat35_lazy_siblings.csp"


def test_lazy_unfolding_under_timeout() -> None:
    lazy = load_csp(str(MODEL))
    assert any(s.unfolding is not None for s in lazy.systems)
    with pytest.raises(ResourceLimitReached, match="unfolding the processes lazily: time"):
        api.complete_unfoldings(lazy, timeout=1e-9)
    done = api.complete_unfoldings(lazy, timeout=600)
    assert all(s.unfolding is None for s in done.systems)
