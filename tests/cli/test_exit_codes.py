"""End to end: ``bridge`` exit codes 0/1/2/3 and no traceback for bad input.

Runs the real command in a subprocess on the small models in ``models/`` (DESIGN.md
section 8: 0 holds, 1 violated, 2 bad input or usage, 3 resource limit).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.cli.conftest import MODELS, run_bridge

LOCATED = re.compile(r"^\S+:\d+:\d+: error: ", re.MULTILINE)


def _no_traceback(result) -> None:
    assert "Traceback" not in result.err + result.out
    assert "bridge: internal error" not in result.err


# --- bad input and usage: exit code 2, a message, never a traceback ----------------

BAD_USAGE = [
    (["check", "no/such/model.csp"], "no such file"),
    (["check", "model.txt"], "cannot tell the modelling language"),
    (["check", str(MODELS)], "cannot tell the modelling language"),
    (["check", "--fairness", "bogus", "m.csp"], "allowed: none, weak, strong-local"),
    (["check", "--fair", "zz:go", "m.csp"], "expected MARK:EVENT"),
    (["check", "--fair", "sf", "m.csp"], "expected MARK:EVENT"),
    (["check", "--max-states", "0", "m.csp"], "expected a number >= 1"),
    (["check", "--max-states", "many", "m.csp"], "expected a whole number"),
    (["check", "--timeout", "-1", "m.csp"], "positive number of seconds"),
    (["check", "-D", "1x=3", str(MODELS / "counter.pml")], "NAME an identifier"),
    (["check", "-D", "N=3", str(MODELS / "counter.csp")], "Promela models only"),
    (["simulate", "--steps", "-2", "m.csp"], "expected a number >= 0"),
    (["frobnicate"], "invalid choice"),
    ([], "usage: bridge"),
    (["check"], "the following arguments are required: MODEL"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_USAGE,
                         ids=[" ".join(a) or "(none)" for a, _ in BAD_USAGE])
def test_bad_usage_exits_2_with_a_message(argv, message) -> None:
    result = run_bridge(*argv)
    assert result.code == 2, result.err
    assert message in result.err
    _no_traceback(result)


def test_not_utf8_is_bad_input(tmp_path) -> None:
    model = tmp_path / "binary.csp"
    model.write_bytes(b"\xff\xfe\x00garbage")
    result = run_bridge("check", str(model))
    assert result.code == 2 and "not UTF-8" in result.err
    _no_traceback(result)


# (fixture named for its defect, line of the error, fragment of the message)
SOURCE_ERRORS = [
    ("missing_semicolon.csp", 2, "error: "),
    ("undeclared.csp", 2, "undeclared variable 'y'"),
    ("realtime.csp", 2, "Wait[t]"),
    ("inline_ltl.csp", 3, "LTL"),
    ("bad_syntax.pml", 3, "syntax error"),
    ("undeclared.pml", 3, "error: "),
    ("embedded_c.pml", 2, "embedded C"),
]


@pytest.mark.parametrize(("name", "line", "fragment"), SOURCE_ERRORS)
def test_source_errors_are_rendered_with_a_caret(name, line, fragment) -> None:
    _assert_rendered("check", name, line, fragment)


@pytest.mark.parametrize("command", ["show", "explore", "simulate"])
@pytest.mark.parametrize(("name", "line", "fragment"),
                         [SOURCE_ERRORS[0], SOURCE_ERRORS[4]])
def test_every_command_renders_source_errors(command, name, line, fragment) -> None:
    _assert_rendered(command, name, line, fragment)


def _assert_rendered(command: str, name: str, line: int, fragment: str) -> None:
    result = run_bridge(command, str(MODELS / name))
    assert result.code == 2, result.err
    first = LOCATED.search(result.err)
    assert first is not None, result.err
    assert f"{name}:{line}:" in result.err and fragment in result.err
    assert f" {line} | " in result.err and "^" in result.err
    _no_traceback(result)


@pytest.mark.parametrize(("limit", "code"), [("2", 1), ("3", 0)])
def test_defines_reach_the_promela_preprocessor(limit, code) -> None:
    result = run_bridge("check", "-D", f"LIMIT={limit}", str(MODELS / "macro.pml"))
    assert result.code == code, result.err + result.out
    assert f"(x < {limit})" in result.out


def test_promela_ltl_chosen_by_name() -> None:
    result = run_bridge("check", "--assert", "bounded", str(MODELS / "macro.pml"))
    assert result.code == 0, result.err + result.out
    assert result.out.count("HOLDS") == 1 and "assertions and invalid end states" not in result.out


# --- verdicts: 0 holds, 1 violated, 3 resource limit ------------------------------


@pytest.mark.parametrize("name", ["holds.csp", "holds.pml"])
def test_all_hold_exits_0(name) -> None:
    result = run_bridge("check", str(MODELS / name))
    assert result.code == 0, result.err + result.out
    assert "HOLDS" in result.out and "VIOLATED" not in result.out
    _no_traceback(result)


@pytest.mark.parametrize("name", ["counter.csp", "counter.pml"])
def test_violation_exits_1_with_a_counterexample(name) -> None:
    result = run_bridge("check", str(MODELS / name))
    assert result.code == 1, result.err + result.out
    assert "VIOLATED" in result.out
    assert "counterexample" in result.out
    _no_traceback(result)


def test_one_assertion_by_number() -> None:
    result = run_bridge("check", "--assert", "1", str(MODELS / "counter.csp"))
    assert result.code == 0, result.err + result.out
    assert result.out.count("HOLDS") == 1 and "VIOLATED" not in result.out


def test_unknown_assertion_lists_the_assertions() -> None:
    result = run_bridge("check", "--assert", "9", str(MODELS / "counter.csp"))
    assert result.code == 2
    assert "the assertions are: 1:" in result.err
    _no_traceback(result)


def test_json_prints_one_object_per_assertion() -> None:
    result = run_bridge("check", "--json", str(MODELS / "counter.csp"))
    assert result.code == 1, result.err
    objects = [json.loads(line) for line in result.out.splitlines() if line.strip()]
    assert [o["verdict"] for o in objects] == ["holds", "violated"]
    for o in objects:
        assert {"model", "assertion", "verdict", "states", "transitions", "seconds",
                "trace", "lasso"} <= set(o)
        assert o["model"].endswith("counter.csp") and o["states"] > 0
    violated = objects[1]
    assert violated["trace"] is not None or violated["lasso"] is not None


def test_state_limit_exits_3_with_statistics() -> None:
    result = run_bridge("check", "--max-states", "50", str(MODELS / "unbounded.csp"))
    assert result.code == 3, result.err + result.out
    assert "UNKNOWN" in result.out
    assert re.search(r"states \d+", result.out)
    _no_traceback(result)


def test_explore_reports_states_and_rate() -> None:
    result = run_bridge("explore", str(MODELS / "counter.csp"))
    assert result.code == 0, result.err
    assert re.search(r"states\s+3\b", result.out)
    assert "transitions" in result.out and "states/s" in result.out


def test_explore_limit_exits_3() -> None:
    result = run_bridge("explore", "--max-states", "20", str(MODELS / "unbounded.csp"))
    assert result.code == 3, result.err + result.out
    _no_traceback(result)


def test_simulate_is_reproducible_with_a_seed() -> None:
    one = run_bridge("simulate", "--steps", "5", "--seed", "7", str(MODELS / "counter.pml"))
    two = run_bridge("simulate", "--steps", "5", "--seed", "7", str(MODELS / "counter.pml"))
    assert one.code == 0, one.err
    assert one.out == two.out and "seed 7" in one.out


@pytest.mark.parametrize("name", ["counter.csp", "counter.pml"])
def test_show_prints_the_ir_and_json_reads_back(name) -> None:
    text = run_bridge("show", str(MODELS / name))
    assert text.code == 0, text.err
    assert text.out.startswith(f"model {name}: 1 system(s)")
    as_json = run_bridge("show", "--json", str(MODELS / name))
    assert as_json.code == 0
    assert json.loads(as_json.out)["$type"] == "ModelFile"


def test_several_models_one_table_and_bad_ones_reported() -> None:
    result = run_bridge("check", str(MODELS / "holds.csp"), str(MODELS / "counter.csp"),
                        str(MODELS / "missing_semicolon.csp"))
    assert result.code == 2
    assert LOCATED.search(result.err)
    assert "holds.csp" in result.out and "counter.csp" in result.out
    _no_traceback(result)


def test_time_limit_exits_3() -> None:
    result = run_bridge("check", "--timeout", "0.5", str(MODELS / "unbounded.csp"))
    assert result.code == 3, result.err + result.out
    assert "UNKNOWN" in result.out and re.search(r"states \d+", result.out)
    _no_traceback(result)


def test_never_claim_is_checked() -> None:
    result = run_bridge("check", "--assert", "never claim", str(MODELS / "never_claim.pml"))
    assert result.code == 1, result.err + result.out
    assert "never claim  VIOLATED" in result.out and "counterexample" in result.out
    with_por = run_bridge("check", "--por", "--assert", "1", str(MODELS / "never_claim.pml"))
    assert with_por.code == 1
    assert "not applied to never claims" in with_por.out
