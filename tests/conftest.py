"""Shared pytest set-up: the gates for external tools and ``--update-golden``.

Tests that need SPIN are marked ``@pytest.mark.spin``; tests that draw graphs need
Graphviz (``@pytest.mark.graphviz``); tests that open a report in headless Chromium
need Chromium and Graphviz (``@pytest.mark.browser``). Where a tool is missing they
are skipped with the reason, except under CI (``CI=true``), where such a skip is turned
into a failure: CI must run them (``.ci/run`` installs SPIN, Graphviz and Chromium),
so a missing tool can never make the suite look green.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest


def _missing_tools(marker: str = "spin") -> list[str]:
    """Return the tools the tests marked ``marker`` need and this machine lacks."""
    missing = []
    if marker == "spin":
        if shutil.which("spin") is None:
            missing.append("spin")
        if not any(shutil.which(cc) for cc in ("gcc", "cc", "clang")):
            missing.append("a C compiler (gcc/cc)")
    if marker == "browser" and not any(shutil.which(name) for name in (
            "chromium", "chromium-browser", "google-chrome", "chrome")):
        missing.append("chromium (Debian: apt-get install chromium)")
    if marker in ("graphviz", "browser") and shutil.which("dot") is None:
        missing.append("Graphviz's dot (Debian: apt-get install graphviz)")
    return missing


GATED = ("spin", "graphviz", "browser")


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
    for marker in GATED:
        if item.get_closest_marker(marker) is None:
            continue
        missing = _missing_tools(marker)
        if not missing:
            continue
        message = f"needs {' and '.join(missing)}, which is not installed"
        if in_ci():
            pytest.fail(f"CI=true but this {marker} test cannot run: {message}",
                        pytrace=False)
        pytest.skip(message)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    # A test's own skipif(tool missing) must not hide a missing tool under CI either.
    if not (report.skipped and in_ci()):
        return
    for marker in GATED:
        if item.get_closest_marker(marker) is not None and _missing_tools(marker):
            report.outcome = "failed"
            report.longrepr = (f"CI=true but {marker} test was skipped: needs "
                               f"{' and '.join(_missing_tools(marker))}")
            return
