"""report/fairness.py: the fairness table says, per action, where the loop enables and
engages it and why the loop is fair towards it under the notion checked."""

from __future__ import annotations

from bridge.report.fairness import fairness_table


def _witness(notion: str, everywhere: list[str]) -> dict:
    return {"fairness": notion, "enabled_somewhere": ["a", "b", "c"],
            "enabled_everywhere": everywhere, "engaged": ["a"], "explanation": "why",
            "enabled_at": [[0, 1], [0, 1, 2], [0]], "engaged_at": [[0], [], []]}


def test_weak_fairness_reasons() -> None:
    html = fairness_table(_witness("weak", ["a"]), loop_start=4, loop_length=3)
    assert 'class="fairness"' in html and "steps are 5–7" in html
    assert "engaged at step 5" in html
    # b is enabled at loop steps 5 and 6 and disabled before step 7
    assert "5–6" in html and "disabled before step 7" in html
    assert "disabled before step 5" in html  # c: enabled only at step 6
    assert "unfair" not in html


def test_an_unfair_row_is_flagged_not_hidden() -> None:
    html = fairness_table(_witness("strong-local", ["a"]), loop_start=0, loop_length=3)
    assert html.count('class="unfair"') == 2 and "please report it" in html


def test_process_level_and_no_positions() -> None:
    witness = {"fairness": "process-weak", "enabled_somewhere": ["P(0)", "P(1)"],
               "enabled_everywhere": ["P(0)"], "engaged": ["P(0)"], "explanation": ""}
    html = fairness_table(witness, loop_start=2, loop_length=2)
    assert "<th>process</th>" in html and "somewhere" in html
    assert "not enabled continuously" in html


def test_a_loop_with_many_actions_folds_the_table() -> None:
    names = [f"a{k}" for k in range(250)]
    witness = {"fairness": "weak", "enabled_somewhere": names, "enabled_everywhere": [],
               "engaged": names, "explanation": "",
               "enabled_at": [[k] for k in range(250)], "engaged_at": [[k] for k in range(250)]}
    html = fairness_table(witness, loop_start=0, loop_length=250)
    shown = html[:html.index("<details")]
    assert shown.count("<tr") == 101  # the header and the first 100 actions
    assert "the other 150 actions" in html and 'type="text/x-bridge-lazy"' in html
