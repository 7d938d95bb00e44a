"""The subcommands of ``bridge``: one module each, found by ``discover_commands``.

A command module (not starting with ``_``) exposes ``register(subparsers) -> None``,
which adds its subparser and sets ``set_defaults(run=fn)`` with ``fn(args) -> int``
(the exit code). New modules are picked up without touching ``bridge/cli.py``.
Command modules import only ``bridge.api``, ``bridge.compare``, ``bridge.regress``,
``bridge.diagnostics`` and ``bridge.ir`` (``tests/architecture/test_imports.py``).
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

__all__ = ["discover_commands"]


def discover_commands() -> list[tuple[str, ModuleType | Exception]]:
    """Return ``(name, module)`` for every command module, sorted by name.

    A module that fails to import is returned as ``(name, error)`` so the CLI can still
    offer the other commands and say why this one is unavailable.
    """
    found: list[tuple[str, ModuleType | Exception]] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f"{__name__}.{info.name}")
        except Exception as error:  # reported by the CLI as an unavailable command
            found.append((info.name, error))
            continue
        if callable(getattr(module, "register", None)):
            found.append((info.name, module))
    return found
