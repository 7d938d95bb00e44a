"""The report of ``bridge check``: one section per assertion, then the processes of
each system as control-flow graphs.

Input: the flat JSON objects of ``bridge check --json`` (``verdict_to_json``), the
first object of each system carrying its ``outline`` (``system_outline``). A section
has the verdict, fairness, statistics and notes; with a counterexample (or witness
run) it adds the message sequence chart (``msc``), the run as a state graph and, for a
lasso, the fairness table (``fairness``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bridge.report._html import esc, lazy_details, table, tag, value_text
from bridge.report.fairness import fairness_table
from bridge.report.graphs import CFG_EDGES, cfg_dot, lasso_dot
from bridge.report.msc import PAGE_SIZE, sequence_chart, step_anchor
from bridge.report.page import Document
from bridge.report.run import run_view

# control-flow graphs shown open when the page loads (the others are drawn on opening)
OPEN_GRAPHS = 3
# process templates drawn at the most (Graphviz lays out each one when the report is
# written); the others are listed by name
DRAWN_GRAPHS = 200


def badge(verdict: str) -> str:
    """Return the coloured verdict badge (``HOLDS``, ``VIOLATED``...)."""
    return tag("span", esc(verdict.upper()), class_=f"badge {verdict}")


def _seconds(value: Any) -> str:
    if value is None:
        return "-"
    value = float(value)
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def _statistics(result: dict[str, Any]) -> str:
    states, seconds = result.get("states") or 0, result.get("seconds") or 0.0
    items = [("states", str(states)), ("transitions", str(result.get("transitions") or 0)),
             ("seconds", _seconds(seconds))]
    items.append(("states/s", f"{states / seconds:.0f}" if states and seconds >= 0.001
                   else "-"))
    extra = dict(result.get("statistics") or {})
    memory = extra.pop("peak_memory_bytes", 0)
    if memory:
        items.append(("peak memory", f"{memory / 2**20:.0f} MB"))
    depth = extra.pop("depth", 0)
    if depth:
        items.append(("depth", str(depth)))
    items.extend((name.replace("_", " "), value_text(value)) for name, value in extra.items())
    return table([name for name, _ in items], [[esc(value) for _, value in items]],
                 class_="stats", numeric=range(len(items)))


def _initial_state(initial: dict[str, Any]) -> str:
    rows = [[tag("code", esc(name[:-1] + " (location)" if name.endswith("@") else name)),
             tag("code", esc(f"L{value}" if name.endswith("@") else value_text(value)))]
            for name, value in initial.items()]
    if not rows:
        return ""
    return tag("details", tag("summary", f"initial state ({len(rows)} values)")
               + table(["variable", "value"], rows, class_="initial"))


def _result_section(doc: Document, result: dict[str, Any], anchor: str,
                    outline: dict[str, Any] | None, page_size: int) -> str:
    verdict = str(result.get("verdict", "unknown"))
    number = result.get("number")
    head = tag("h2", esc(f"[{number}] " if number is not None else "")
               + esc(result.get("assertion") or "") + " " + badge(verdict)
               + (" " + tag("span", esc(result["reason"]), class_="reason")
                  if result.get("reason") else ""))
    meta = tag("p", f"model <code>{esc(result.get('model'))}</code>, system "
               f"<code>{esc(result.get('system'))}</code>, fairness "
               f"<b>{esc(result.get('fairness', 'none'))}</b>", class_="meta")
    parts = [head, meta, _statistics(result)]
    if result.get("value") is not None:
        parts.append(tag("p", "value: " + tag("code", esc(value_text(result["value"])))))
    notes = result.get("notes") or []
    if notes:
        parts.append(tag("ul", "".join(tag("li", esc(note)) for note in notes),
                         class_="notes"))
    view = run_view(result, outline)
    if view is not None:
        what = "Counterexample" if verdict == "violated" else "Witness"
        kind = "an infinite run (lasso)" if view.loop_start is not None else "a finite run"
        parts.append(tag("h3", f"{what}: {kind} — message sequence chart"))
        parts.append(_initial_state(view.initial))
        parts.append(sequence_chart(view, anchor, doc.sources.anchor, page_size))
        parts.append(tag("h3", "The run as a graph" + (
            " (prefix and loop)" if view.loop_start is not None else "")))
        source = lasso_dot(view, anchor, lambda n: f"#{step_anchor(anchor, n)}")
        parts.append(tag("div", doc.graphs.add(f"{anchor}-g", source),
                         class_="graph-view lasso-graph"))
        if view.loop_start is not None:
            parts.append(tag("h3", "Why the loop is fair"))
            if view.witness:
                parts.append(fairness_table(view.witness, view.loop_start,
                                            view.loop_length))
            else:
                parts.append(tag("p", "The engine that found this lasso did not say why "
                                 "its loop is fair.", class_="note"))
    return tag("section", "".join(parts), id=anchor, class_=f"result {verdict}")


def _signature(process: dict[str, Any]) -> str:
    return json.dumps({"locations": process.get("locations"), "edges": process.get("edges"),
                       "initial": process.get("initial")}, sort_keys=True)


def _processes_section(doc: Document, outline: dict[str, Any], anchor: str,
                       model: str) -> str:
    """Return the control-flow graphs of a system: identical process templates (CSP#
    specialises one per instance) are drawn once and named together."""
    instances: dict[str, list[str]] = {}
    for instance in outline.get("instances", ()):
        instances.setdefault(instance["process"], []).append(instance["name"])
    groups: dict[str, list[dict[str, Any]]] = {}
    for process in outline.get("processes", ()):
        groups.setdefault(_signature(process), []).append(process)
    parts = [tag("h2", f"Processes of {esc(outline.get('system'))} "
                 f"(<code>{esc(model)}</code>) as control-flow graphs"),
             tag("p", f"{len(outline.get('processes', ()))} process templates, "
                 f"{len(outline.get('instances', ()))} instances at the start. A circle is "
                 "a control location (double: valid end state; octagon: terminated; "
                 "shaded: inside an atomic sequence); an edge is a guarded command "
                 "labelled [guard], event or channel operation, and effect; click one for "
                 "its source line.", class_="note")]
    listed = list(groups.values())
    for k, members in enumerate(listed[:DRAWN_GRAPHS]):
        process = members[0]
        names = [p["name"] for p in members]
        running = [i for name in names for i in instances.get(name, [])]
        locations, edges = len(process.get("locations", ())), len(process.get("edges", ()))
        summary = (f"{', '.join(names[:6])}{' …' if len(names) > 6 else ''}"
                   f" — {locations} locations, {edges} edges"
                   + (f"; instances: {', '.join(running[:8])}"
                      f"{' …' if len(running) > 8 else ''}" if running else ""))
        if edges > CFG_EDGES:
            body = tag("p", f"Not drawn: {edges} edges are more than {CFG_EDGES} "
                       "(bridge show prints the process).", class_="note")
            parts.append(tag("details", tag("summary", esc(summary)) + body, class_="cfg"))
            continue
        graph_anchor = f"{anchor}-p{k}"
        graph = doc.graphs.add(graph_anchor, cfg_dot(process, graph_anchor,
                                                     doc.sources.anchor))
        parts.append(lazy_details(esc(summary), tag("div", graph, class_="cfg-graph"),
                                  open_=k < OPEN_GRAPHS and edges <= 60, class_="cfg",
                                  id=graph_anchor))
    if len(listed) > DRAWN_GRAPHS:
        rest = [p["name"] for members in listed[DRAWN_GRAPHS:] for p in members]
        parts.append(tag("details", tag("summary", f"{len(rest)} more process templates, "
                                        f"not drawn (more than {DRAWN_GRAPHS}; bridge show "
                                        "prints them)")
                         + tag("p", esc(", ".join(rest))), class_="cfg not-drawn"))
    return tag("section", "".join(parts), id=anchor, class_="processes")


def add_check_results(doc: Document, results: Sequence[dict[str, Any]],
                      page_size: int = PAGE_SIZE) -> None:
    """Add a summary table, one section per result, and the processes of each system
    (from the first outline seen for it) to ``doc``."""
    outlines: dict[tuple[str, str], dict[str, Any]] = {}
    for result in results:
        key = (str(result.get("model")), str(result.get("system")))
        if result.get("outline") and key not in outlines:
            outlines[key] = result["outline"]
            doc.sources.add(result["outline"].get("sources") or {})
    rows, anchors = [], []
    for k, result in enumerate(results, 1):
        anchor = f"a{k}"
        anchors.append(anchor)
        rows.append([tag("a", str(result.get("number") or k), href=f"#{anchor}"),
                     tag("code", esc(result.get("model"))), esc(result.get("assertion")),
                     esc(result.get("fairness")), badge(str(result.get("verdict"))),
                     esc(result.get("states")), esc(result.get("transitions")),
                     esc(_seconds(result.get("seconds")))])
    if results:
        doc.entry("summary", "Summary")
        doc.sections.append(tag("section", tag("h2", "Summary") + table(
            ["#", "model", "assertion", "fairness", "verdict", "states", "transitions",
             "seconds"], rows, class_="summary sortable", numeric=(5, 6, 7)), id="summary"))
    for result, anchor in zip(results, anchors, strict=True):
        key = (str(result.get("model")), str(result.get("system")))
        doc.entry(anchor, f"[{result.get('number')}] {result.get('assertion')}",
                  badge(str(result.get("verdict"))))
        doc.sections.append(_result_section(doc, result, anchor, outlines.get(key),
                                            page_size))
    for k, ((model, system), outline) in enumerate(outlines.items(), 1):
        anchor = f"m{k}-processes"
        doc.entry(anchor, f"Processes of {system}")
        doc.sections.append(_processes_section(doc, outline, anchor, model))
