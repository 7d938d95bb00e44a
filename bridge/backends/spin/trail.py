"""Replay a pan trail with ``spin -t -p -g -l`` and map it onto the IR's trace types.

DESIGN.md section 5: SPIN's counterexamples become the same ``Trace``/``Lasso`` as the
native engine's, with steps pointing at the original model's lines. ``emit_promela``
keeps a ``SourceMap`` from emitted lines to IR spans, events and statement texts; a
plain Promela file (no map) keeps SPIN's own lines.

How SPIN steps become IR steps: the emitter writes the first statement of each IR
edge on a line marked ``starts_edge``; the following statements of that edge (the rest
of an atomic block) are on unmarked lines and are folded into the step that started
the edge. A rendezvous shows as a send then a receive in the trail; the receive is
folded into the send when the map marks the send line ``rendezvous``. Without a map,
every SPIN step is one ``TraceStep``.

Limits: ``Trace.initial`` is empty (spin -t prints changes, not the initial state);
variables the emitter added for bookkeeping (``SourceMap.hidden``) are left out of
``changes``.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bridge.backends.spin.run import MODEL_FILE, SpinOptions, output_tail, run_limited
from bridge.diagnostics import BackendError, Span
from bridge.ir.verdict import Lasso, Trace, TraceStep


@dataclass(frozen=True, slots=True)
class LineInfo:
    """What an emitted Promela line stands for in the IR."""

    span: Span | None = None
    event: str | None = None
    text: str = ""
    starts_edge: bool = True
    rendezvous: bool = False


@dataclass(frozen=True, slots=True)
class SourceMap:
    """Emitted line (1-based) -> ``LineInfo``; pid -> instance name; hidden variables."""

    lines: Mapping[int, LineInfo] = field(default_factory=dict)
    instances: Mapping[int, str] = field(default_factory=dict)
    hidden: frozenset[str] = frozenset()


_STEP = re.compile(
    r"^\s*(?P<n>\d+):\s+proc\s+(?P<pid>\d+)\s+\((?P<ptype>.*):\d+\)\s+"
    r"(?P<file>\S+?):(?P<line>\d+)\s+\(state\s+\d+\)\s*(?:\[(?P<text>.*)\])?\s*$"
)
_CHANGE = re.compile(r"^\t\t(?P<name>[^=\t]+?) = (?P<value>.*)$")
_CYCLE = "<<<<<START OF CYCLE>>>>>"


@dataclass
class _RawStep:
    pid: int
    proctype: str
    file: str
    line: int
    text: str
    changes: list[tuple[str, str]] = field(default_factory=list)


def parse_replay(output: str) -> tuple[list[_RawStep], int | None]:
    """Return the SPIN steps printed by ``spin -t -p -g -l`` and the index of the first
    step of the cycle (None for a finite trail)."""
    steps: list[_RawStep] = []
    cycle: int | None = None
    for line in output.splitlines():
        if "trail ends after" in line or line.startswith("#processes"):
            break
        if _CYCLE in line:
            cycle = len(steps)
            continue
        m = _STEP.match(line)
        if m:
            steps.append(
                _RawStep(
                    int(m["pid"]), m["ptype"], m["file"], int(m["line"]), (m["text"] or "").strip()
                )
            )
            continue
        c = _CHANGE.match(line)
        if c and steps:
            steps[-1].changes.append((c["name"].strip(), c["value"].strip()))
    return steps, cycle


def _value(text: str) -> object:
    try:
        return int(text)
    except ValueError:
        return text


def _fold(raw: list[_RawStep], source_map: SourceMap | None) -> list[tuple[int, TraceStep]]:
    """Return (index of the first raw step, TraceStep) pairs, folding continuations."""
    out: list[tuple[int, TraceStep]] = []
    open_step: dict[int, int] = {}  # pid -> index in out of its open edge
    pending_rendezvous: int | None = None
    for i, step in enumerate(raw):
        info = source_map.lines.get(step.line) if source_map else None
        name = (
            source_map.instances.get(step.pid, f"{step.proctype}({step.pid})")
            if source_map
            else f"{step.proctype}({step.pid})"
        )
        hidden = source_map.hidden if source_map else frozenset()
        changes = tuple(
            (n, None, _value(v))
            for n, v in step.changes
            if n.split("(")[0] not in hidden and n.split(":")[-1] not in hidden
        )
        continuation = info is not None and not info.starts_edge and step.pid in open_step
        if pending_rendezvous is not None and info is not None and step.pid != raw[i - 1].pid:
            continuation = True
            target = pending_rendezvous
            pending_rendezvous = None
        elif continuation:
            target = open_step[step.pid]
        if continuation:
            _, old = out[target]
            processes = old.processes if name in old.processes else (*old.processes, name)
            out[target] = (
                out[target][0],
                TraceStep(
                    old.event or (info.event if info else None),
                    processes,
                    old.text,
                    old.span,
                    old.changes + changes,
                ),
            )
            open_step[step.pid] = target
            continue
        pending_rendezvous = None
        span = info.span if info and info.span else Span(step.file, step.line, 1)
        out.append(
            (
                i,
                TraceStep(
                    info.event if info else None,
                    (name,),
                    (info.text if info and info.text else step.text),
                    span,
                    changes,
                ),
            )
        )
        open_step[step.pid] = len(out) - 1
        if info is not None and info.rendezvous:
            pending_rendezvous = len(out) - 1
    return out


def steps_to_run(
    raw: list[_RawStep], cycle: int | None, source_map: SourceMap | None = None
) -> Trace | Lasso:
    """Return the replayed run: a ``Lasso`` if the trail has a cycle, else a ``Trace``.

    A cycle without any process step (the claim loops in a deadlocked state) becomes
    a loop of one stutter step, as in the native engine.
    """
    folded = _fold(raw, source_map)
    if cycle is None:
        return Trace((), tuple(s for _, s in folded))
    prefix = tuple(s for i, s in folded if i < cycle)
    loop = tuple(s for i, s in folded if i >= cycle)
    if not loop:
        loop = (TraceStep(None, (), "(stutter)", None, (), stutter=True),)
    return Lasso(Trace((), prefix), loop)


def replay_trail(
    pml_text: str,
    trail: str,
    options: SpinOptions | None = None,
    source_map: SourceMap | None = None,
) -> Trace | Lasso:
    """Return the run a pan trail describes, mapped through ``source_map``.

    Runs ``spin -t -p -g -l -k trail model.pml`` (plus ``-N claim.nvr`` when the
    options carry a never claim) in a temporary directory; a spin failure raises
    ``BackendError``.
    """
    options = options or SpinOptions()
    with tempfile.TemporaryDirectory(prefix="bridge-trail-") as work:
        Path(work, MODEL_FILE).write_text(pml_text, encoding="utf-8")
        Path(work, "model.trail").write_text(trail, encoding="utf-8")
        argv = [options.spin, "-t", "-p", "-g", "-l", "-k", "model.trail"]
        if options.never_claim is not None:
            Path(work, "claim.nvr").write_text(options.never_claim, encoding="utf-8")
            argv += ["-N", "claim.nvr"]
        argv.append(MODEL_FILE)
        done = run_limited(argv, work, options.timeout, max(options.memory_mb, 1024))
    if done.timed_out or done.returncode != 0:
        raise BackendError(
            argv,
            done.returncode,
            output_tail(done.stdout + done.stderr),
            timed_out=done.timed_out,
            message="spin could not replay the trail",
        )
    raw, cycle = parse_replay(done.stdout)
    return steps_to_run(raw, cycle, source_map)
