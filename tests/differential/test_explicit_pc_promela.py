"""Every Promela test model through the explicit-pc style (the layout of the fairness
encodings) agrees with SPIN on the original and with the native checker.

The explicit-pc style lists every step of the system as one option over global pcs;
``run`` gets a fixed instance slot and a finished instance dies by an option of its
own, youngest first (bridge/backends/spin/slots.py, emit.py). Checked here, per model:

* safety: assertion errors alone (``pan -E``) and then every error (invalid end states
  included) are found in the emitted model exactly when pan finds them in the
  original (the first error may differ: DFS orders differ);
* every ltl block: SPIN on the emitted plain model gives the native verdict without
  fairness, and the action-process encoding with ``pan -a -f`` gives the native verdict
  under event-level weak fairness (paper 003 section 3: each action its own process).

Models the explicit-pc style refuses (process-local channels, ``_last``, channel
variables, ``np_``) must be refused with a message naming the construct.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bridge.backends.spin.emit import emit_promela
from bridge.backends.spin.run import SpinOptions, run_spin
from bridge.diagnostics import UnsupportedError
from bridge.frontends.promela import load_promela
from bridge.ir import Fairness, Outcome, PropertyKind

pytestmark = pytest.mark.spin

MODELS = sorted((Path(__file__).resolve().parents[1] / "models" / "promela").glob("*.pml"))
REFUSED = {
    "m11_chan_params": "channel variable",
    "m27_last": "_last",
    "m31_local_chan": "process-local channel",
    "m39_local_chan_array": "process-local channel",
    "m70_priority_active": "process priorities",
    "m71_priority_run_set": "process priorities",
    "m72_priority_out_of_range": "process priorities",
    "m73_enabled": "enabled",
    "m74_enabled_self": "enabled",
    "m80_xr_violated": "channel assertion 'xr'",
    "m81_xr_xs_respected": "channel assertion 'xs'",
    "m56_for_in_channels": "process-local channel",
    "m57_typedef_channel": "process-local channel",
    "m65_trace": "trace/notrace",
    "m68_channel_reassigned": "process-local channel",
    "m68b_channel_assigned_per_instance": "process-local channel",
    "m66_notrace": "trace/notrace",
    "m110_global_channel_assigned": "channel operation on a channel variable",
}
# ltl blocks the explicit-pc style refuses (np_: SPIN's own non-progress variable; P@L
# without a pid when P has several instances)
LTL_REFUSED = {"m41_hidden_show_np": "np_", "m77_remote_single_pid1": "several instances",
               "m78_remote_single_pid0": "several instances"}
# SPIN issue #38 (promela-spin.md section 13): pan -f misses a cycle that only stutters
# in a terminal state; the native checker reports it.
SPIN_ISSUE_38 = {("m37_issue38", "stays1")}


def _load(path: Path):  # noqa: ANN202
    return load_promela(str(path), path.read_text()).systems[0]


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.stem)
def test_safety_agrees_with_pan_on_the_original(path: Path) -> None:
    system = _load(path)
    safety = next(p for p in system.properties if p.kind is PropertyKind.SAFETY)
    if path.stem in REFUSED:
        with pytest.raises(UnsupportedError, match=REFUSED[path.stem]):
            emit_promela(system, "plain", property=safety, style="explicit-pc")
        return
    emitted = emit_promela(system, "plain", property=safety, style="explicit-pc")
    options = emitted.spin_options(emitted.properties[0], timeout=60)
    # NOCLAIM: the safety property only (a violated safety ltl block of the original
    # would otherwise be reported by its claim in this run too)
    original_options = SpinOptions(defines=("NOREDUCE", "NOCLAIM"), timeout=60,
                                   include_dirs=(str(path.parent),))
    for ignore_end in (True, False):
        want = run_spin(path.read_text(),
                        dataclasses.replace(original_options, ignore_end_states=ignore_end))
        got = run_spin(emitted.text, dataclasses.replace(options, ignore_end_states=ignore_end))
        assert got.complete or got.errors, emitted.text
        assert (got.errors > 0) == (want.errors > 0), (ignore_end, want.error_kind, emitted.text)
        if ignore_end and want.errors:
            # the d_step of the IR states a blocked d_step as a failing assert
            assert got.error_kind == "assertion violated" or got.error_kind == want.error_kind


def _ltl_cases() -> list:
    cases = []
    for path in MODELS:
        if path.stem in REFUSED:
            continue
        system = _load(path)
        for prop in system.properties:
            if prop.kind is PropertyKind.LTL:
                for fairness in (Fairness.NONE, Fairness.WEAK):
                    cases.append(pytest.param(path, prop.name, fairness,
                                              id=f"{path.stem}-{prop.name}-{fairness.value}"))
    return cases


@pytest.mark.parametrize(("path", "name", "fairness"), _ltl_cases())
def test_ltl_agrees_with_native(path: Path, name: str, fairness: Fairness) -> None:
    from bridge.fairness.check import LtlOptions, check_ltl

    system = _load(path)
    prop = next(p for p in system.properties if p.name == name)
    native = check_ltl(system, prop, LtlOptions(fairness=fairness, timeout=60)).outcome
    assert native is not Outcome.UNKNOWN
    encoding = "plain" if fairness is Fairness.NONE else "action-process"
    if path.stem in LTL_REFUSED:
        with pytest.raises(UnsupportedError, match=LTL_REFUSED[path.stem]):
            emit_promela(system, encoding, fairness, prop, style="explicit-pc")
        return
    emitted = emit_promela(system, encoding, fairness, prop, style="explicit-pc")
    result = run_spin(emitted.text, emitted.spin_options(emitted.properties[0], timeout=60))
    assert result.complete or result.errors, emitted.text
    spin = Outcome.VIOLATED if result.errors else Outcome.HOLDS
    if fairness is Fairness.WEAK and (path.stem, name) in SPIN_ISSUE_38:
        assert (native, spin) == (Outcome.VIOLATED, Outcome.HOLDS)
        return
    assert spin == native, emitted.text
