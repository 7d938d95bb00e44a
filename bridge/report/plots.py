"""Plots of comparisons and regression runs, drawn by matplotlib as inline SVG.

matplotlib is the ``plot`` extra (``pip install 'bridge[plot]'``); without it every
plot function returns None and ``missing_reason`` says why, and the report shows that
sentence instead. Figures are written with text kept as text (small, searchable) and
without a date, so the same results give the same SVG; every id of a figure is
prefixed with its anchor, so several figures can live in one page.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from typing import Any

VERDICT_COLOURS = {"holds": "#2e7d32", "violated": "#c62828", "timeout": "#9e9e9e",
                   "unknown": "#f9a825", "unsupported": "#bdbdbd", "error": "#6a1b9a"}
STATUS_COLOURS = {"pass": "#2e7d32", "MISMATCH": "#c62828", "ERROR": "#6a1b9a",
                  "limit": "#f9a825", "reported": "#1565c0", "missing": "#9e9e9e",
                  "skipped": "#9e9e9e"}


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def missing_reason() -> str | None:
    """Return why plots cannot be drawn, or None when matplotlib is available."""
    if _pyplot() is None:
        return "matplotlib is not installed (pip install 'bridge[plot]'), so the plots " \
               "are not drawn"
    return None


_REFERENCE = re.compile(r'(\bid="|url\(#|href="#)')


def _svg(figure: Any, anchor: str) -> str:
    """Return ``figure`` as inline SVG with ids scoped by ``anchor``, and close it."""
    plt = _pyplot()
    buffer = io.StringIO()
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": anchor}):
        figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(figure)
    text = buffer.getvalue()
    text = text[text.find("<svg"):]
    return _REFERENCE.sub(lambda m: f"{m.group(1)}{anchor}-", text)


def _bars(ax: Any, labels: Sequence[str], values: Sequence[float | None],
          verdicts: Sequence[str], title: str, log: bool) -> None:
    """Draw one bar per row; a time-out is hatched and says so, a missing value says
    n/a."""
    positions = range(len(labels))
    shown = [v if v is not None else 0 for v in values]
    colours = [VERDICT_COLOURS.get(v, "#ff9800") for v in verdicts]
    bars = ax.bar(positions, shown, color=colours)
    for bar, value, verdict in zip(bars, values, verdicts, strict=True):
        if verdict == "timeout":
            bar.set_hatch("//")
            bar.set_edgecolor("#555555")
        if value is None or verdict == "timeout":
            ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height(),
                    "time-out" if verdict == "timeout" else "n/a", ha="center",
                    va="bottom", fontsize=7, color="#555", rotation=90)
    ax.set_xticks(list(positions), labels, rotation=35, ha="right", fontsize=7)
    ax.set_title(title, fontsize=9)
    if log and any(v for v in shown if v):
        ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)


def comparison_bars(comparison: dict[str, Any], anchor: str) -> str | None:
    """Return one figure for a comparison: seconds, states and Büchi automaton size
    (states) per engine and encoding, bars coloured by verdict (grey: time-out)."""
    plt = _pyplot()
    if plt is None:
        return None
    rows = comparison.get("rows") or []
    labels = [f"{r.get('engine')}" for r in rows]
    verdicts = [str(r.get("verdict")) for r in rows]
    figure, axes = plt.subplots(1, 3, figsize=(11, 3.4))
    _bars(axes[0], labels, [r.get("seconds") for r in rows], verdicts, "seconds (log)", True)
    _bars(axes[1], labels, [r.get("states") for r in rows], verdicts, "states (log)", True)
    _bars(axes[2], labels, [r.get("buchi_states") for r in rows], verdicts,
          "Büchi automaton states", False)
    figure.suptitle(f"{comparison.get('model')}: {comparison.get('property')} "
                    f"(fairness {comparison.get('fairness')})", fontsize=9)
    return _svg(figure, anchor)


def premises_of(comparison: dict[str, Any]) -> int | None:
    """Return the number of fairness premises of a comparison (its premise rows'), or
    None when no row encoded premises."""
    counts = [r.get("premises") for r in comparison.get("rows") or []
              if r.get("premises") is not None]
    if counts:
        return int(max(counts))
    for r in comparison.get("rows") or []:  # older JSON: "12 premises" in the note
        match = re.search(r"(\d+) premises", str(r.get("note") or ""))
        if match:
            return int(match.group(1))
    return None


def premise_lines(comparisons: Sequence[dict[str, Any]], anchor: str) -> str | None:
    """Return a figure of seconds and Büchi automaton states (log scales) against the
    number of fairness premises, one line per engine, over every comparison that has
    premises; None when there is none (or no matplotlib)."""
    plt = _pyplot()
    if plt is None:
        return None
    points: dict[str, list[tuple[int, float | None, float | None, bool]]] = {}
    for comparison in comparisons:
        premises = premises_of(comparison)
        if premises is None:
            continue
        for r in comparison.get("rows") or []:
            points.setdefault(str(r.get("engine")), []).append(
                (premises, r.get("seconds"), r.get("buchi_states"),
                 r.get("verdict") == "timeout"))
    if not points:
        return None
    figure, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    for engine, values in sorted(points.items()):
        values.sort(key=lambda p: p[0])
        for ax, column in ((axes[0], 1), (axes[1], 2)):
            xs = [p[0] for p in values if p[column]]
            ys = [p[column] for p in values if p[column]]
            if xs:
                line = ax.plot(xs, ys, marker="o", label=engine)[0]
                late = [(p[0], p[column]) for p in values if p[column] and p[3]]
                if late:  # a time-out: the time is the limit, not the engine's
                    ax.scatter([x for x, _ in late], [y for _, y in late], marker="x",
                               s=60, color=line.get_color(), zorder=3)
    from matplotlib.ticker import MaxNLocator

    for ax, title in ((axes[0], "seconds"), (axes[1], "Büchi automaton states")):
        ax.set_xlabel("fairness premises")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(f"{title} per number of premises", fontsize=9)
        if ax.has_data():
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, title="× time-out", title_fontsize=7)
    return _svg(figure, anchor)


def regress_scatter(rows: Sequence[dict[str, Any]], anchor: str) -> str | None:
    """Return a log-log plot of our seconds against the paper's, one point per row with
    both times, coloured by status, with the diagonal where they are equal; None when
    no row has both (or no matplotlib)."""
    plt = _pyplot()
    if plt is None:
        return None
    points = [(float(r["paper_seconds"]), float(r["seconds"]), str(r.get("status")))
              for r in rows if r.get("paper_seconds") and r.get("seconds")]
    if not points:
        return None
    figure, ax = plt.subplots(figsize=(6, 5))
    for status in sorted({p[2] for p in points}):
        chosen = [p for p in points if p[2] == status]
        ax.scatter([p[0] for p in chosen], [p[1] for p in chosen], s=18,
                   color=STATUS_COLOURS.get(status, "#ff9800"), label=f"{status} ({len(chosen)})")
    low = min(min(p[0], p[1]) for p in points)
    high = max(max(p[0], p[1]) for p in points)
    low, high = 10 ** math.floor(math.log10(low)), 10 ** math.ceil(math.log10(high))
    ax.plot([low, high], [low, high], color="#777", linestyle="--", linewidth=1,
            label="same time")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("paper's seconds")
    ax.set_ylabel("our seconds")
    ax.set_title("our time against the paper's, per row", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    return _svg(figure, anchor)
