"""Regression: ``--timeout`` did not bound the lazy unfolding of CSP# processes that
loading a model completes (``semantics.unfolding``): a model whose unfolding needs
many rounds (a public 2PC model: about 35 minutes) ran them all before the first
assertion's limit began. Now ``load_model``/``complete_unfoldings`` take the command's
time limit and stop with ``ResourceLimitReached`` (exit code 3) between rounds and
inside a round's search, and the front-end's own unfolding checks the same limit
(``diagnostics.time_limit``): ``--timeout 0.01`` on pat35_lazy_siblings.csp took 17 s."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.diagnostics import ResourceLimitReached, time_limit
from bridge.frontends.csp import load_csp

MODEL = Path(__file__).resolve().parents[1] / "models" / "csp" / "pat35_lazy_siblings.csp"


def test_lazy_unfolding_under_timeout() -> None:
    lazy = load_csp(str(MODEL))
    assert any(s.unfolding is not None for s in lazy.systems)
    with pytest.raises(ResourceLimitReached, match="unfolding the processes lazily: time"):
        api.complete_unfoldings(lazy, timeout=1e-9)
    done = api.complete_unfoldings(lazy, timeout=600)
    assert all(s.unfolding is None for s in done.systems)


def test_csp_front_end_unfolding_under_timeout() -> None:
    """The front-end's own unfolding (before the lazy rounds: thousands of locations of
    a '|||' inside a process, 16 s here at load 5) stops at the time limit too."""
    with pytest.raises(ResourceLimitReached, match="time limit reached loading the model"):
        api.load_model(str(MODEL), timeout=1e-9)
    with time_limit(1e-9):  # the limit reaches the front-end through time_limit
        with pytest.raises(ResourceLimitReached, match="loading the model"):
            load_csp(str(MODEL))
    load_csp(str(MODEL))  # no limit left behind
