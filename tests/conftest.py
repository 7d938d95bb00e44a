"""Shared pytest set-up: the SPIN/C-compiler gate and ``--update-golden``.

Tests that need SPIN are marked ``@pytest.mark.spin``. Where ``spin`` or a C compiler
is missing they are skipped with the reason, except under CI (``CI=true``), where a
skipped SPIN test is turned into a failure: CI must run them (``.ci/run`` installs
SPIN), so a missing tool can never make the suite look green.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest


def _missing_tools() -> list[str]:
    missing = []
    if shutil.which("spin") is None:
        missing.append("spin")
    if not any(shutil.which(cc) for cc in ("gcc", "cc", "clang")):
        missing.append("a C compiler (gcc/cc)")
    return missing


def in_ci() -> bool:
    """Return True when running under CI (``CI=true``, as .ci/run is run)."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite golden files (tests/golden) instead of comparing")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """Return True when golden files are to be rewritten (``--update-golden``)."""
    return bool(request.config.getoption("--update-golden"))


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("spin") is None:
        return
    missing = _missing_tools()
    if not missing:
        return
    message = f"needs {' and '.join(missing)}, which is not installed"
    if in_ci():
        pytest.fail(f"CI=true but this SPIN test cannot run: {message}", pytrace=False)
    pytest.skip(message)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    # A test's own skipif(spin missing) must not hide a missing SPIN under CI either.
    if (report.skipped and in_ci() and item.get_closest_marker("spin") is not None
            and _missing_tools()):
        report.outcome = "failed"
        report.longrepr = (f"CI=true but SPIN test was skipped: needs "
                           f"{' and '.join(_missing_tools())}")
