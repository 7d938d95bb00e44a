"""Why the loop of a counterexample is fair, as a table (DESIGN.md section 4: "each
counterexample says why it is fair").

One row per action (under process-level fairness: per process instance) that the loop
enables or engages: the loop steps where it is enabled, those where it is engaged, and
the reason the loop is fair towards it under the notion checked (paper 000 Defs. 2-4,
paper 002 Defs. 4-5):

- weak (and process weak): engaged in the loop, or not enabled in every state of it
  (the first loop step where it is disabled is named);
- strong local (and process strong): engaged in the loop (an action enabled somewhere
  in the loop must be);
- strong global: the loop takes every step of its component, so every step enabled in
  it is taken;
- no fairness: nothing is demanded.

The positions come from the witness's ``enabled_at``/``engaged_at``; a witness without
them (older JSON, SPIN trails) shows the sets only. Beyond ``TABLE_ROWS`` actions the
rest of the table is folded and drawn when opened.
"""

from __future__ import annotations

from typing import Any

from bridge.report._html import esc, lazy_details, ranges, table, tag

TABLE_ROWS = 100  # rows shown at first; the others wait in a folded section

_WEAK = ("weak", "process-weak")
_STRONG = ("strong-local", "process-strong")


def _reason(notion: str, engaged: list[int], enabled: list[int], everywhere: bool,
            loop_steps: list[int], has_positions: bool) -> tuple[str, str]:
    """Return ``(reason, css class)`` for one action."""
    if notion == "none":
        return "no fairness assumed", "fair"
    if engaged:
        return f"engaged at step {engaged[0]}" + (
            f" (and {len(engaged) - 1} more)" if len(engaged) > 1 else ""), "fair"
    if notion in _WEAK:
        if not everywhere:
            missing = [n for n in loop_steps if n not in set(enabled)] if has_positions \
                else []
            where = f": disabled before step {missing[0]}" if missing else ""
            return f"not enabled continuously{where}, so weak fairness does not " \
                   "demand it", "fair"
        return "enabled in every state and never engaged: this loop would not be " \
               "weakly fair (please report it)", "unfair"
    if notion in _STRONG:
        return "enabled but never engaged: this loop would not be strongly fair " \
               "(please report it)", "unfair"
    if notion == "strong-global":
        return "not taken: strong global fairness takes every enabled step of the " \
               "loop's component (please report it)", "unfair"
    return "not engaged; see the explanation above", ""


def fairness_table(witness: dict[str, Any], loop_start: int, loop_length: int) -> str:
    """Return the fairness explanation of a lasso's loop as HTML: the notion, the
    witness's sentence and the per-action table. Loop steps are numbered as in the
    sequence chart (the loop's first step is ``loop_start + 1``)."""
    notion = str(witness.get("fairness", "none"))
    enabled_names = list(witness.get("enabled_somewhere") or [])
    engaged_names = list(witness.get("engaged") or [])
    everywhere = set(witness.get("enabled_everywhere") or [])
    enabled_at = witness.get("enabled_at") or []
    engaged_at = witness.get("engaged_at") or []
    has_positions = bool(enabled_at) and len(enabled_at) == loop_length
    loop_steps = [loop_start + k + 1 for k in range(loop_length)]
    enabled_where: dict[str, list[int]] = {name: [] for name in enabled_names}
    engaged_where: dict[str, list[int]] = {name: [] for name in engaged_names}
    if has_positions:
        for k, units in enumerate(enabled_at):
            for u in units:
                enabled_where[enabled_names[u]].append(loop_steps[k])
        for k, units in enumerate(engaged_at[:loop_length]):
            for u in units:
                engaged_where[engaged_names[u]].append(loop_steps[k])
    names = list(dict.fromkeys(enabled_names + engaged_names))
    unit = "process" if notion.startswith("process") else "action"
    rows, classes = [], []
    for name in names:
        engaged = engaged_where.get(name, [])
        if not has_positions and name in engaged_where:
            engaged = loop_steps[:1]  # engaged somewhere; where is not recorded
        enabled = enabled_where.get(name, [])
        reason, css = _reason(notion, engaged if name in engaged_where else [], enabled,
                              name in everywhere, loop_steps, has_positions)
        if has_positions:
            enabled_text = ranges(enabled) if name in enabled_where else "-"
            engaged_text = ranges(engaged_where.get(name, []))
        else:
            enabled_text = "somewhere" if name in enabled_where else "-"
            engaged_text = "yes" if name in engaged_where else "-"
        rows.append([tag("code", esc(name)), esc(enabled_text),
                     "yes" if name in everywhere else "no", esc(engaged_text), esc(reason)])
        classes.append(css)
    intro = tag("p", f"Checked under <b>{esc(notion)}</b> fairness"
                + (f": {esc(witness['explanation'])}" if witness.get("explanation") else "")
                + f". Loop steps are {loop_steps[0] if loop_steps else '-'}"
                f"–{loop_steps[-1] if loop_steps else '-'} of the chart.")
    if not names:
        return intro + tag("p", "The loop enables and engages no action "
                           "(it stutters in a final or deadlocked state).", class_="note")
    headers = [unit, "enabled at loop steps", "enabled everywhere", "engaged at loop steps",
               "why the loop is fair towards it"]
    shown = table(headers, rows[:TABLE_ROWS], class_="fairness",
                  row_classes=classes[:TABLE_ROWS])
    if len(rows) > TABLE_ROWS:
        rest = len(rows) - TABLE_ROWS
        shown += lazy_details(f"the other {rest} {unit}{'es' if unit == 'process' else 's'}",
                              table(headers, rows[TABLE_ROWS:], class_="fairness more",
                                    row_classes=classes[TABLE_ROWS:]))
    return intro + shown
