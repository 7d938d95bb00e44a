"""``bridge.api``'s verdict records: JSON with the sources embedded, reading them back,
and the HTML report."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bridge.api._options import (
    _room,
)
from bridge.diagnostics import ConfigurationError
from bridge.ir.model import RefusedAssertion, TransitionSystem
from bridge.ir.property import Property
from bridge.ir.verdict import Verdict

# ---------------------------------------------------------------------------------
# Results as JSON, reports as HTML (issue 14)

_SOURCE_LIMIT = 2 * 2**20  # a source file bigger than this is not embedded in reports


def _source_texts(paths: Sequence[str]) -> dict[str, str]:
    """Return ``path -> text`` of the readable files among ``paths`` (for reports)."""
    texts: dict[str, str] = {}
    for path in dict.fromkeys(paths):
        file = Path(path)
        try:
            if file.is_file() and file.stat().st_size <= _SOURCE_LIMIT:
                texts[path] = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # the report then shows line numbers without the source
    return texts


def verdict_json(path: str, system: TransitionSystem | None,
                 prop: Property | RefusedAssertion, verdict: Verdict,
                 outline: bool = False) -> dict[str, Any]:
    """Return the flat JSON object of one checked assertion (``bridge check --json``).

    ``outline``: also carry the system's instances, processes (control-flow graphs) and
    source text (``system_outline``), which ``bridge report`` draws; the check command
    adds it to the first object of each system. ``system`` is None for an assertion the
    front-end left unchecked (``refused_verdict``).
    """
    from bridge.ir.serialize import system_outline, verdict_to_json

    shape = None
    if outline and system is not None:
        shape = system_outline(system)
        files = [path, *system.source_files]
        files += [item["file"] for process in shape["processes"]
                  for item in (process, *process["edges"]) if item.get("file")]
        shape["sources"] = _source_texts(files)
    return verdict_to_json(verdict, prop.number, path, prop.text, outline=shape)


def read_results(paths: Sequence[str]) -> Any:
    """Return the results (``bridge.report.Results``) saved in the files ``paths``:
    ``bridge check --json`` output, ``bridge compare --json FILE``, ``bridge regress
    --json FILE``. An unreadable file or one of another kind raises
    ``ConfigurationError``."""
    results_class = _room("bridge.report", "Results", "the HTML report")
    parse = _room("bridge.report", "parse_results", "the HTML report")
    results = results_class()
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigurationError(f"{path}: no such file") from None
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigurationError(f"{path}: cannot read: {error}") from None
        results.extend(parse(text, path))
    return results


def render_report(title: str, checks: Sequence[dict[str, Any]] = (),
                  comparisons: Sequence[dict[str, Any]] = (),
                  regression: Sequence[dict[str, Any]] = (), results: Any = None,
                  subtitle: str = "") -> tuple[str, list[str]]:
    """Return ``(html, problems)``: the self-contained HTML report of check results
    (``verdict_json``), comparisons (``bridge.compare.format_json`` objects) and
    regression rows (``bridge.regress.format_json`` objects), or of ``results`` read
    by ``read_results``; ``problems`` says what could not be drawn (no Graphviz, no
    matplotlib)."""
    report = importlib.import_module("bridge.report")
    if results is None:
        results = report.Results(list(checks), list(comparisons), list(regression))
    if not results:
        raise ConfigurationError("nothing to report: no results were given")
    return report.render_report(results, title, subtitle)


def write_text(path: str, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8); an unwritable path raises
    ``ConfigurationError`` naming it."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise ConfigurationError(f"{path}: cannot write: {error.strerror or error}") \
            from None
