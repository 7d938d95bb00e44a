"""Graphs drawn by Graphviz: the lasso as a state graph and each process as a
control-flow graph (SPIN's automaton view), as inline SVG.

``dot`` (the Debian package ``graphviz``) runs once per report, as a subprocess without
a shell, on every graph at once (one SVG comes out per input graph). Where ``dot`` is
missing or fails, ``render_graphs`` says why and the report shows that sentence
instead of the graphs; nothing else of the report depends on it.

Large graphs are folded: a lasso longer than ``LASSO_NODES`` states keeps the states
at both ends of its prefix and of its loop, the middle of each becoming one node that
says how many steps it stands for; a process with more than ``CFG_EDGES`` edges is
not drawn (the report says so, ``bridge show`` prints it).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bridge.report._html import shorten, value_text
from bridge.report.run import RunView

LASSO_NODES = 80
CFG_EDGES = 400
DOT_TIMEOUT = 120.0
SourceLink = Callable[[str | None, int | None], str | None]


@dataclass(frozen=True, slots=True)
class Rendered:
    """The SVGs of ``render_graphs`` (None where a graph failed) or why there are none."""

    svgs: tuple[str | None, ...]
    problem: str = ""


def dot_string(text: object) -> str:
    """Return ``text`` as a quoted Graphviz string (escapes quotes and backslashes;
    newlines become left-justified line breaks)."""
    body = str(text).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + body.replace("\n", "\\l") + '"'


def _label(lines: Sequence[str]) -> str:
    """Return a left-justified multi-line label."""
    return dot_string("\n".join(lines) + "\n")


_ID = re.compile(r'\bid="([^"]*)"')


def _scoped(svg: str, prefix: str) -> str:
    """Return the SVG with every element id prefixed, so that several inline graphs do
    not share ids (Graphviz numbers nodes ``node1``... in every graph)."""
    start = svg.find("<svg")
    svg = svg[start:] if start >= 0 else svg
    return _ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', svg)


def render_graphs(sources: Sequence[tuple[str, str]], timeout: float = DOT_TIMEOUT
                  ) -> Rendered:
    """Return the SVG of each ``(id prefix, dot source)``, rendered by one ``dot -Tsvg``.

    A graph ``dot`` could not lay out is None (and the problem names it); without
    ``dot`` on the PATH every graph is None and the problem says to install graphviz.
    """
    if not sources:
        return Rendered(())
    dot = shutil.which("dot")
    if dot is None:
        return Rendered((None,) * len(sources), "Graphviz is not installed (no 'dot' on "
                        "the PATH; Debian/Ubuntu: apt-get install graphviz), so the "
                        "graphs are not drawn")
    text = "\n".join(source for _prefix, source in sources)
    try:
        done = subprocess.run([dot, "-Tsvg"], input=text, capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return Rendered((None,) * len(sources),
                        f"Graphviz did not finish within {timeout:g} s")
    except OSError as error:
        return Rendered((None,) * len(sources), f"Graphviz could not run: {error}")
    pieces = [piece for piece in re.split(r"(?=<\?xml )", done.stdout) if "<svg" in piece]
    if done.returncode != 0 or len(pieces) != len(sources):
        if len(sources) > 1:
            # one bad graph spoils the batch: draw each alone to keep the others
            alone = [render_graphs([item], timeout) for item in sources]
            problems = sorted({r.problem for r in alone if r.problem})
            return Rendered(tuple(r.svgs[0] for r in alone), "; ".join(problems))
        tail = " ".join(done.stderr.split())[-300:]
        return Rendered((None,), f"Graphviz failed (exit code {done.returncode}): {tail}")
    return Rendered(tuple(_scoped(svg, prefix)
                          for svg, (prefix, _source) in zip(pieces, sources, strict=True)))


# ---------------------------------------------------------------------------------
# The lasso


def _shown_states(count: int, loop_start: int | None, limit: int) -> list[int | None]:
    """Return the state indices to draw, in order, with None for a folded stretch."""
    def fold(first: int, last: int, budget: int) -> list[int | None]:
        if last - first <= budget:
            return list(range(first, last))
        head = budget * 2 // 3
        tail = budget - head
        return [*range(first, first + head), None, *range(last - tail, last)]

    if loop_start is None:
        return fold(0, count, limit)
    prefix_budget = max(4, limit * min(loop_start, count) // max(1, count))
    return fold(0, loop_start, prefix_budget) + fold(loop_start, count,
                                                     max(4, limit - prefix_budget))


def _state_lines(view: RunView, state: int, limit: int = 4) -> list[str]:
    """Return the label lines of state ``state``: its number and what changed on the
    way in (the initial state: its first values)."""
    if state == 0:
        values = [(k, v) for k, v in view.initial.items() if not k.endswith("@")]
        lines = ["s0 (initial)"] + [f"{k} = {value_text(v)}" for k, v in values[:limit]]
        if len(values) > limit:
            lines.append(f"… {len(values) - limit} more")
        return [shorten(line, 40) for line in lines]
    changes = view.steps[state - 1].get("changes") or []
    lines = [f"s{state}"] + [f"{c.get('variable')} = {value_text(c.get('new'))}"
                             for c in changes[:limit]]
    if len(changes) > limit:
        lines.append(f"… {len(changes) - limit} more changes")
    if not changes:
        lines.append("(no variable changed)")
    return [shorten(line, 40) for line in lines]


def _edge_label(step: dict[str, Any]) -> str:
    event = "(stutter)" if step.get("stutter") else (step.get("event") or "τ")
    who = ", ".join(step.get("processes") or ())
    return shorten(event, 28) + ("\n" + shorten(who, 28) if who else "")


def lasso_dot(view: RunView, anchor: str, step_href: Callable[[int], str]) -> str:
    """Return the dot source of the run as a state graph: state ``s0`` is the initial
    state, step ``k`` (1-based) leads from ``s(k-1)`` to ``sk``, and the last step of a
    lasso leads back to the state where the loop starts. Loop states are shaded and
    boxed together; every edge links to its row of the sequence chart."""
    count = len(view.steps)
    loop_start = view.loop_start
    # States 0..count-1 exist in a lasso (the last step returns to loop_start);
    # a finite trace also has its final state ``count``.
    states = count if loop_start is not None else count + 1
    shown = _shown_states(states, loop_start, LASSO_NODES)
    lines = [f"digraph {dot_string(anchor + '-lasso')} {{",
             '  graph [rankdir=TB, fontname="Helvetica", fontsize=10, nodesep=0.3, '
             'ranksep=0.3];',
             '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", '
             'color="#5b7db1", fontname="Helvetica", fontsize=9];',
             '  edge [fontname="Helvetica", fontsize=8, color="#444444"];']

    names: list[str] = []
    declared: list[str] = []
    loop_nodes: set[str] = set()
    for position, state in enumerate(shown):
        if state is None:
            before, after = shown[position - 1], shown[position + 1]
            assert before is not None and after is not None
            name = f"fold{position}"
            label = f"… {after - before - 1} states folded …\n(steps {before + 1}–{after})"
            declared.append(f'{name} [label={dot_string(label)}, shape=note, '
                            'fillcolor="#ffffff", style="filled,dashed"];')
            if loop_start is not None and before >= loop_start:
                loop_nodes.add(name)
        else:
            name = f"s{state}"
            attributes = (f'label={_label(_state_lines(view, state))}, '
                          f'id={dot_string(f"{anchor}-s{state}")}')
            if state == 0:
                attributes += ", penwidth=2"
            if loop_start is not None and state >= loop_start:
                attributes += ', fillcolor="#fff3c4", color="#b58900"'
                loop_nodes.add(name)
            declared.append(f"{name} [{attributes}];")
        names.append(name)
    lines.extend("  " + d for d, n in zip(declared, names, strict=True) if n not in loop_nodes)
    if loop_nodes:
        lines.append(f"  subgraph {dot_string('cluster_' + anchor + '_loop')} {{")
        lines.append('    label="loop (repeats forever)"; style="rounded,dashed"; '
                     'color="#b58900"; fontcolor="#7a5c00";')
        lines.extend("    " + d for d, n in zip(declared, names, strict=True) if n in loop_nodes)
        lines.append("  }")
    for position in range(len(shown) - 1):
        a, b = shown[position], shown[position + 1]
        if a is None or b is None:
            lines.append(f"  {names[position]} -> {names[position + 1]} [style=dashed];")
            continue
        step = view.steps[a]  # step a+1 leads from s_a to s_(a+1)
        lines.append(f"  s{a} -> s{b} [label={_label([_edge_label(step)])}, "
                     f"href={dot_string(step_href(a + 1))}, "
                     f"tooltip={dot_string(f'step {a + 1}: ' + (step.get('text') or ''))}];")
    if loop_start is not None and count:
        last = count - 1
        step = view.steps[last]
        lines.append(f"  s{last} -> s{loop_start} "
                     f"[label={_label([_edge_label(step)])}, color=\"#b58900\", "
                     f"penwidth=2, constraint=false, href={dot_string(step_href(count))}, "
                     f"tooltip={dot_string(f'step {count} closes the loop')}];")
    lines.append("}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------
# Control-flow graphs


def cfg_edge_lines(edge: dict[str, Any], limit: int = 36) -> list[str]:
    """Return the label lines of a control-flow edge: ``[guard]``, event or channel
    operation, effect (each shortened)."""
    lines = []
    if edge.get("guard"):
        lines.append(f"[{edge['guard']}]")
    if edge.get("event"):
        lines.append(edge["event"])
    if edge.get("comm"):
        lines.append(edge["comm"])
    effect = edge.get("effect") or []
    lines.extend(effect[:2])
    if len(effect) > 2:
        lines.append(f"… {len(effect) - 2} more")
    if edge.get("fairness"):
        lines.append(f"fair: {edge['fairness']}")
    if not lines:
        lines.append(edge.get("text") or "τ")
    return [shorten(line, limit) for line in lines]


def cfg_dot(process: dict[str, Any], name: str, link: SourceLink) -> str:
    """Return the dot source of one process template as a control-flow graph: one node
    per location (double border: valid end; octagon: terminal; shaded: atomic; labels
    shown), an arrow into the initial location, and one edge per guarded command,
    labelled with its guard, event or channel operation and effect, linked to its
    source line."""
    lines = [f"digraph {dot_string(name)} {{",
             '  graph [rankdir=TB, fontname="Helvetica", fontsize=10, nodesep=0.35, '
             'ranksep=0.35];',
             '  node [shape=circle, fontname="Helvetica", fontsize=9, style=filled, '
             'fillcolor="#ffffff", color="#345"];',
             '  edge [fontname="Helvetica", fontsize=8, color="#555555"];',
             '  start [shape=point, width=0.08];']
    for location in process.get("locations", ()):
        text = f"L{location['id']}"
        if location.get("labels"):
            text += "\n" + shorten(",".join(location["labels"]), 20)
        attributes = [f"label={dot_string(text)}"]
        if location.get("end"):
            attributes.append("shape=doublecircle")
        if location.get("terminal"):
            attributes.append("shape=doubleoctagon")
        if location.get("atomic"):
            attributes.append('fillcolor="#e6e6fa"')
        if location.get("accept") or location.get("progress"):
            attributes.append('color="#b00000"')
        href = link(location.get("file"), location.get("line"))
        if href:
            attributes.append(f"href={dot_string(href)}")
        lines.append(f"  L{location['id']} [{', '.join(attributes)}];")
    lines.append(f"  start -> L{process.get('initial', 0)};")
    for edge in process.get("edges", ()):
        attributes = [f"label={_label(cfg_edge_lines(edge))}",
                      f"tooltip={dot_string(edge.get('text') or '')}"]
        href = link(edge.get("file"), edge.get("line"))
        if href:
            attributes.append(f"href={dot_string(href)}")
        if edge.get("comm"):
            attributes.append('color="#1f5fa8"')
        lines.append(f"  L{edge['source']} -> L{edge['target']} [{', '.join(attributes)}];")
    lines.append("}")
    return "\n".join(lines)
