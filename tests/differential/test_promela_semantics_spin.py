"""bridge versus SPIN 6.5.2 on the Promela semantics of issue 15 that the per-model
safety/LTL comparison (``test_promela_vs_spin.py``) does not cover.

* **Non-progress cycles**: every test model with a ``progress`` label, bridge's
  ``non-progress-cycles`` assertion against ``pan -l`` (pan.c compiled with ``-DNP``),
  without fairness and with SPIN's weak fairness (``-f``, bridge's process-weak).
* **Acceptance cycles**: every test model with an ``accept`` label in a proctype,
  bridge's ``acceptance-cycles`` assertion against ``pan -a`` on pan.c compiled with
  ``-DNOCLAIM`` (no ltl claim: only the labels), without and with ``-f``.
  Both cycle checks run on the Python engine and on the compiled engine's fair search
  (``--engine c``).
* **Priorities** are used by pan as SPIN builds it by default (``#define HAS_PRIORITY``;
  partial order reduction stays on, with SPIN's own warning "use of priorities requires
  -DNOREDUCE"): the safety verdict of every priority model is the same with the default
  build as with ``-DNOREDUCE`` (which ``test_promela_vs_spin.py`` compares states with).
* **Channel assertions**: the default build checks ``xr``/``xs`` and a ``-DNOREDUCE``
  build does not (``XUSAFE``); checked on ``m80_xr_violated`` so that the documented
  reason for ``DEFAULT_BUILD`` stays true.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import pytest

from tests.differential.test_promela_vs_spin import MODEL_FILES, _tools_missing

pytestmark = pytest.mark.spin

_WORKDIRS: list[tempfile.TemporaryDirectory] = []


@cache
def _pan(model: Path, defines: tuple[str, ...]) -> Path:
    """Return the directory of a ``pan`` compiled for ``model`` with ``defines``."""
    holder = tempfile.TemporaryDirectory(prefix="bridge-pmlsem-")
    _WORKDIRS.append(holder)
    work = Path(holder.name)
    shutil.copy(model, work)
    done = subprocess.run(["spin", "-a", model.name], cwd=work, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "Error:" not in done.stdout, done.stdout + done.stderr
    cc = shutil.which("gcc") or shutil.which("cc") or "cc"
    done = subprocess.run([cc, "-w", *defines, "-o", "pan", "pan.c"], cwd=work,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return work


def _errors(model: Path, defines: tuple[str, ...], flags: tuple[str, ...]) -> tuple[int, str]:
    """Return pan's error count and its first error message."""
    out = subprocess.run(["./pan", *flags], cwd=_pan(model, defines), capture_output=True,
                         text=True, timeout=300).stdout
    summary = re.search(r"errors: (\d+)", out)
    assert summary, out
    first = re.search(r"^pan:1: (.*?) \(at depth \d+\)$", out, re.M)
    return int(summary.group(1)), first.group(1) if first else ""


def _load(model: Path):  # noqa: ANN202
    from bridge.frontends.promela import load_promela

    return load_promela(str(model)).systems[0]


def _cycle_cases() -> list:
    from bridge.ir import PropertyKind

    cases = []
    for model in MODEL_FILES:
        for prop in _load(model).properties:
            if prop.kind in (PropertyKind.NON_PROGRESS, PropertyKind.ACCEPTANCE):
                for fair in (False, True):
                    for engine in ("python", "c"):
                        cases.append(pytest.param(
                            model, prop.name, fair, engine,
                            id=f"{model.stem}-{prop.name}-{'f' if fair else 'nf'}-{engine}"))
    return cases


def test_label_cycle_models_exist() -> None:
    names = {p.values[1] for p in _cycle_cases()}
    assert names == {"non-progress-cycles", "acceptance-cycles"}


@pytest.mark.parametrize("model,name,fair,engine", _cycle_cases())
def test_label_cycles_match_pan(model: Path, name: str, fair: bool, engine: str) -> None:
    missing = _tools_missing()
    if missing:
        pytest.skip(missing)
    from bridge import api
    from bridge.ir import Fairness, Outcome, PropertyKind

    system = _load(model)
    prop = next(p for p in system.properties if p.name == name)
    fairness = Fairness.PROCESS_WEAK if fair else Fairness.NONE
    verdict = api.check_property(system, prop, api.CheckOptions(
        engine=engine, fairness=fairness, max_states=2_000_000))
    assert verdict.outcome is not Outcome.UNKNOWN, verdict
    assert (("engine", "c") in verdict.statistics.extra) == (engine == "c"), verdict.notes
    if prop.kind is PropertyKind.NON_PROGRESS:
        defines, flags = ("-DNOREDUCE", "-DNP", "-DNOCLAIM", "-DNFAIR=4"), ("-l",)
    else:
        defines, flags = ("-DNOREDUCE", "-DNOCLAIM", "-DNFAIR=4"), ("-a",)
    errors, message = _errors(model, defines, flags + ("-m1000000",) + (("-f",) if fair else ()))
    assert (verdict.outcome is Outcome.VIOLATED) == (errors > 0), (message, verdict.reason)
    if errors:
        expected = "non-progress cycle" if prop.kind is PropertyKind.NON_PROGRESS else "accept"
        assert expected in message and expected in verdict.reason


def test_issue_example_non_progress_cycle_at_depth_2() -> None:
    """The issue's example: pan -l finds the non-progress cycle at depth 2, with and
    without -f; bridge reports it under none and process-weak fairness."""
    missing = _tools_missing()
    if missing:
        pytest.skip(missing)
    model = next(m for m in MODEL_FILES if m.stem == "m82_non_progress")
    defines = ("-DNOREDUCE", "-DNP", "-DNOCLAIM")
    for flags in (("-l",), ("-l", "-f")):
        out = subprocess.run(["./pan", *flags], cwd=_pan(model, defines),
                             capture_output=True, text=True, timeout=60).stdout
        assert "pan:1: non-progress cycle (at depth 2)" in out, out


def _priority_models() -> list[Path]:
    return [m for m in MODEL_FILES if _load(m).priority_scheduling]


def test_priority_models_exist() -> None:
    assert len(_priority_models()) >= 3


@pytest.mark.parametrize("model", _priority_models(), ids=lambda p: p.stem)
def test_priorities_default_build_agrees_with_noreduce(model: Path) -> None:
    missing = _tools_missing()
    if missing:
        pytest.skip(missing)
    from bridge.ir import Outcome
    from bridge.semantics.explore import ExploreOptions, check_property

    system = _load(model)
    safety = next(p for p in system.properties if p.name == "safety")
    verdict = check_property(system, safety, ExploreOptions(max_states=2_000_000))
    default = _errors(model, ("-DNOCLAIM", "-DSAFETY"), ("-m100000",))
    reduced_off = _errors(model, ("-DNOREDUCE", "-DNOCLAIM", "-DSAFETY"), ("-m100000",))
    assert (default[0] > 0) == (reduced_off[0] > 0) == (verdict.outcome is Outcome.VIOLATED)


def test_xr_is_checked_by_the_default_build_only() -> None:
    missing = _tools_missing()
    if missing:
        pytest.skip(missing)
    model = next(m for m in MODEL_FILES if m.stem == "m80_xr_violated")
    errors, message = _errors(model, ("-DNOCLAIM", "-DSAFETY"), ())
    assert errors == 1 and "partial order reduction invalid" in message
    errors, _ = _errors(model, ("-DNOREDUCE", "-DNOCLAIM", "-DSAFETY", ), ("-E",))
    assert errors == 0


def test_spin_len_defect_with_channel_assertions(tmp_path: Path) -> None:
    """Documented divergence (README): in a model with xr/xs, pan's default build
    evaluates ``len(c)`` as ``len(c) > 0`` (the claim checks are joined to the value
    with ``&&`` in pan.m), while its -DNOREDUCE build gives the length. bridge gives
    the length, as the -DNOREDUCE build does."""
    missing = _tools_missing()
    if missing:
        pytest.skip(missing)
    from bridge.ir import Outcome
    from bridge.semantics.explore import ExploreOptions, check_property

    model = tmp_path / "len_defect.pml"
    model.write_text("chan c = [3] of { byte };\nbyte n;\n"
                     "active proctype A() { xr c; c!1; c!2; n = len(c); assert(n == 2) }\n")
    assert _errors(model, ("-DNOCLAIM", "-DSAFETY"), ())[0] == 1  # n == 1 in the default
    assert _errors(model, ("-DNOREDUCE", "-DNOCLAIM", "-DSAFETY"), ())[0] == 0
    system = _load(model)
    safety = next(p for p in system.properties if p.name == "safety")
    assert check_property(system, safety, ExploreOptions()).outcome is Outcome.HOLDS
