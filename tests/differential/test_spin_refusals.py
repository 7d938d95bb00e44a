"""bridge refuses what spin -a refuses, saying what SPIN says, and refuses by name
only where pan's answer depends on its build (helper pmlload; the fixtures are rows of
``bridge.frontends.promela.catalogue.CATALOGUE``, checked for position and caret by
tests/errors/test_promela_errors.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bridge.diagnostics import SemanticError, UnsupportedError
from bridge.frontends.promela import load_promela

FIXTURES = Path(__file__).resolve().parents[1] / "errors" / "promela"

pytestmark = pytest.mark.skipif(shutil.which("spin") is None, reason="spin is not installed")

# fixture -> what spin -a 6.5.2 says when it refuses it
SPIN_REFUSES = {
    "no_runnable_process": "no runable process",
    "select_array_element": "bad index in for-construct arr",
    "for_record_field": "bad index in for-construct r",
    "for_start_exceeds_end": "start value for i exceeds end-value",
}
# fixtures spin -a accepts and bridge refuses by name (pan's value of timeout there
# depends on its build: m111's notes)
SPIN_ACCEPTS = ("timeout_read_after_timeout_step", "timeout_in_message")


def _spin_a(name: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    shutil.copy(FIXTURES / f"{name}.pml", tmp_path)
    return subprocess.run(["spin", "-a", f"{name}.pml"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("name", sorted(SPIN_REFUSES))
def test_bridge_refuses_what_spin_refuses(name: str, tmp_path: Path) -> None:
    done = _spin_a(name, tmp_path)
    assert done.returncode != 0 and SPIN_REFUSES[name] in done.stdout + done.stderr, done
    with pytest.raises(SemanticError) as info:
        load_promela(str(FIXTURES / f"{name}.pml"))
    spin_words = SPIN_REFUSES[name].replace("runable", "runnable")
    assert spin_words in str(info.value), str(info.value)


@pytest.mark.parametrize("name", SPIN_ACCEPTS)
def test_bridge_refuses_by_name_what_spin_accepts(name: str, tmp_path: Path) -> None:
    done = _spin_a(name, tmp_path)
    assert done.returncode == 0 and "Error" not in done.stdout, done
    with pytest.raises(UnsupportedError, match="timeout"):
        load_promela(str(FIXTURES / f"{name}.pml"))


def test_pan_reads_timeout_after_a_timeout_step_by_its_build(tmp_path: Path) -> None:
    """Why timeout_read_after_timeout_step is refused: the same pan.c (default spin -a)
    reads timeout 0 there without a never claim and 1 with one."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    (tmp_path / "m.pml").write_text(
        "byte x = 7, y;\nactive proctype P() {\n"
        "  atomic { timeout -> y = 1; if :: y == 1 -> x = timeout :: else fi };\n"
        "  assert(x == 0)\n}\nltl p { [] (x != 1) }\n")
    subprocess.run(["spin", "-a", "m.pml"], cwd=tmp_path, check=True, capture_output=True,
                   timeout=60)
    errors = []
    for defines, flags in ((["-DNOCLAIM"], []), ([], ["-a"])):
        subprocess.run([cc, "-w", *defines, "-o", "pan", "pan.c"], cwd=tmp_path, check=True,
                       capture_output=True, timeout=300)
        out = subprocess.run(["./pan", *flags], cwd=tmp_path, capture_output=True, text=True,
                             timeout=60).stdout
        errors.append("errors: 0" not in out)
    assert errors == [False, True]  # x = 0 without the claim, x = 1 with it
