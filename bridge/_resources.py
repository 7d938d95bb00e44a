"""Where grammars/ and templates/ live: inside the wheel or at the repository root.

The only module that knows the layout (STYLE.md section 1).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def resource_dir(name: str) -> Path:
    """Return the directory of the named resource kind ("grammars" or "templates")."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"bridge resource directory {name!r} not found")


def grammar_path(filename: str) -> Path:
    """Return the path of a lark grammar file, e.g. ``grammar_path("csp.lark")``."""
    return resource_dir("grammars") / filename


def template_dir() -> Path:
    """Return the directory holding the jinja2 templates."""
    return resource_dir("templates")
