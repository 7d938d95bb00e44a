"""Issue 6 (3): the LE_OR bug of paper 000 section 5.2 is found, the fix verified.

The thesis pseudo-code for leader election in odd rings, N = 3, violates
``<>[] oneLeader`` under strong global fairness: the counterexample must be a lasso
whose loop keeps a number of leaders other than one in every state (000 section 5.2
shows a loop with two leaders). The corrected protocol holds. ``bridge check`` prints the
lasso (exit code 1) for the pseudo-code and exit code 0 for the corrected protocol.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from bridge import api, regress
from bridge.ir.verdict import Lasso, Outcome

CASE = Path(__file__).resolve().parents[2] / "case_studies" / "le_or"


def _row(file: str) -> regress.Row:
    rows = regress.load_rows([CASE / "expected.toml"])
    return next(r for r in rows if r.file == file and r.fairness == "strong-global")


def _check(row: regress.Row) -> Any:
    model = regress.load_row_model(row)
    return api.check(model, row.assertion, api.CheckOptions(
        fairness=api.parse_fairness("strong-global"), timeout=300.0))[0]


def _leaders(valuation: dict[str, Any]) -> int:
    total, seen = 0, False
    for name, value in valuation.items():
        if re.fullmatch(r"leader\[\d+\]", name):
            total, seen = total + int(value), True
        elif name == "leader" and isinstance(value, list | tuple):
            total, seen = total + sum(int(v) for v in value), True
    assert seen, f"no leader variable in the trace valuation: {sorted(valuation)}"
    return total


def _loop_leader_counts(lasso: Lasso) -> list[int]:
    valuation = dict(lasso.prefix.initial)
    for step in lasso.prefix.steps:
        valuation.update({name: new for name, _old, new in step.changes})
    counts = [_leaders(valuation)]
    for step in lasso.loop:
        valuation.update({name: new for name, _old, new in step.changes})
        counts.append(_leaders(valuation))
    return counts


def test_thesis_pseudo_code_violates_under_strong_global_fairness() -> None:
    row = _row("le_or_buggy_3.csp")
    assert row.expected == "violated"
    verdict = _check(row)
    assert verdict.outcome is Outcome.VIOLATED, verdict
    assert verdict.lasso is not None and verdict.lasso.loop, "no counterexample loop"
    counts = _loop_leader_counts(verdict.lasso)
    assert all(count != 1 for count in counts), counts
    text = regress.format_lasso(verdict.lasso)
    assert "loop" in text and "act" in text


def test_corrected_protocol_holds_under_strong_global_fairness() -> None:
    row = _row("le_or_fixed_3.csp")
    assert row.expected == "holds"
    verdict = _check(row)
    assert verdict.outcome is Outcome.HOLDS, verdict


def _bridge_check(model: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bridge", "check", str(model), "--fairness", "strong-global",
         "--timeout", "300"],
        capture_output=True, text=True, timeout=600, cwd=CASE.parents[1], check=False)


def test_bridge_check_prints_the_lasso_of_the_thesis_pseudo_code() -> None:
    # 000 section 5.2: the user sees the counterexample on the command line, as in PAT.
    done = _bridge_check(CASE / "le_or_buggy_3.csp")
    assert done.returncode == 1, done.stdout + done.stderr  # 1 = violated
    assert "VIOLATED" in done.stdout
    assert "loop starts here" in done.stdout
    assert re.search(r"\bact\d\.\d\.\d\b", done.stdout), done.stdout


def test_bridge_check_says_the_corrected_protocol_holds() -> None:
    done = _bridge_check(CASE / "le_or_fixed_3.csp")
    assert done.returncode == 0, done.stdout + done.stderr  # 0 = holds
    assert "HOLDS" in done.stdout.upper()
    assert "loop starts here" not in done.stdout
