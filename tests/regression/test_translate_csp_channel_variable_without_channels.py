"""Regression: a model with a channel variable but no channel (``chan q;`` and
``len(q)`` in an ltl formula, as in SPIN's own LTL examples) was written with
``bridge_len[q]`` but without declaring ``bridge_len``, so the CSP# did not parse."""

from __future__ import annotations

from bridge import compare
from bridge.frontends.csp import load_csp
from bridge.frontends.promela import load_promela


def test_channel_variable_without_channels_declares_the_channel_arrays() -> None:
    text = "chan q; int a;\nltl c6 { [] ((len(q) < 2) -> (len(q) > 0)) }\ninit { a = 1 }\n"
    out = compare.translate(load_promela("q.pml", text), "csp")
    assert "var bridge_len[1];" in out
    assert len(load_csp("q.csp", out).properties()) == 2
