"""The code base is ``ruff check`` clean with the repository's configuration."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _ruff() -> list[str] | None:
    found = shutil.which("ruff")
    if found:
        return [found]
    try:
        import ruff  # noqa: F401
    except ImportError:
        return None
    return [sys.executable, "-m", "ruff"]


def test_ruff_check_is_clean() -> None:
    ruff = _ruff()
    if ruff is None:
        pytest.skip("ruff is not installed (it is in the test extras)")
    done = subprocess.run([*ruff, "check", "--no-cache", "bridge", "tests"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
