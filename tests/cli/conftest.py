"""Helpers for the end-to-end CLI tests: run ``python -m bridge`` in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODELS = Path(__file__).resolve().parent / "models"


@dataclass
class Result:
    code: int
    out: str
    err: str


def run_bridge(*args: str, cwd: Path | None = None, timeout: float = 120) -> Result:
    """Return the exit code, stdout and stderr of ``bridge ARGS`` (a fresh process)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), BRIDGE_PROGRESS="0")
    env.pop("BRIDGE_DEBUG", None)
    done = subprocess.run([sys.executable, "-m", "bridge", *args], capture_output=True,
                          text=True, cwd=cwd or ROOT, env=env, timeout=timeout,
                          check=False)
    return Result(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def bridge():
    return run_bridge
