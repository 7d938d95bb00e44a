"""End to end: ``bridge check`` lists SPIN's non-progress and acceptance cycles as
assertions of their own (named like SPIN's checks), under any fairness, with JSON
output and exit codes; ``compare`` and ``translate`` handle or refuse them by name."""

from __future__ import annotations

import json

from tests.cli.conftest import ROOT

MODELS = ROOT / "tests" / "models" / "promela"


def test_check_lists_the_non_progress_assertion(bridge) -> None:  # noqa: ANN001
    result = bridge("check", str(MODELS / "m82_non_progress.pml"))
    assert result.code == 1, result.err
    assert "[2] non-progress cycles  VIOLATED (non-progress cycle)" in result.out
    assert "2   non-progress cycles" in result.out


def test_check_by_name_with_fairness_and_json(bridge) -> None:  # noqa: ANN001
    result = bridge("check", "--json", "--assert", "acceptance-cycles", "--fairness",
                    "process-weak", str(MODELS / "m85_accept_fair.pml"))
    assert result.code == 0, result.err
    data = json.loads(result.out.splitlines()[0])
    assert (data["assertion"], data["verdict"], data["fairness"]) == (
        "acceptance cycles", "holds", "process-weak")
    violated = bridge("check", "--json", "--assert", "acceptance-cycles",
                      str(MODELS / "m85_accept_fair.pml"))
    data = json.loads(violated.out.splitlines()[0])
    assert violated.code == 1 and data["verdict"] == "violated" and data["lasso"]["loop"]


def test_translate_keeps_labels_and_csp_checks_the_cycles_as_ltl(bridge) -> None:  # noqa: ANN001
    """--to csp writes the non-progress cycle check as an LTL assertion of its own (the
    whole model and the one assertion chosen)."""
    promela = bridge("translate", str(MODELS / "m82_non_progress.pml"), "--to", "promela")
    assert promela.code == 0 and "progress:" in promela.out
    cycle = "#assert BridgeSystem(0) |= !(<>[] bridge_np_moving);"
    csp = bridge("translate", str(MODELS / "m82_non_progress.pml"), "--to", "csp")
    assert csp.code == 0 and cycle in csp.out
    chosen = bridge("translate", str(MODELS / "m82_non_progress.pml"), "--to", "csp",
                    "--assert", "non-progress-cycles")
    assert chosen.code == 0 and cycle in chosen.out


def test_priorities_refused_by_name_where_a_target_lacks_them(bridge) -> None:  # noqa: ANN001
    """--to csp writes priorities as state (tests/differential/test_translate_csp.py
    compares its verdicts); the explicit-pc Promela style refuses them by name."""
    csp = bridge("translate", str(MODELS / "m70_priority_active.pml"), "--to", "csp")
    assert csp.code == 0 and "bridge_prio" in csp.out
    premise = bridge("translate", str(MODELS / "m70_priority_active.pml"), "--encoding",
                     "premise", "--fairness", "weak", "--assert", "lo_last")
    assert premise.code == 2 and "process priorities (explicit-pc style" in premise.err
