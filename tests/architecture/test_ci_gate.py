"""tests/conftest.py: a SPIN test is skipped where SPIN is missing, but fails under CI.

Runs pytest in a subprocess on a tiny suite that uses the real conftest, with a PATH
on which neither spin nor a C compiler can be found.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SUITE = '''
import shutil
import pytest

@pytest.mark.spin
def test_marked():
    assert shutil.which("spin")

@pytest.mark.spin
@pytest.mark.skipif(shutil.which("spin") is None, reason="no spin")
def test_marked_with_own_skip():
    assert True

def test_plain():
    assert True
'''


def _run(tmp_path: Path, ci: str | None, suite: str = SUITE,
         markers: tuple[str, ...] = ("spin",)) -> subprocess.CompletedProcess[str]:
    """Run ``suite`` with the real conftest, on a PATH without any tool."""
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nmarkers =\n" + "".join(f"    {m}: needs {m}\n" for m in markers))
    (tmp_path / "test_gate.py").write_text(suite)
    empty = tmp_path / "bin"
    empty.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    env["PATH"] = str(empty)
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "-rs", str(tmp_path)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_missing_spin_skips_outside_ci(tmp_path: Path) -> None:
    done = _run(tmp_path, None)
    assert done.returncode == 0, done.stdout
    assert "1 passed, 2 skipped" in done.stdout


@pytest.mark.parametrize("ci", ["true", "1"])
def test_missing_spin_fails_under_ci(tmp_path: Path, ci: str) -> None:
    done = _run(tmp_path, ci)
    assert done.returncode == 1, done.stdout
    # setup-phase failures: pytest reports them as errors, and exits 1
    assert "1 passed, 2 errors" in done.stdout
    assert "CI=true but" in done.stdout


BROWSER_SUITE = '''
import pytest

@pytest.mark.browser
def test_opens_a_page():
    assert True

@pytest.mark.graphviz
def test_draws_a_graph():
    assert True
'''


@pytest.mark.parametrize(("ci", "expected"), [(None, "2 skipped"), ("true", "2 errors")])
def test_missing_chromium_and_graphviz_gate_like_spin(tmp_path: Path, ci: str | None,
                                                      expected: str) -> None:
    """The report's browser and Graphviz tests are gated as the SPIN tests are: skipped
    with the reason where the tools are missing, failed under CI (issue 14)."""
    done = _run(tmp_path, ci, BROWSER_SUITE, ("browser", "graphviz"))
    assert expected in done.stdout, done.stdout
    assert ("chromium" in done.stdout) and ("dot" in done.stdout)
