"""README.md stays true: every ``$ bridge ...`` example still runs, and gives the
verdicts and exit codes the README shows (timings and notes may differ)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.cli.conftest import ROOT, run_bridge

README = (ROOT / "README.md").read_text(encoding="utf-8")
HEADLINE = re.compile(r"^\s*\[\d+\] .*\s(HOLDS|VIOLATED|UNKNOWN)\b.*$")
# Options whose value is a file the command writes (``metavar="FILE"`` outputs): it
# need not exist before the example runs.
OUTPUT_OPTIONS = {"--html", "--markdown", "--csv", "--json", "--junit", "-o"}


def _examples() -> list[tuple[str, list[str], int | None]]:
    """Return (command, its README output lines, exit code shown or None)."""
    examples: list[tuple[str, list[str], int | None]] = []
    lines = README.splitlines()
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped.startswith("$ bridge "):
            command = stripped[2:]
            output: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(("$ ", "```")):
                output.append(lines[i])
                i += 1
            code = None
            if i + 1 < len(lines) and lines[i].strip() == "$ echo $?":
                code = int(lines[i + 1].strip())
            examples.append((command, output, code))
            continue
        i += 1
    return examples


EXAMPLES = _examples()


def test_the_readme_has_examples_and_the_two_commands() -> None:
    assert len(EXAMPLES) >= 8
    assert "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && " \
           ".venv/bin/python -m pytest -n 2 -q" in README
    assert (ROOT / ".ci" / "run").read_text().count(
        ".venv/bin/python -m pytest -n 2 -q") == 1


@pytest.mark.parametrize(("command", "output", "code"), EXAMPLES,
                         ids=[c for c, _, _ in EXAMPLES])
def test_example_gives_what_the_readme_shows(command: str, output: list[str],
                                             code: int | None) -> None:
    argv = shlex.split(command)[1:]
    for before, arg in zip(["", *argv], argv, strict=False):
        if "/" in arg and not arg.startswith("-") and before not in OUTPUT_OPTIONS:
            assert Path(ROOT / arg).exists(), f"the README names a missing file: {arg}"
    result = run_bridge(*argv)
    assert "Traceback" not in result.out + result.err
    shown = [line.strip() for line in output if HEADLINE.match(line)]
    got = [line.strip() for line in (result.out + result.err).splitlines()
           if HEADLINE.match(line)]
    assert got == shown
    if code is not None:
        assert result.code == code
