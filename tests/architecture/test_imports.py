"""Imports go one way (STYLE.md section 1; COMMON.md): walk every module's imports with
``ast`` and fail on an edge the rules do not allow, the way Spot's ``tests/sanity``
turns style into tests.

Rules, by the importing module's room (the longest matching prefix wins):
- ``bridge.diagnostics``, ``bridge._resources``: nothing of ours;
- ``bridge.ir``: ``diagnostics`` only (data, no evaluation);
- ``bridge.frontends.X``: ``ir``, ``diagnostics``, ``_resources``, its own package and
  the shared ``bridge.frontends`` package module, never another front-end;
- ``bridge.semantics``: ``ir``, ``diagnostics``;
- ``bridge.automata``: ``ir``, ``diagnostics``;
- ``bridge.fairness``: ``semantics``, ``automata``, ``ir``, ``diagnostics``;
- ``bridge.reductions``: ``semantics``, ``ir``, ``diagnostics``;
- ``bridge.refinement``: ``fairness``, ``semantics``, ``ir``, ``diagnostics``;
- ``bridge.engine_c`` (the compiled engine): ``semantics``, ``ir``, ``diagnostics``,
  ``_resources``; no room but ``api`` imports it;
- ``bridge.backends.X``: ``ir``, ``diagnostics``, ``_resources`` and the back-end
  packages (the CSP# emitter shares the SPIN emitter's expression folding), never the
  engine: the differential tests depend on it;
- ``bridge.report``: ``ir`` and ``diagnostics`` (it reads results as JSON and draws
  them; ``api`` wires it to the engine, which it never imports);
- ``bridge.api``, ``bridge.compare``, ``bridge.regress``: anything;
- ``bridge.results_doc``: ``regress`` (it rewrites RESULTS.md and the README's tables);
- ``bridge.cli``, ``bridge.commands``: ``api``, ``compare``, ``regress``, ``results_doc``,
  ``commands``, ``diagnostics``, ``ir`` (for types) and the package's ``__version__``.
A module of a room not listed here fails the test until a rule is added for it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "bridge"

_ANYTHING = ("bridge",)
RULES: dict[str, tuple[str, ...]] = {
    "bridge": (),  # the package __init__: nothing of ours
    "bridge.__main__": ("bridge.cli",),
    "bridge._resources": (),
    "bridge.diagnostics": (),
    "bridge.ir": ("bridge.diagnostics",),
    "bridge.frontends": ("bridge.ir", "bridge.diagnostics", "bridge._resources"),
    "bridge.semantics": ("bridge.ir", "bridge.diagnostics"),
    "bridge.automata": ("bridge.ir", "bridge.diagnostics"),
    "bridge.fairness": ("bridge.semantics", "bridge.automata", "bridge.ir",
                        "bridge.diagnostics"),
    "bridge.reductions": ("bridge.semantics", "bridge.ir", "bridge.diagnostics"),
    # refinement checking (CSP# refines): an engine room beside fairness, whose SCC
    # search it uses for divergences
    "bridge.refinement": ("bridge.fairness", "bridge.semantics", "bridge.ir",
                          "bridge.diagnostics"),
    # the compiled engine (issue 12): an engine room beside semantics; it reads the
    # C templates through _resources, and only api imports it
    "bridge.engine_c": ("bridge.semantics", "bridge.ir", "bridge.diagnostics",
                        "bridge._resources"),
    "bridge.backends": ("bridge.ir", "bridge.diagnostics", "bridge._resources",
                        "bridge.backends"),
    "bridge.report": ("bridge.ir", "bridge.diagnostics"),
    "bridge.api": _ANYTHING,
    "bridge.compare": _ANYTHING,
    "bridge.regress": _ANYTHING,
    # the results document updated in place (issue 13 item 3): reads regress's results
    "bridge.results_doc": ("bridge.regress",),
    "bridge.cli": ("bridge.api", "bridge.compare", "bridge.regress", "bridge.results_doc",
                   "bridge.commands",
                   "bridge.diagnostics", "bridge.ir", "bridge.__version__"),
}
RULES["bridge.commands"] = RULES["bridge.cli"]

# Rooms whose sub-packages must not import each other: one front-end never uses
# another (each language's only product is the IR).
SIBLING_ROOMS = ("bridge.frontends",)


def module_name(path: Path) -> str:
    """Return the dotted module name of a file under ``bridge/``."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_names(path: Path) -> list[tuple[int, str]]:
    """Return ``(line, dotted name)`` for every import of ``bridge`` in the file.

    ``from bridge.ir import expr`` yields ``bridge.ir.expr`` (a module or a name inside
    ``bridge.ir``: both belong to the room ``bridge.ir``). Relative imports are resolved
    against the file's package.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                if node.level > 1:
                    base_parts = base_parts[: -(node.level - 1)]
                base = ".".join(base_parts)
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return [(line, n) for line, n in found if n == "bridge" or n.startswith("bridge.")]


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def room_of(name: str) -> str | None:
    """Return the longest rule prefix that covers module ``name``."""
    matches = [prefix for prefix in RULES if prefix != "bridge" and _within(name, prefix)]
    if name == "bridge":
        return "bridge"
    return max(matches, key=len) if matches else None


def own_package(name: str) -> str:
    """Return the package a module may always import from: its own sub-room
    (``bridge.frontends.csp`` for ``bridge.frontends.csp.lower``) or its room."""
    for sibling_room in SIBLING_ROOMS:
        if _within(name, sibling_room) and name != sibling_room:
            return ".".join(name.split(".")[:3])
    room = room_of(name)
    return room if room not in (None, "bridge") else name


def violations(path: Path) -> list[str]:
    """Return the wrong-way imports of one file, as readable lines."""
    name = module_name(path)
    room = room_of(name)
    if room is None:
        return [f"{name}: no import rule for this module's room; add one to RULES"]
    allowed = RULES[room]
    mine = own_package(name)
    bad = []
    for line, target in imported_names(path):
        if _within(target, mine):
            continue
        if any(_within(target, prefix) for prefix in allowed):
            continue
        # ``from bridge.frontends import X`` where X is a sibling front-end is a wrong way;
        # the bare shared package module ``bridge.frontends`` is allowed to its children.
        if any(_within(name, r) and target == r for r in SIBLING_ROOMS):
            continue
        bad.append(f"{path.relative_to(ROOT)}:{line}: {name} ({room}) imports {target}")
    return bad


ALL_FILES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_go_one_way(path: Path) -> None:
    assert violations(path) == []


def test_the_walk_sees_every_room() -> None:
    names = {module_name(p) for p in ALL_FILES}
    assert {"bridge.api", "bridge.cli", "bridge.ir.model", "bridge.diagnostics"} <= names


# --- the checker itself must be able to fail -------------------------------------


@pytest.mark.parametrize(
    ("module", "source", "wrong"),
    [
        ("bridge/ir/bad.py", "from bridge.semantics import explore\n", True),
        ("bridge/semantics/bad.py", "import bridge.fairness.check\n", True),
        ("bridge/backends/spin/bad.py", "from bridge.semantics.successors import Step\n",
         True),
        ("bridge/backends/spin/bad2.py", "from bridge.fairness.check import check_ltl\n",
         True),
        ("bridge/backends/csp/good.py", "from bridge.backends.spin.emit import x\n", False),
        ("bridge/frontends/csp/bad.py", "from bridge.frontends.promela import lower\n",
         True),
        ("bridge/cli_bad.py", "", True),  # no rule for this room
        ("bridge/commands/bad.py", "from bridge.semantics import explore\n", True),
        ("bridge/commands/good.py", "from bridge import api\nfrom bridge.ir import Verdict\n",
         False),
        ("bridge/frontends/csp/good.py", "from .parse import x\nfrom bridge.ir import expr\n",
         False),
        ("bridge/fairness/good.py", "from bridge.automata.ltl import y\n", False),
        ("bridge/api_like.py", "", True),
        ("bridge/report/bad.py", "from bridge.semantics.explore import explore\n", True),
        ("bridge/report/bad2.py", "from bridge import api\n", True),
        ("bridge/report/good.py", "from bridge.report.page import Document\n"
                                  "from bridge.diagnostics import ConfigurationError\n", False),
        ("bridge/engine_c/good.py", "from bridge.semantics.statespace import x\n", False),
        ("bridge/engine_c/bad.py", "from bridge.fairness.check import check_ltl\n", True),
        ("bridge/backends/spin/bad3.py", "from bridge.engine_c import driver\n", True),
        ("bridge/fairness/bad.py", "from bridge.engine_c import driver\n", True),
    ],
)
def test_checker_catches_wrong_edges(module: str, source: str, wrong: bool,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = ROOT / module
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source)
    assert bool(violations(path)) is wrong
