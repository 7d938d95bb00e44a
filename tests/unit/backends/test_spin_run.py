"""run_spin / replay_trail on tiny hand-written Promela (needs spin and a C compiler)."""

from __future__ import annotations

import pytest

from bridge.backends.spin.pan_output import classify_error, parse_pan_output
from bridge.backends.spin.run import SpinOptions, run_spin
from bridge.backends.spin.trail import LineInfo, SourceMap, replay_trail
from bridge.diagnostics import BackendError, ConfigurationError, Span
from bridge.ir.verdict import Lasso, Trace

COUNTER = """\
byte x;
active proctype P() {
  do
  :: x < 3 -> x++
  :: x == 3 -> break
  od;
  assert(x == 2)
}
"""

CYCLE = """\
byte x;
active proctype P() {
  do
  :: x < 2 -> x++
  :: x == 2 -> x = 0
  od
}
ltl never4 { <> (x == 4) }
ltl bounded { [] (x <= 2) }
"""

STARVE = """\
bool go;
active proctype A() { do :: go = !go od }
active proctype B() { end: do :: go -> skip od }
ltl b_runs { []<> B@end }
"""


@pytest.mark.spin
def test_assertion_violation_with_trail() -> None:
    result = run_spin(COUNTER, SpinOptions(timeout=60))
    assert result.errors == 1
    assert result.error_kind == "assertion violated"
    assert result.trail is not None
    run = replay_trail(COUNTER, result.trail)
    assert isinstance(run, Trace)
    assert run.steps[-1].text.startswith("assert")
    assert run.steps[-1].span is not None and run.steps[-1].span.line == 7
    assert ("x", None, 3) in [c for s in run.steps for c in s.changes]


@pytest.mark.spin
def test_safety_holds_counts_states() -> None:
    fixed = COUNTER.replace("x == 2)", "x == 3)")
    result = run_spin(fixed, SpinOptions(defines=("NOREDUCE",)))
    assert result.errors == 0 and result.complete
    # 4 loop heads, 3 states after the guard x < 3, after x == 3, after the assert,
    # and the end: SPIN's count with -DNOREDUCE.
    assert result.states_stored == 10
    assert result.transitions >= result.states_stored - 1
    assert result.memory_mb > 0


@pytest.mark.spin
def test_ltl_acceptance_cycle_is_a_lasso() -> None:
    result = run_spin(CYCLE, SpinOptions(acceptance=True, ltl="never4"))
    assert result.error_kind == "acceptance cycle"
    assert result.claim == "never4"
    run = replay_trail(CYCLE, result.trail or "")
    assert isinstance(run, Lasso) and run.loop
    holds = run_spin(CYCLE, SpinOptions(acceptance=True, ltl="bounded"))
    assert holds.errors == 0 and holds.complete


@pytest.mark.spin
def test_weak_fairness_flag_changes_the_verdict() -> None:
    unfair = run_spin(STARVE, SpinOptions(acceptance=True))
    fair = run_spin(STARVE, SpinOptions(acceptance=True, weak_fairness=True))
    # Unfairly B may stop forever after its guard, before the always-enabled skip;
    # SPIN's weak fairness forces the skip, so B returns to `end` infinitely often.
    assert unfair.error_kind == "acceptance cycle"
    assert fair.errors == 0 and fair.complete


@pytest.mark.spin
def test_source_map_relabels_steps() -> None:
    result = run_spin(COUNTER)
    source_map = SourceMap(
        lines={4: LineInfo(Span("orig.csp", 10, 3), "inc", "x++")},
        instances={0: "Counter()"},
    )
    run = replay_trail(COUNTER, result.trail or "", source_map=source_map)
    assert isinstance(run, Trace)
    first = run.steps[0]
    assert first.event == "inc" and first.processes == ("Counter()",)
    assert first.span == Span("orig.csp", 10, 3)


@pytest.mark.spin
def test_syntax_error_is_backend_error() -> None:
    with pytest.raises(BackendError) as info:
        run_spin("active proctype P() { x = 1 }")
    assert "spin -a rejected" in str(info.value)


@pytest.mark.spin
def test_timeout_kills_pan() -> None:
    big = """\
byte a[6];
active [4] proctype P() {
  byte i;
  do
  :: a[i] = (a[i] + _pid + 1) % 7; i = (i + 1) % 6
  :: i = (i + 5) % 6
  od
}
"""
    result = run_spin(big, SpinOptions(timeout=6, defines=("NOREDUCE",), memory_mb=1024))
    assert result.timed_out or result.out_of_memory
    assert result.seconds < 15  # killed at the deadline (generous: loaded CI machines)
    if dict(result.stage_seconds).get("pan", 0.0) >= 3:
        # pan ran long enough to print progress lines (not when cc took the budget)
        assert result.states_stored > 0


@pytest.mark.spin
def test_include_dirs_reach_the_preprocessor(tmp_path) -> None:  # noqa: ANN001
    (tmp_path / "limit.h").write_text("#define LIMIT 2\n")
    model = '#include "limit.h"\nbyte x;\nactive proctype P() { x = LIMIT; assert(x == 2) }\n'
    with pytest.raises(BackendError):
        run_spin(model, SpinOptions(timeout=60))
    result = run_spin(model, SpinOptions(timeout=60, include_dirs=(str(tmp_path),)))
    assert result.complete and result.errors == 0


@pytest.mark.spin
def test_vectorsz_grows_when_pan_asks() -> None:
    # 100 processes with 16 bytes of locals each: more state vector than pan's default
    # VECTORSZ (1024) allows when the processes start
    model = "active [100] proctype P() { byte b[16]; b[0] = 1 }\n"
    result = run_spin(model, SpinOptions(timeout=120))
    assert result.complete and result.errors == 0 and result.states_stored > 100
    assert [name for name, _ in result.stage_seconds].count("cc") >= 2  # recompiled


def test_options_reject_unsafe_values() -> None:
    with pytest.raises(ConfigurationError):
        SpinOptions(defines=("X; rm -rf /",)).validate()
    with pytest.raises(ConfigurationError):
        SpinOptions(extra_pan_flags=("-a -b",)).validate()
    with pytest.raises(ConfigurationError):
        SpinOptions(weak_fairness=True).validate()
    with pytest.raises(ConfigurationError):
        SpinOptions(include_dirs=("/no/such/directory",)).validate()
    assert SpinOptions(acceptance=True, weak_fairness=True, max_depth=5).pan_arguments() == [
        "-a",
        "-f",
        "-m5",
    ]


def test_parse_pan_output_numbers() -> None:
    text = """\
pan:1: acceptance cycle (at depth 12)
State-vector 36 byte, depth reached 143, errors: 1
       28 states, stored (81 visited)
       37 states, matched
      118 transitions (= visited+matched)
  128.730	total actual memory usage
pan: elapsed time 0.5 seconds
"""
    found = parse_pan_output(text)
    assert found["stored"] == 28 and found["transitions"] == 118
    assert found["error"] == "acceptance cycle" and found["error_depth"] == 12
    assert found["memory"] == pytest.approx(128.73)
    assert classify_error("assertion violated - invalid array index") == "index out of range"
    assert classify_error("invalid end state") == "invalid end state"


@pytest.mark.spin
def test_trail_of_an_emitted_model_points_at_the_original_lines() -> None:
    from bridge.backends.spin.emit import emit_promela
    from bridge.frontends.promela import load_promela

    system = load_promela("orig.pml", COUNTER).systems[0]
    model = emit_promela(system, "plain", style="structured")
    result = run_spin(model.text)
    assert result.error_kind == "assertion violated"
    run = replay_trail(model.text, result.trail or "", source_map=model.source_map)
    assert isinstance(run, Trace)
    last = run.steps[-1]
    assert last.span is not None and last.span.file == "orig.pml" and last.span.line == 7
    assert last.processes == (system.instances[0].name or "P(0)",)
    assert all(s.span is not None and s.span.file == "orig.pml" for s in run.steps)
