"""Run one LTL property through every engine and encoding; return one comparison table.

DESIGN.md section 5 ("fairness-encoding comparisons"): the native fair checker
(``bridge.fairness.check.check_ltl``), SPIN on the premise encoding with its own LTL
translator (paper 000 formula F1, Table 1), SPIN on the same premise formula through a
never claim built by Spot, SPIN ``-a -f`` on the action-process encoding (paper 003
section 3; weak fairness only), SPIN without fairness, and Spot's own emptiness check
of the explicit product (small models). Each row says the engine, encoding, fairness,
verdict, states, transitions, Büchi automaton size, seconds and peak memory; a tool
that runs out of time is a ``timeout`` row, a notion an engine cannot express is an
``unsupported`` row. Rows that check the same fairness notion must agree: a
disagreement is flagged (``Comparison.disagreement``) and printed loudly by the CLI.

What "states" counts differs by engine, as each tool reports it: the native checker
and SPIN count product states (system x automaton; SPIN's include the bookkeeping
variable ``last`` of the premise encoding), the Spot row counts system states.

Orchestration only: this module may import every room (it sits beside ``api``).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bridge.backends.spin.emitted import STRONG_GLOBAL_FORMS as STRONG_GLOBAL_FORMS  # for the CLI
from bridge.diagnostics import BackendError, BridgeError, ConfigurationError, UnsupportedError
from bridge.ir.model import FairnessMark, ModelFile, TransitionSystem
from bridge.ir.property import Fairness, Property, PropertyKind
from bridge.ir.verdict import Outcome

ENGINES = ("native", "spin-premise", "spin-premise-spot", "spin-action-process", "spin-f",
           "spin-plain", "spot")
# What compare takes: LTL assertions, and Promela's progress/accept label cycles, which
# only the native checker and pan itself (-l / -a, with or without -f) can check.
COMPARABLE = (PropertyKind.LTL, PropertyKind.NON_PROGRESS, PropertyKind.ACCEPTANCE)
_LABEL_CYCLE_ENGINES = ("native", "spin-f", "spin-plain")


@dataclass(frozen=True, slots=True)
class CompareOptions:
    """``fairness``: the notion compared (native, premise, action-process, Spot);
    ``timeout`` (seconds) and ``memory_mb`` per engine run; ``engines``: which rows;
    ``spot_max_states``: Spot's emptiness check runs on models up to this size;
    ``strong_global_form``: the strong global premise of the premise rows, ``per-step``
    (one Streett pair per state, as paper 000 writes fairness) or ``bottom-scc`` (the
    equivalent generalized Büchi form; ``emit_promela``); ``jobs``: how many engines
    run at the same time (``compare``)."""

    fairness: Fairness = Fairness.WEAK
    annotations: tuple[tuple[FairnessMark, str], ...] = ()
    timeout: float = 60.0
    memory_mb: int = 2048
    engines: tuple[str, ...] = ENGINES
    spot_max_states: int = 20000
    strong_global_form: str = "per-step"
    jobs: int = 1  # engines run at once, each in its own process when more than 1


@dataclass(frozen=True, slots=True)
class CompareRow:
    engine: str
    encoding: str
    fairness: str
    verdict: str  # holds, violated, unknown, timeout, unsupported, error
    states: int | None = None
    transitions: int | None = None
    buchi_states: int | None = None
    buchi_edges: int | None = None
    seconds: float | None = None
    memory_mb: float | None = None
    note: str = ""
    premises: int | None = None  # fairness premises of the encoding (premise rows)


@dataclass(frozen=True, slots=True)
class Comparison:
    model: str
    property: str
    fairness: str
    rows: tuple[CompareRow, ...]

    @property
    def disagreement(self) -> bool:
        """Return True if two definite verdicts for the compared fairness differ."""
        verdicts = {
            r.verdict for r in self.rows
            if r.fairness == self.fairness and r.verdict in ("holds", "violated")
        }
        plain = {r.verdict for r in self.rows
                 if r.fairness == "none" and r.verdict in ("holds", "violated")}
        return len(verdicts) > 1 or len(plain) > 1


COLUMNS = ("engine", "encoding", "fairness", "verdict", "states", "transitions",
           "buchi_states", "buchi_edges", "seconds", "memory_mb", "note")


def compare(
    system: TransitionSystem,
    prop: Property,
    options: CompareOptions | None = None,
    progress: Callable[[str], None] | None = None,
    on_row: Callable[[CompareRow], None] | None = None,
) -> Comparison:
    """Return the comparison table of ``prop`` on ``system`` (see the module docstring).

    ``progress(engine)`` is called when an engine starts, ``on_row(row)`` as soon as
    one of its rows is known, so a caller can show rows as they finish. With
    ``options.jobs`` above 1 the engines run concurrently, each in a forked process
    (``_run_concurrently``): a quick engine is not kept waiting behind one that runs
    into its time-out. The table lists the rows in engine order either way.
    """
    options = options or CompareOptions()
    unknown = [e for e in options.engines if e not in ENGINES]
    if unknown:
        raise ConfigurationError(f"unknown engine(s) {unknown}; allowed: {', '.join(ENGINES)}")
    if prop.kind not in COMPARABLE:
        raise ConfigurationError(
            f"compare needs an LTL assertion or Promela's non-progress/acceptance cycles; "
            f"'{prop.text}' is {prop.kind.value}"
        )
    if options.jobs > 1 and len(options.engines) > 1:
        by_engine = _run_concurrently(system, prop, options, progress, on_row)
    else:
        by_engine = {}
        for engine in options.engines:
            if progress is not None:
                progress(engine)
            by_engine[engine] = run_engine(engine, system, prop, options)
            for row in by_engine[engine]:
                if on_row is not None:
                    on_row(row)
    rows = [row for engine in options.engines for row in by_engine[engine]]
    return Comparison(system.name, prop.text or prop.name, options.fairness.value, tuple(rows))


def run_engine(engine: str, system: TransitionSystem, prop: Property,
               options: CompareOptions) -> list[CompareRow]:
    """Return the rows of one engine; a refusal, a time-out or a failure of the engine
    is a row (``unsupported``, ``timeout``, ``error``), never an exception. A time-out
    or error row without its own time gets the engine's wall-clock seconds."""
    started = time.monotonic()
    if prop.kind is not PropertyKind.LTL and engine not in _LABEL_CYCLE_ENGINES:
        return [CompareRow(engine, _ENCODING[engine], _fair(engine, options), "unsupported",
                           note=f"{prop.text}: SPIN checks them on the model's own labels "
                           "only (pan -l / pan -a)")]
    try:
        rows = _RUNNERS[engine](system, prop, options)
    except UnsupportedError as exc:
        return [CompareRow(engine, _ENCODING[engine], _fair(engine, options),
                           "unsupported", note=str(exc))]
    except BackendError as exc:
        verdict = "timeout" if exc.timed_out else "error"
        rows = [CompareRow(engine, _ENCODING[engine], _fair(engine, options), verdict,
                           note=str(exc))]
    except BridgeError as exc:
        rows = [CompareRow(engine, _ENCODING[engine], _fair(engine, options), "error",
                           note=f"{type(exc).__name__}: {exc}")]
    took = round(time.monotonic() - started, 3)
    return [dataclasses.replace(row, seconds=took)
            if row.seconds is None and row.verdict in ("timeout", "error") else row
            for row in rows]


def _engine_child(connection: Any, engine: str, system: TransitionSystem, prop: Property,
                  options: CompareOptions) -> None:  # runs in the forked child
    try:
        connection.send(("ok", run_engine(engine, system, prop, options)))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent as a row
        connection.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        connection.close()


def _run_concurrently(system: TransitionSystem, prop: Property, options: CompareOptions,
                      progress: Callable[[str], None] | None,
                      on_row: Callable[[CompareRow], None] | None
                      ) -> dict[str, list[CompareRow]]:
    """Return each engine's rows, running up to ``options.jobs`` engines at once.

    Each engine runs in a forked child (not a daemon: the Spot rows fork again) and
    sends its rows back through a pipe. Engines keep their own time limits (``timeout``
    per run, SPIN's process groups are killed by the runner); a child that overruns
    twice its limit plus a minute is killed and reported as a ``timeout`` row.
    """
    import multiprocessing

    context = multiprocessing.get_context("fork")
    pending = list(options.engines)
    running: dict[str, tuple[Any, Any, float]] = {}
    results: dict[str, list[CompareRow]] = {}
    hard_limit = options.timeout * 2 + 60

    def finish(engine: str, rows: list[CompareRow]) -> None:
        results[engine] = rows
        for row in rows:
            if on_row is not None:
                on_row(row)

    try:
        while pending or running:
            while pending and len(running) < options.jobs:
                engine = pending.pop(0)
                if progress is not None:
                    progress(engine)
                receive, send = context.Pipe(duplex=False)
                child = context.Process(target=_engine_child,
                                        args=(send, engine, system, prop, options))
                child.start()
                send.close()
                running[engine] = (child, receive, time.monotonic())
            time.sleep(0.02)
            for engine, (child, receive, started) in list(running.items()):
                if receive.poll():
                    try:
                        kind, value = receive.recv()
                    except EOFError:
                        kind, value = "error", "the engine's process died"
                    child.join(timeout=10)
                    del running[engine]
                    if kind == "ok":
                        finish(engine, value)
                    else:
                        finish(engine, [CompareRow(engine, _ENCODING[engine],
                                                   _fair(engine, options), "error",
                                                   note=value)])
                elif not child.is_alive():
                    del running[engine]
                    finish(engine, [CompareRow(
                        engine, _ENCODING[engine], _fair(engine, options), "error",
                        seconds=round(time.monotonic() - started, 3),
                        note=f"the engine's process died (exit code {child.exitcode})")])
                elif time.monotonic() - started > hard_limit:
                    child.kill()
                    child.join(timeout=10)
                    del running[engine]
                    finish(engine, [CompareRow(
                        engine, _ENCODING[engine], _fair(engine, options), "timeout",
                        seconds=round(time.monotonic() - started, 3),
                        note=f"killed after {hard_limit:g} s")])
    finally:
        for child, receive, _started in running.values():
            child.kill()
            child.join(timeout=10)
            receive.close()
    return results


_ENCODING = {
    "native": "fair SCC search",
    "spin-premise": "premise (SPIN ltl)",
    "spin-premise-spot": "premise (Spot never claim)",
    "spin-action-process": "action-process, pan -f",
    "spin-f": "plain (as written), pan -f",
    "spin-plain": "plain",
    "spot": "explicit product",
}


def _fair(engine: str, options: CompareOptions) -> str:
    return "none" if engine == "spin-plain" else options.fairness.value


def _outcome(outcome: Outcome) -> str:
    return outcome.value


# ---------------------------------------------------------------------------------
# Engines


def _native(system: TransitionSystem, prop: Property, options: CompareOptions) -> list[CompareRow]:
    from bridge.fairness.check import LtlOptions, check_ltl
    from bridge.fairness.cycles import LABEL_CYCLE_KINDS, check_label_cycles

    start = time.monotonic()
    check = check_label_cycles if prop.kind in LABEL_CYCLE_KINDS else check_ltl
    verdict = check(
        system,
        prop,
        LtlOptions(fairness=options.fairness, annotations=options.annotations,
                   timeout=options.timeout),
    )
    seconds = time.monotonic() - start
    extra = dict(verdict.statistics.extra)
    memory = verdict.statistics.peak_memory_bytes / 2**20 or None
    state = _outcome(verdict.outcome)
    if verdict.outcome is Outcome.UNKNOWN and "time" in verdict.reason.lower():
        state = "timeout"
    return [CompareRow(
        "native", _ENCODING["native"], options.fairness.value, state,
        verdict.statistics.states or None, verdict.statistics.transitions or None,
        extra.get("automaton_states"), extra.get("automaton_edges"), round(seconds, 3),
        memory, verdict.reason if verdict.outcome is not Outcome.HOLDS else "",
    )]


def _spin_row(engine: str, model, prop_emitted, spin_options, fairness: str,  # noqa: ANN001
              buchi: tuple[int | None, int | None] = (None, None), note: str = "") -> CompareRow:
    from bridge.automata.never import NeverClaimError, parse_never_claim
    from bridge.backends.spin.run import run_spin

    result = run_spin(model.text, spin_options)
    if result.timed_out:
        stage = result.stage_seconds[-1][0] if result.stage_seconds else "?"
        what = {"spin": "spin -a (LTL translation) did not finish",
                "cc": "compiling pan.c did not finish",
                "pan": "pan did not finish"}.get(stage, "timed out")
        return CompareRow(engine, _ENCODING[engine], fairness, "timeout",
                          result.states_stored or None, result.transitions or None,
                          *buchi, round(result.seconds, 3), None, what)
    if result.errors:
        violated = True
    elif result.complete:
        violated = False
    else:
        reason = "search depth too small" if result.depth_limit_hit else "out of memory"
        return CompareRow(engine, _ENCODING[engine], fairness, "unknown", result.states_stored,
                          result.transitions, *buchi, round(result.seconds, 3),
                          result.memory_mb, reason)
    if prop_emitted.negated:
        violated = not violated
    if buchi == (None, None) and result.claim_text:
        try:
            parsed = parse_never_claim(result.claim_text)
            buchi = (parsed.automaton.num_states, parsed.automaton.num_edges)
        except NeverClaimError:
            pass
    notes = [note] if note else []
    if result.errors:
        notes.append(result.error_kind)
    return CompareRow(
        engine, _ENCODING[engine], fairness, "violated" if violated else "holds",
        result.states_stored, result.transitions, *buchi, round(result.seconds, 3),
        result.memory_mb, "; ".join(n for n in notes if n),
    )


def explicit_graph_for(system: TransitionSystem, max_steps: int | None = None):  # noqa: ANN201
    """Return the reachable state graph of ``system`` as an ``ExplicitGraph`` (plain data
    for the strong global premise of ``emit_promela``; paper 000 Def. 4).

    States are identified as the native checker identifies them (``state_key``: hidden
    variables dropped) and written as full valuations (non-hidden globals, instance
    locations, locals); steps are ``(source, Step.edges, target)``, stutter steps left
    out. Raises ``UnsupportedError`` for what a valuation cannot express (channels,
    dynamic processes, atomic exclusivity) and above ``max_steps`` steps (default
    ``STRONG_GLOBAL_MAX_STEPS``, the per-step form's limit).
    """
    from bridge.backends.spin.emitted import (
        STRONG_GLOBAL_MAX_STEPS,
        ExplicitGraph,
        ExplicitState,
        ExplicitStep,
    )
    from bridge.semantics.statespace import build_state_space

    limit = STRONG_GLOBAL_MAX_STEPS if max_steps is None else max_steps
    space = build_state_space(system)
    lay = space.layout
    if lay.exclusive_slot is not None or lay.last_slot is not None:
        what = "atomic sequences" if lay.exclusive_slot is not None else "_last"
        raise UnsupportedError.at(
            None, f"strong global premise: {what} make states that the emitted valuation "
            "cannot identify",
        )
    if lay.channels or any(t.channels for t in lay.processes):
        raise UnsupportedError.at(
            None, "strong global premise: channel contents are not part of the valuation"
        )
    rl = space.layout_of(space.initial_states()[0])

    def valuation(state: tuple[int, ...]) -> ExplicitState:
        globals_ = tuple(
            (v.name, tuple(state[lay.globals[v.name].offset:
                                 lay.globals[v.name].offset + lay.globals[v.name].size]))
            for v in system.globals if not lay.globals[v.name].hidden
        )
        locations = []
        locals_ = []
        for tpl_index, b in zip(rl.templates, rl.bases, strict=True):
            tpl = lay.processes[tpl_index]
            locations.append(state[b])
            locals_.append(tuple(
                (name, tuple(state[b + slot.offset: b + slot.offset + slot.size]))
                for name, slot in tpl.locals.items() if not slot.hidden
            ))
        return ExplicitState(globals_, tuple(locations), tuple(locals_))

    ids: dict[tuple[int, ...], int] = {}
    order: list[tuple[int, ...]] = []
    for s0 in space.initial_states():
        key = space.state_key(s0)
        if key not in ids:
            ids[key] = len(order)
            order.append(s0)
    steps: list[ExplicitStep] = []
    k = 0
    while k < len(order):
        if space.layout_of(order[k]) is not rl:
            raise UnsupportedError.at(
                None, "strong global premise: a process starts or dies (its layout changes); "
                "the emitted model has a fixed set of instances",
            )
        for step, nxt in space.successors(order[k]):
            if step.stutter:
                continue
            key = space.state_key(nxt)
            if key not in ids:
                ids[key] = len(order)
                order.append(nxt)
            steps.append(ExplicitStep(k, tuple(step.edges), ids[key]))
            if len(steps) > limit:
                raise UnsupportedError.at(
                    None, f"the strong global premise grows with the steps: the model has "
                    f"more than {limit} steps; use the native checker",
                )
        k += 1
    return ExplicitGraph(tuple(valuation(s) for s in order), tuple(steps))


def _premise_model(system: TransitionSystem, prop: Property, options: CompareOptions,
                   ltl_blocks: bool = True):  # noqa: ANN202
    from bridge.backends.spin.emit import emit_promela, strong_global_limit

    graph = (explicit_graph_for(system, strong_global_limit(options.strong_global_form))
             if options.fairness is Fairness.STRONG_GLOBAL else None)
    return emit_promela(system, "premise", options.fairness, prop,
                        annotations=options.annotations, ltl_blocks=ltl_blocks,
                        explicit_graph=graph, strong_global_form=options.strong_global_form)


def _spin_premise(system: TransitionSystem, prop: Property, options: CompareOptions) -> list[CompareRow]:
    model = _premise_model(system, prop, options)
    emitted = model.properties[0]
    spin_options = model.spin_options(emitted, options.timeout, options.memory_mb)
    row = _spin_row("spin-premise", model, emitted, spin_options, options.fairness.value,
                    note=f"{emitted.premises} premises")
    return [dataclasses.replace(row, premises=emitted.premises)]


def _child(queue, fn, args) -> None:  # noqa: ANN001 - runs in the forked child
    try:
        queue.put(("ok", fn(*args)))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        queue.put(("error", f"{type(exc).__name__}: {exc}"))


def run_with_timeout(fn: Callable, args: tuple, timeout: float, what: str):  # noqa: ANN201
    """Return ``fn(*args)`` computed in a forked child killed after ``timeout`` seconds
    (Spot's translations and products cannot be interrupted in-process); a timeout
    raises ``BackendError`` with ``timed_out``."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(queue, fn, args), daemon=True)
    child.start()
    try:
        kind, value = queue.get(timeout=timeout)
    except Exception:  # noqa: BLE001 - queue.Empty on timeout
        child.kill()
        child.join()
        raise BackendError([what], None, "", timed_out=True,
                           message=f"{what} did not finish in {timeout:g} s") from None
    child.join()
    if kind == "error":
        if value.startswith("UnsupportedError"):
            raise UnsupportedError.at(None, value.split(": ", 1)[1])
        raise BackendError([what], None, value, message=f"{what} failed: {value}")
    return value


def _spin_premise_spot(system: TransitionSystem, prop: Property, options: CompareOptions) -> list[CompareRow]:
    from bridge.automata.never import never_claim_for

    model = _premise_model(system, prop, options, ltl_blocks=False)
    emitted = model.properties[0]
    start = time.monotonic()
    claim, states, edges = run_with_timeout(
        never_claim_for, (emitted.spot_formula or "",), options.timeout, "Spot translation")
    translation = time.monotonic() - start
    spin_options = dataclasses.replace(
        model.spin_options(emitted, options.timeout, options.memory_mb),
        never_claim=claim, ltl=None,
    )
    row = _spin_row("spin-premise-spot", model, emitted, spin_options, options.fairness.value,
                    (states, edges), f"{emitted.premises} premises; Spot {translation:.2f}s")
    return [dataclasses.replace(row, seconds=round((row.seconds or 0) + translation, 3),
                                premises=emitted.premises)]


def _spin_action_process(system: TransitionSystem, prop: Property, options: CompareOptions) -> list[CompareRow]:
    from bridge.backends.spin.emit import emit_promela

    if options.fairness is not Fairness.WEAK:
        raise UnsupportedError.at(
            None, f"pan -f is (event-level, via action processes) weak fairness only, not "
            f"{options.fairness.value}"
        )
    model = emit_promela(system, "action-process", Fairness.WEAK, prop)
    emitted = model.properties[0]
    spin_options = model.spin_options(emitted, options.timeout, options.memory_mb)
    return [_spin_row("spin-action-process", model, emitted, spin_options, "weak",
                      note="; ".join(model.notes[:1]))]


def _spin_f(system: TransitionSystem, prop: Property, options: CompareOptions) -> list[CompareRow]:
    from bridge.backends.spin.emit import emit_promela

    if options.fairness is not Fairness.PROCESS_WEAK:
        raise UnsupportedError.at(
            None, f"pan -f on the model as written is process-level weak fairness, not "
            f"{options.fairness.value}"
        )
    model = emit_promela(system, "plain", Fairness.NONE, prop, style="structured")
    emitted = model.properties[0]
    spin_options = dataclasses.replace(
        model.spin_options(emitted, options.timeout, options.memory_mb), weak_fairness=True)
    return [_spin_row("spin-f", model, emitted, spin_options, "process-weak",
                      note="SPIN issue #38: -f may miss stutter-only cycles")]


def _spin_plain(system: TransitionSystem, prop: Property, options: CompareOptions) -> list[CompareRow]:
    from bridge.backends.spin.emit import emit_promela

    model = emit_promela(system, "plain", Fairness.NONE, prop)
    emitted = model.properties[0]
    spin_options = model.spin_options(emitted, options.timeout, options.memory_mb)
    return [_spin_row("spin-plain", model, emitted, spin_options, "none")]


def _spot(system: TransitionSystem, prop: Property, options: CompareOptions) -> list[CompareRow]:
    start = time.monotonic()
    outcome, states, transitions, buchi = run_with_timeout(
        spot_emptiness,
        (system, prop, options.fairness, options.spot_max_states, options.timeout),
        options.timeout, "Spot emptiness check")
    return [CompareRow("spot", _ENCODING["spot"], options.fairness.value, outcome, states,
                       transitions, *buchi, round(time.monotonic() - start, 3))]


def spot_emptiness(
    system: TransitionSystem,
    prop: Property,
    fairness: Fairness,
    max_states: int,
    timeout: float,
) -> tuple[str, int, int, tuple[int | None, int | None]]:
    """Return (verdict, states, transitions, (automaton states, edges)) from Spot.

    The explicit state graph (``build_state_space``, breadth first, at most
    ``max_states`` states) becomes a Spot automaton whose edge ``(s, step, s')`` reads
    the state atoms of ``s'`` and the event of ``step`` (the native convention,
    ``fairness/product.py``), plus ``en_k`` (action k enabled in ``s'``) and ``ex_k``
    (``step`` is action k); deadlocks get an idle self-loop with no event. The formula
    ``!(premises -> phi)`` is translated with Emerson-Lei acceptance and
    ``product(...).is_empty()`` decides: an independent cross-check of the native
    engine (STYLE.md section 2), practical only for small models.
    """
    import spot

    buddy = __import__("buddy")  # importable only once spot has put it on the path
    from bridge.automata.ltl import bind_atoms
    from bridge.ir.property import LtlEvent
    from bridge.semantics.statespace import build_state_space

    if fairness not in (Fairness.NONE, Fairness.WEAK, Fairness.STRONG_LOCAL,
                        Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG):
        raise UnsupportedError.at(None, f"the Spot cross-check does not encode {fairness.value}")
    if prop.formula is None:
        raise UnsupportedError.at(prop.span, "no formula")
    deadline = time.monotonic() + timeout
    space = build_state_space(system)
    text, binding = bind_atoms(prop.formula)
    ids: dict[tuple[int, ...], int] = {}
    order: list[tuple[int, ...]] = []
    steps: list[list[tuple[object, int]]] = []
    for s in space.initial_states():
        if s not in ids:
            ids[s] = len(order)
            order.append(s)
    k = 0
    transitions = 0
    while k < len(order):
        if time.monotonic() > deadline:
            raise BackendError(["spot"], None, "", timed_out=True, message="state graph timed out")
        out = []
        for step, nxt in space.successors(order[k]):
            if nxt not in ids:
                if len(order) >= max_states:
                    raise UnsupportedError.at(
                        None, f"more than {max_states} states: too big for the Spot cross-check"
                    )
                ids[nxt] = len(order)
                order.append(nxt)
            out.append((step, ids[nxt]))
        steps.append(out)
        transitions += len(out)
        k += 1
    process_level = fairness in (Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG)

    def units(step: object) -> list[object]:
        if getattr(step, "tau", False) or getattr(step, "stutter", False):
            return []
        if process_level:
            return list(getattr(step, "processes", ()))
        return [getattr(step, "action", None)]

    all_units = sorted({u for out in steps for st, _ in out for u in units(st)}, key=repr)
    unit_index = {u: i for i, u in enumerate(all_units)} if fairness is not Fairness.NONE else {}
    enabled = [{unit_index[u] for st, _ in out for u in units(st) if u in unit_index}
               for out in steps]
    state_atoms = [(i, space.predicate(a.expr)) for i, a in enumerate(binding.atoms)
                   if not isinstance(a, LtlEvent)]
    event_atoms = [(i, a.name) for i, a in enumerate(binding.atoms) if isinstance(a, LtlEvent)]
    aut = spot.make_twa_graph(spot._bdd_dict)
    ap_vars = [aut.register_ap(f"p{i}") for i in range(len(binding.atoms))]
    en_vars = [aut.register_ap(f"en{j}") for j in range(len(unit_index))]
    ex_vars = [aut.register_ap(f"ex{j}") for j in range(len(unit_index))]
    aut.set_generalized_buchi(0)
    aut.new_states(len(order) + 1)
    aut.set_init_state(len(order))
    labels = [{i for i, pred in state_atoms if pred(s)} for s in order]

    def cond(target: int, event: str | None, taken: set[int]) -> object:
        c = buddy.bddtrue
        for i, v in enumerate(ap_vars):
            on = i in labels[target] or any(i == j and event == name for j, name in event_atoms)
            c &= buddy.bdd_ithvar(v) if on else buddy.bdd_nithvar(v)
        for j, v in enumerate(en_vars):
            c &= buddy.bdd_ithvar(v) if j in enabled[target] else buddy.bdd_nithvar(v)
        for j, v in enumerate(ex_vars):
            c &= buddy.bdd_ithvar(v) if j in taken else buddy.bdd_nithvar(v)
        return c

    aut.new_edge(len(order), 0, cond(0, "init", set()))
    for src, out in enumerate(steps):
        if not out:
            aut.new_edge(src, src, cond(src, None, set()))
        for step, dst in out:
            taken = {unit_index[u] for u in units(step) if u in unit_index}
            aut.new_edge(src, dst, cond(dst, getattr(step, "event", None), taken))
    premises = []
    for j in range(len(unit_index)):
        if fairness in (Fairness.WEAK, Fairness.PROCESS_WEAK):
            premises.append(f"(FG en{j} -> GF ex{j})")
        else:
            premises.append(f"(GF en{j} -> GF ex{j})")
    phi = f"({' & '.join(premises)}) -> ({text})" if premises else text
    negated = spot.translate(f"!({phi})", "generic", dict=aut.get_dict())
    empty = spot.product(aut, negated).is_empty()
    return ("holds" if empty else "violated", len(order), transitions,
            (negated.num_states(), negated.num_edges()))


_RUNNERS: dict[str, Callable[[TransitionSystem, Property, CompareOptions], list[CompareRow]]] = {
    "native": _native,
    "spin-premise": _spin_premise,
    "spin-premise-spot": _spin_premise_spot,
    "spin-action-process": _spin_action_process,
    "spin-f": _spin_f,
    "spin-plain": _spin_plain,
    "spot": _spot,
}


# ---------------------------------------------------------------------------------
# Reports


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def format_table(comparison: Comparison) -> str:
    """Return the comparison as an aligned text table (with a loud banner on
    disagreement)."""
    header = COLUMNS[:-1]
    cells = [[_cell(getattr(r, c)) for c in header] for r in comparison.rows]
    widths = [max(len(h), *(len(row[k]) for row in cells)) for k, h in enumerate(header)]
    lines = [f"{comparison.model}: {comparison.property}  (fairness {comparison.fairness})"]
    lines.append("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    lines.append("  ".join("-" * w for w in widths))
    for row, r in zip(cells, comparison.rows, strict=True):
        line = "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True))
        lines.append(line + (f"  # {r.note}" if r.note else ""))
    if comparison.disagreement:
        lines.append("")
        lines.append("!!! DISAGREEMENT: engines checking the same fairness gave different "
                     "verdicts !!!")
    return "\n".join(lines)


def format_markdown(comparisons: Sequence[Comparison]) -> str:
    """Return the comparisons as one Markdown table."""
    head = ("model", "property", *COLUMNS)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in comparisons:
        for r in c.rows:
            verdict = r.verdict + (" **DISAGREES**" if c.disagreement else "")
            values = [c.model, c.property, *(_cell(getattr(r, k)) for k in COLUMNS)]
            values[5] = verdict
            lines.append("| " + " | ".join(v.replace("|", "\\|") for v in values) + " |")
    return "\n".join(lines) + "\n"


def format_csv(comparisons: Sequence[Comparison]) -> str:
    """Return the comparisons as CSV (one row per engine run)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(("model", "property", *COLUMNS, "disagreement"))
    for c in comparisons:
        for r in c.rows:
            writer.writerow((c.model, c.property, *(getattr(r, k) for k in COLUMNS),
                             c.disagreement))
    return out.getvalue()


def comparisons_json(comparisons: Sequence[Comparison], files: Sequence[str] = ()
                     ) -> list[dict[str, object]]:
    """Return the comparisons as plain JSON objects (``format_json``; the HTML report
    reads them); ``files[i]``, when given, is the model file of comparison ``i``."""
    found: list[dict[str, object]] = []
    for k, c in enumerate(comparisons):
        item: dict[str, object] = {
            "model": c.model, "property": c.property, "fairness": c.fairness,
            "disagreement": c.disagreement,
            "rows": [dataclasses.asdict(r) for r in c.rows]}
        if k < len(files):
            item["file"] = files[k]
        found.append(item)
    return found


def format_json(comparisons: Sequence[Comparison], files: Sequence[str] = ()) -> str:
    """Return the comparisons as JSON (``bridge report`` draws them)."""
    return json.dumps(comparisons_json(comparisons, files), indent=2)


def plot(comparisons: Sequence[Comparison], path: str) -> None:
    """Write a bar chart of seconds per engine to ``path`` (needs matplotlib, the
    ``plot`` extra); raises ``ConfigurationError`` when it is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ConfigurationError(
            "--plot needs matplotlib: pip install 'bridge[plot]'"
        ) from exc
    labels: list[str] = []
    seconds: list[float] = []
    colors: list[str] = []
    palette = {"holds": "tab:green", "violated": "tab:red", "timeout": "tab:gray"}
    for c in comparisons:
        for r in c.rows:
            labels.append(f"{r.engine}\n{r.fairness}")
            seconds.append(r.seconds or 0.0)
            colors.append(palette.get(r.verdict, "tab:orange"))
    fig, ax = plt.subplots(figsize=(max(6, len(labels) * 1.2), 4))
    ax.bar(range(len(labels)), seconds, color=colors)
    ax.set_xticks(range(len(labels)), labels, fontsize=7)
    ax.set_ylabel("seconds")
    ax.set_title("; ".join(f"{c.model}: {c.property}" for c in comparisons)[:100])
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# ---------------------------------------------------------------------------------
# Translation verbs for the CLI (commands import only api/compare/regress)


TARGETS = ("promela", "csp")


def translate(
    model_file: ModelFile,
    to: str = "promela",
    encoding: str = "plain",
    fairness: Fairness = Fairness.NONE,
    assertion: str | int | None = None,
    annotations: Sequence[tuple[FairnessMark, str]] = (),
    style: str = "auto",
) -> str:
    """Return the model in the target language (``promela``: ``emit_promela``; ``csp``:
    ``emit_csp``). ``assertion`` keeps one property (number, name or text)."""
    from bridge import api

    if to not in TARGETS:
        raise ConfigurationError(f"unknown target {to!r}; allowed: {', '.join(TARGETS)}")
    pairs = api.select_properties(model_file, assertion)
    if assertion is not None:
        system, prop = pairs[0]
        props: tuple[Property, ...] | None = (prop,)
    else:
        if len(model_file.systems) != 1:
            raise ConfigurationError(
                "the model has several assertion targets: choose one with --assert"
            )
        system, props = model_file.systems[0], None
    if to == "csp":
        from bridge.backends.csp.emit import emit_csp, unbounded_runs

        if encoding != "plain" or fairness is not Fairness.NONE:
            raise ConfigurationError("--to csp has no encodings: PAT checks fairness itself")
        unbounded = unbounded_runs(system)
        pools = pool_sizes(system, unbounded) if unbounded else None
        return emit_csp(system, props, pools)
    from bridge.backends.spin.emit import emit_promela

    if props is None:
        return emit_promela(system, encoding, fairness, annotations=annotations,
                            style=style).text
    return emit_promela(system, encoding, fairness, props[0], annotations=annotations,
                        style=style).text


POOL_EXPLORATION_LIMIT = 200_000  # states explored to size the process pools of --to csp


def pool_sizes(system: TransitionSystem, proctypes: Sequence[str],
               max_states: int = POOL_EXPLORATION_LIMIT) -> dict[str, int]:
    """Return, for each of ``proctypes``, the largest number of its instances alive at
    once in a reachable state of ``system``: the pool of CSP# processes that
    ``emit_csp`` needs for a ``run`` it cannot count from the control graph. Explores
    the whole state space (breadth first); raises ``UnsupportedError`` at the first
    such ``run`` when that takes more than ``max_states`` states."""
    from bridge.backends.csp.plan import run_sites
    from bridge.diagnostics import ModelRuntimeError
    from bridge.semantics.statespace import build_state_space

    space = build_state_space(system)
    names = [t.process.name for t in space.layout.processes]
    wanted = set(proctypes)
    best = dict.fromkeys(proctypes, 0)
    seen: set = set()
    frontier = list(space.initial_states())
    for s in frontier:
        seen.add(space.state_key(s))
    while frontier:
        state = frontier.pop()
        counts: dict[str, int] = {}
        for t in space.layout_of(state).templates:
            if names[t] in wanted:
                counts[names[t]] = counts.get(names[t], 0) + 1
        for name, n in counts.items():
            best[name] = max(best[name], n)
        try:
            successors = space.successors(state)
        except ModelRuntimeError:
            continue  # a model error ends the run here
        for _, nxt in successors:
            key = space.state_key(nxt)
            if key not in seen:
                seen.add(key)
                if len(seen) > max_states:
                    site = next((run for p in system.processes for run, _, _ in run_sites(p)
                                 if run.proctype in wanted), None)
                    name = site.proctype if site else proctypes[0]
                    raise UnsupportedError.at(
                        site.span if site else None,
                        f"'run {name}' without a bound: CSP# needs a process for every "
                        f"instance of '{name}' alive at once, the control graph does not "
                        "bound them (a loop bounded by globals, processes that start "
                        f"each other) and counting them took more than {max_states} "
                        "states of the source model")
                frontier.append(nxt)
    return best


FORMATS = ("hoa", "dot", "never")
TRANSLATORS = ("spot", "spin")


def ltl_to_automaton(formula: str, via: str = "spot", fmt: str = "hoa",
                     timeout: float = 60.0) -> str:
    """Return the Büchi automaton of ``formula`` (Spot syntax; ``[]``/``<>`` accepted)
    built by Spot or by ``spin -f``, printed as HOA, dot or a never claim.

    The SPIN route reads ``spin -f``'s claim back with ``parse_never_claim``, so both
    translators end in the same automaton view (and can be cross-checked with Spot's
    ``are_equivalent``). A ``spin -f`` that does not finish within ``timeout`` raises
    ``BackendError`` with ``timed_out``.
    """
    import spot

    from bridge.automata.never import buchi_automaton_for, parse_never_claim, to_hoa

    if via not in TRANSLATORS:
        raise ConfigurationError(f"unknown translator {via!r}; allowed: {', '.join(TRANSLATORS)}")
    if fmt not in FORMATS:
        raise ConfigurationError(f"unknown format {fmt!r}; allowed: {', '.join(FORMATS)}")
    try:
        parsed = spot.formula(formula)
    except SyntaxError as exc:
        raise ConfigurationError(f"cannot parse formula {formula!r}: {exc}") from exc
    if via == "spot":
        aut = buchi_automaton_for(str(parsed))
        if fmt == "never":
            return aut.to_str("spin")
        return aut.to_str("dot" if fmt == "dot" else "hoa")
    from bridge.backends.spin.run import run_limited

    done = run_limited(["spin", "-f", parsed.to_str("spin")], ".", timeout, 2048)
    if done.timed_out:
        raise BackendError(["spin", "-f"], None, "", timed_out=True,
                           message=f"spin -f did not finish in {timeout:g} s")
    if done.returncode != 0 or "never" not in done.stdout:
        raise BackendError(["spin", "-f"], done.returncode, done.stderr + done.stdout,
                           message="spin -f failed: " + (done.stdout + done.stderr).strip()[:200])
    if fmt == "never":
        return done.stdout
    claim = parse_never_claim(done.stdout)
    aut = spot.automaton(to_hoa(claim.automaton))
    return aut.to_str("dot" if fmt == "dot" else "hoa")
