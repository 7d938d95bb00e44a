"""`bridge check --counter-abstraction [--cutoff K] [--unbounded]` end to end (issue 7
item 3): the leader election LE of paper 002 (case_studies/le_pl, 10 identical nodes)
fails with no fairness and holds under process-level weak and strong fairness, also
with omega counts and for unbounded families (paper 002 section 6 table)."""

from __future__ import annotations

import pytest

MODEL = "case_studies/le_pl/le_pl.csp"


@pytest.mark.parametrize(
    ("extra", "code", "verdict"),
    [
        (["--fairness", "none"], 1, "VIOLATED"),
        (["--fairness", "process-weak", "--cutoff", "2"], 0, "HOLDS"),
        (["--fairness", "process-strong", "--cutoff", "2", "--unbounded"], 0, "HOLDS"),
    ],
)
def test_le_verdicts_on_the_counter_abstraction(bridge, extra, code, verdict) -> None:
    result = bridge("check", MODEL, "--counter-abstraction", *extra)
    assert result.code == code, result.out + result.err
    assert verdict in result.out
    assert "counter abstraction" in result.out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--fairness", "weak"], "process-weak"),
        (["--unbounded"], "--unbounded needs --cutoff"),
        (["--por"], "cannot be combined"),
    ],
)
def test_counter_abstraction_refuses_what_it_cannot_check(bridge, extra, message) -> None:
    result = bridge("check", MODEL, "--counter-abstraction", *extra)
    assert result.code == 2, result.out + result.err
    assert message in result.err
    assert "Traceback" not in result.err
