"""Subcommands are discovered from bridge/commands/; a broken one does not break the rest."""

from __future__ import annotations

import importlib

import pytest

import bridge.commands as commands
from bridge import cli


def test_every_command_module_is_found_and_registers() -> None:
    found = dict(commands.discover_commands())
    assert {"check", "explore", "show", "simulate"} <= set(found)
    assert not any(name.startswith("_") for name in found)
    for name, module in found.items():
        assert not isinstance(module, Exception), f"{name}: {module}"
    parser = cli.build_parser()
    for name in ("check", "explore", "show", "simulate"):
        assert callable(parser.parse_args([name, "m.csp"]).run)


def test_a_module_that_fails_to_import_becomes_an_unavailable_command(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.import_module

    def failing(name: str, package: str | None = None):
        if name == "bridge.commands.simulate":
            raise ImportError("simulated breakage")
        return real(name, package)

    monkeypatch.setattr(commands.importlib, "import_module", failing)
    assert cli.main(["simulate", "anything.csp"]) == 2
    assert "unavailable" in capsys.readouterr().err
    # the other commands still work
    assert cli.main(["check", "no/such/file.csp"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_help_and_version_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"]) == 0
    assert "check" in capsys.readouterr().out
    assert cli.main(["--version"]) == 0
    assert "bridge" in capsys.readouterr().out


def test_errors_map_to_exit_codes(monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    from bridge.commands import check

    def raising(error: BaseException):
        def run(args) -> int:
            raise error
        return run

    for error, code, text in [
        (MemoryError(), 3, "out of memory"),
        (RuntimeError("boom"), 4, "internal error: RuntimeError: boom"),
        (KeyboardInterrupt(), 130, "interrupted"),
    ]:
        monkeypatch.setattr(check, "run", raising(error))
        assert cli.main(["check", "m.csp"]) == code
        err = capsys.readouterr().err
        assert text in err and "Traceback" not in err
