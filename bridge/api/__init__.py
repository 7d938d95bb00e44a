"""Flat verbs over every room: load a model, check it, explore, simulate, show it.

The only module (with ``bridge.compare`` and ``bridge.regress``) that crosses rooms
(STYLE.md section 1), the way LTSmin's ``wrapModel`` or stormpy's top-level verbs do.
The CLI calls these verbs and nothing else of the engine.

Rooms are looked up when a verb needs them: a room that is not part of this build makes
its verbs raise ``NotAvailableError`` (a ``ConfigurationError``, exit code 2), never a
made-up verdict. A requested reduction that is unavailable, or unsound under the chosen
fairness (paper 001 section 6: no POR under strong local/global fairness), is not used,
and the verdict's notes say so.

The room is split along its concerns: ``_options`` (the options and ``_room``),
``_spaces`` (the Python engine's spaces and reductions), ``_compiled`` (when and how the
C engine runs, and the replay of its results on the Python semantics), ``_reports``
(verdict records as JSON, the HTML report); this module keeps the verbs.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bridge.api._compiled import (
    _fair_on_c,
    _refine_on_c,
    _run_c,
    _use_c_engine,
    _use_c_ltl,
    _warm_up_limit,
)
from bridge.api._options import (
    ENGINES,
    CheckOptions,
    NotAvailableError,
    Progress,
    _options,
    _remaining,
    _room,
    _tagged,
)
from bridge.api._reports import (
    read_results,
    render_report,
    verdict_json,
    write_text,
)
from bridge.api._spaces import (
    _Reduced,
    _reduced_once,
    _with_counterexample,
)
from bridge.diagnostics import ConfigurationError, ResourceLimitReached, time_limit
from bridge.ir.model import FairnessMark, ModelFile, RefusedAssertion, TransitionSystem
from bridge.ir.property import Fairness, Property, PropertyKind
from bridge.ir.verdict import Outcome, Statistics, Trace, Verdict

__all__ = [
    "ENGINES",
    "LANGUAGE_BY_SUFFIX",
    "CheckOptions",
    "NotAvailableError",
    "Progress",
    "check",
    "check_property",
    "explore",
    "import_rooms",
    "language_of",
    "load_model",
    "outcome_exit_code",
    "parse_annotation",
    "parse_fairness",
    "read_results",
    "render_report",
    "select_properties",
    "select_system",
    "show",
    "simulate",
    "statistics_rate",
    "validate",
    "verdict_json",
    "write_text",
]


def _normalise(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


_FAIRNESS_NAMES: dict[str, Fairness] = {}
for _fairness, _names in {
    Fairness.NONE: ("none", "no", "all", "No Fairness", "nofair"),
    Fairness.WEAK: ("weak", "wf", "ewf", "event-weak", "Event-level Weak Fair Only",
                    "Event-level Weak Fairness"),
    Fairness.STRONG_LOCAL: ("strong-local", "strong", "sf", "slf", "esf", "event-strong",
                            "Event-level Strong Fair Only", "Event-level Strong Fairness",
                            "Strong Local Fairness"),
    Fairness.STRONG_GLOBAL: ("strong-global", "global", "gf", "sgf", "Global Fair Only",
                             "Strong Global Fairness"),
    Fairness.PROCESS_WEAK: ("process-weak", "pwf", "Process-level Weak Fair Only",
                            "Process-level Weak Fairness"),
    Fairness.PROCESS_STRONG: ("process-strong", "psf", "Process-level Strong Fair Only",
                              "Process-level Strong Fairness"),
}.items():
    for _name in _names:
        _FAIRNESS_NAMES[_normalise(_name)] = _fairness


def parse_fairness(name: str) -> Fairness:
    """Return the fairness notion named ``name``.

    Accepts bridge's names (``none weak strong-local strong-global process-weak
    process-strong``), PAT 3.5's drop-down strings (``"Event-level Weak Fair Only"``,
    ``"Global Fair Only"``...; cspsharp.md section 5.1) and short ones (``wf sf gf pwf
    psf``), ignoring case, spaces and punctuation.
    """
    found = _FAIRNESS_NAMES.get(_normalise(name))
    if found is None:
        allowed = ", ".join(f.value for f in Fairness)
        raise ConfigurationError(
            f"unknown fairness {name!r}; allowed: {allowed} (or PAT's names such as "
            f"'Event-level Weak Fair Only', or wf/sf/gf/pwf/psf)"
        )
    return found


def parse_annotation(text: str) -> tuple[FairnessMark, str]:
    """Return ``(mark, event)`` for ``"sf:rule1.0.1"`` (marks: wf, sf, wl, sl, f)."""
    mark, sep, event = text.partition(":")
    marks = {m.value: m for m in FairnessMark}
    if not sep or not event.strip() or mark.strip().lower() not in marks:
        raise ConfigurationError(
            f"bad fairness annotation {text!r}; expected MARK:EVENT with MARK one of "
            f"{', '.join(marks)} (e.g. sf:rule1.0.1)"
        )
    return marks[mark.strip().lower()], event.strip()


# The rooms that loading and checking a model import on first use (``_room``): lark and
# the front-ends' grammars, Spot, jinja2 and the C generator, the fair search. Importing
# them takes a fresh process 0.2-0.5 s (more where Python may not write its bytecode).
_CHECK_ROOMS = (
    "bridge.frontends.csp.parse", "bridge.frontends.csp.lower",
    "bridge.frontends.promela.parse", "bridge.frontends.promela.lower",
    "bridge.semantics.statespace", "bridge.semantics.explore", "bridge.semantics.trace",
    "bridge.automata.ltl", "bridge.fairness.check", "bridge.fairness.product",
    "bridge.fairness.components", "bridge.fairness.emptiness", "bridge.fairness.onthefly",
    "bridge.fairness.never", "bridge.fairness.cycles", "bridge.reductions",
    "bridge.reductions.symmetry", "bridge.engine_c",
)


def import_rooms() -> list[str]:
    """Return the rooms of ``_CHECK_ROOMS`` that could not be imported, after importing
    the others (code only: nothing is loaded, parsed or translated).

    ``bridge regress`` calls it before forking its checking processes, so that each
    row's time is its model's loading and checking, not Python importing the checker
    once more in every process. A room that is missing is left to the verb that needs
    it, which reports it (``NotAvailableError``).
    """
    missing = []
    for module in _CHECK_ROOMS:
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(module)
    return missing


# ---------------------------------------------------------------------------------
# Loading

LANGUAGE_BY_SUFFIX: Mapping[str, str] = {
    ".pml": "promela",
    ".prm": "promela",
    ".promela": "promela",
    ".csp": "csp",
}


def language_of(path: str) -> str:
    """Return ``"promela"`` or ``"csp"`` from the file name's extension."""
    suffix = Path(path).suffix.lower()
    language = LANGUAGE_BY_SUFFIX.get(suffix)
    if language is None:
        known = ", ".join(LANGUAGE_BY_SUFFIX)
        raise ConfigurationError(
            f"{path}: cannot tell the modelling language from the extension "
            f"{suffix or '(none)'!r}; expected one of {known}"
        )
    return language


def load_model(path: str, defines: Mapping[str, str] | None = None,
               timeout: float | None = None) -> ModelFile:
    """Return the model in ``path`` (Promela or CSP#, chosen by extension) as IR.

    ``defines``: ``-D NAME=VALUE`` macros for Promela's preprocessor. Bad input raises a
    ``SourceError`` with spans; an unreadable file or an unknown extension raises
    ``ConfigurationError``. ``timeout``: seconds for unfolding a CSP# model's processes
    (the front-end's and the lazy unfolding's), past which ``ResourceLimitReached``.
    """
    language = language_of(path)
    file = Path(path)
    if not file.is_file():
        raise ConfigurationError(f"{path}: no such file")
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        if language == "promela":
            # SPIN's cpp reads bytes: Latin-1 comments are fine (one char per byte)
            text = file.read_bytes().decode("latin-1")
        else:
            raise ConfigurationError(f"{path}: not UTF-8 text ({error.reason} at byte "
                                     f"{error.start})") from None
    except OSError as error:
        raise ConfigurationError(f"{path}: cannot read: {error.strerror}") from None
    if language == "promela":
        load = _room("bridge.frontends.promela", "load_promela", "the Promela front-end")
        return load(path, text, dict(defines) if defines else None)
    if defines:
        raise ConfigurationError("-D NAME=VALUE applies to Promela models only; "
                                 "CSP# constants are set with #define in the model")
    load = _room("bridge.frontends.csp", "load_csp", "the CSP# front-end")
    with time_limit(timeout):  # the front-end's and the lazy unfolding check it
        return complete_unfoldings(load(path, text))


def complete_unfoldings(model_file: ModelFile, timeout: float | None = None) -> ModelFile:
    """Return ``model_file`` with every lazily unfolded process completed
    (``semantics.unfolding``: a search of each such system unfolds the locations it
    reaches), refinement specifications included; past ``timeout`` seconds (all of
    them together) ``ResourceLimitReached``."""

    def lazy(system: TransitionSystem) -> bool:
        return system.unfolding is not None or any(
            p.spec is not None and p.spec.unfolding is not None for p in system.properties)

    if not any(lazy(system) for system in model_file.systems):
        return model_file
    complete = _room("bridge.semantics.unfolding", "complete_unfolding", "the Python engine")
    systems = []
    with time_limit(timeout):  # unfolding.complete_unfolding checks it
        for system in model_file.systems:
            if lazy(system):
                system = complete(system)
                props = tuple(dataclasses.replace(p, spec=complete(p.spec))
                              if p.spec is not None else p for p in system.properties)
                system = dataclasses.replace(system, properties=props)
            systems.append(system)
    return dataclasses.replace(model_file, systems=tuple(systems))


def _completed(system: TransitionSystem) -> TransitionSystem:
    """Return ``system`` with its lazy unfolding completed (a system loaded by a
    front-end directly, not through ``load_model``)."""
    if system.unfolding is None:
        return system
    complete = _room("bridge.semantics.unfolding", "complete_unfolding", "the Python engine")
    return complete(system)


def select_properties(model_file: ModelFile, assertion: str | int | None = None
                      ) -> list[tuple[TransitionSystem, Property]]:
    """Return the (system, property) pairs to check: all, or the one chosen.

    ``assertion`` is a 1-based number (``3`` or ``"3"``), a property name (Promela
    ``ltl p1``) or the assertion's text as written (``"Sys() deadlockfree"``).
    """
    pairs = model_file.properties()
    if assertion is None:
        return pairs
    wanted = str(assertion).strip()
    chosen = _chosen(pairs, wanted, lambda pair: (pair[1].number, pair[1].name, pair[1].text))
    if not chosen and not select_refused(model_file, assertion):
        listing = [(p.number, p.name or p.text) for _, p in pairs]
        listing += [(r.number, r.text) for r in model_file.refused]
        shown = "; ".join(f"{n}: {text}" for n, text in sorted(listing)) or "none"
        raise ConfigurationError(f"no assertion {wanted!r} in {model_file.path}; "
                                 f"the assertions are: {shown}")
    return chosen


def _chosen(items: Sequence[Any], wanted: str,
            describe: Callable[[Any], tuple[int, str, str]]) -> list[Any]:
    """Return the items whose number, name or (squeezed) text is ``wanted``."""
    if wanted.isdigit():
        return [item for item in items if describe(item)[0] == int(wanted)]
    chosen = [item for item in items if describe(item)[1] == wanted]
    if not chosen:
        squeeze = _squeeze(wanted)
        chosen = [item for item in items if _squeeze(describe(item)[2]) == squeeze]
    return chosen


def select_refused(model_file: ModelFile, assertion: str | int | None = None
                   ) -> list[RefusedAssertion]:
    """Return the assertions the front-end left unchecked (``ModelFile.refused``):
    all, or the one chosen as in ``select_properties``."""
    if assertion is None:
        return list(model_file.refused)
    return _chosen(model_file.refused, str(assertion).strip(),
                   lambda r: (r.number, r.text, r.text))


def refused_verdict(refused: RefusedAssertion) -> Verdict:
    """Return the UNKNOWN verdict of an assertion the front-end left unchecked, with
    the front-end's error (``file:line:col: error: ...``) as a note."""
    where = f"{refused.span}: " if refused.span is not None else ""
    return Verdict(model=refused.target, property=refused.text, outcome=Outcome.UNKNOWN,
                   reason=f"not checked: {refused.message}",
                   notes=(f"{where}error: {refused.message}",
                          "the reference tool cannot check this assertion either (PAT "
                          "3.5's unfolding of the process does not end); the model's "
                          "other assertions are checked"))


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text).rstrip(";")


def select_system(model_file: ModelFile, target: str | None = None) -> TransitionSystem:
    """Return the system named ``target`` (the first one when None)."""
    if not model_file.systems:
        raise ConfigurationError(f"{model_file.path}: the model defines no system to run "
                                 "(a CSP# file needs an #assert naming its process)")
    if target is None:
        return model_file.systems[0]
    for system in model_file.systems:
        if _squeeze(system.name) == _squeeze(target):
            return system
    names = ", ".join(s.name for s in model_file.systems)
    raise ConfigurationError(f"no system {target!r} in {model_file.path}; "
                             f"the systems are: {names}")


# ---------------------------------------------------------------------------------
# Checking

def check(model_file: ModelFile, assertion: str | int | None = None,
          options: CheckOptions | None = None) -> list[Verdict]:
    """Return one verdict per checked assertion, in file order.

    LTL assertions go to the fair checker (``bridge.fairness.check.check_ltl``), a
    Promela never claim to ``bridge.fairness.never.check_never``, the others to the
    explorer (``bridge.semantics.explore.check_property``). A resource
    limit gives an ``UNKNOWN`` verdict with the statistics gathered so far.
    """
    options = options or CheckOptions()
    verdicts = [(prop.number, check_property(system, prop, options))
                for system, prop in select_properties(model_file, assertion)]
    verdicts += [(r.number, refused_verdict(r)) for r in select_refused(model_file, assertion)]
    return [verdict for _, verdict in sorted(verdicts, key=lambda item: item[0])]


def check_property(system: TransitionSystem, prop: Property,
                   options: CheckOptions) -> Verdict:
    """Return the verdict for one property of ``system`` (see ``check``)."""
    system = _completed(system)
    fairness = options.fairness if options.fairness is not None else (
        prop.fairness or Fairness.NONE)
    notes: list[str] = []
    if options.fairness is not None and prop.fairness not in (None, options.fairness):
        notes.append(f"the model asks for {prop.fairness.value} fairness; "
                     f"the command line's {options.fairness.value} was used")
    try:
        if prop.kind is PropertyKind.LTL:
            reduced = _Reduced()
            use_c = _use_c_ltl(system, prop, options, fairness, notes, reduced)
            verdict = _check_ltl(system, prop, options, fairness, notes, use_c, reduced)
        elif prop.kind is PropertyKind.NEVER:
            use_c = _use_c_ltl(system, prop, options, fairness, notes)
            verdict = _check_ltl(system, prop, options, fairness, notes, use_c)
        elif prop.kind is PropertyKind.REFINES:
            verdict = _check_refinement(system, prop, options, fairness, notes)
        elif prop.kind in (PropertyKind.NON_PROGRESS, PropertyKind.ACCEPTANCE):
            use_c = _use_c_ltl(system, prop, options, fairness, notes)
            verdict = _check_label_cycles(system, prop, options, fairness, notes, use_c)
        else:
            if fairness is not Fairness.NONE:
                notes.append(f"fairness ({fairness.value}) applies to LTL assertions "
                             f"and never claims only; not used for {prop.kind.value}")
            if options.por or options.symmetry:
                notes.append("--por/--symmetry: not used: reductions apply to LTL "
                             f"assertions only; {prop.kind.value} was checked on the full "
                             "state space")
            verdict = _check_safety(system, prop, options, notes)
    except ResourceLimitReached as limit:
        statistics = limit.statistics if isinstance(limit.statistics, Statistics) \
            else Statistics()
        verdict = Verdict(model=system.name, property=prop.text, outcome=Outcome.UNKNOWN,
                          reason=f"resource limit: {limit}", fairness=fairness.value,
                          statistics=statistics)
    if notes:
        verdict = dataclasses.replace(verdict, notes=tuple(verdict.notes) + tuple(notes))
    return verdict


def _check_label_cycles(system: TransitionSystem, prop: Property, options: CheckOptions,
                        fairness: Fairness, notes: list[str], use_c: bool = False) -> Verdict:
    """Return the verdict of SPIN's non-progress or acceptance cycles of ``progress`` /
    ``accept`` labels under fairness (``bridge.fairness.cycles``), always on the full
    state space; by the compiled engine's fair search when ``use_c``."""
    run = _room("bridge.fairness.cycles", "check_label_cycles",
                "the non-progress and acceptance cycle checker")
    ltl_options = _room("bridge.fairness.check", "LtlOptions", "the fair LTL checker")
    settings = _options(ltl_options, progress=options.progress, fairness=fairness,
                        annotations=options.annotations, max_states=options.max_states,
                        timeout=options.timeout)
    if options.por or options.symmetry or options.counter_abstraction:
        notes.append("--por/--symmetry/--counter-abstraction: not used: "
                     f"{prop.text} are checked on the full state space")
    if use_c:
        return _fair_on_c(run, system, prop, settings, options, notes)
    return run(system, prop, settings)
def _check_refinement(system: TransitionSystem, prop: Property, options: CheckOptions,
                      fairness: Fairness, notes: list[str]) -> Verdict:
    """Return the verdict of a CSP# ``refines`` assertion (``bridge.refinement``) on the
    full state spaces; fairness does not apply (PAT checks refinement without it). The
    C engine explores the implementation (``engine_c.refine_c``) against the
    specification's normal form built here (``refinement.normalise_whole``) when
    ``_use_c_engine`` chooses it, under ``_check_safety``'s rules for ``auto`` (a
    small check is left to the Python engine); a normal form past the table's bound,
    or a C answer its replay refutes, goes to the Python engine with a note."""
    run = _room("bridge.refinement", "check_refines", "the refinement checker")
    if fairness is not Fairness.NONE:
        notes.append(f"fairness ({fairness.value}) applies to LTL assertions and never "
                     "claims only; not used for refines")
    if options.por or options.symmetry or options.counter_abstraction:
        notes.append("--por/--symmetry/--counter-abstraction: not used: refinement is "
                     "checked on the full state spaces")
    started = time.perf_counter()

    def ask() -> tuple[bool, str]:
        return importlib.import_module("bridge.engine_c").refine_supports(system)

    if not _use_c_engine(system, prop, options, notes, ask):
        return run(system, prop, options.max_states, options.timeout)
    warm = _warm_up_limit(system, options)
    if warm is not None and (options.max_states is None or options.max_states > warm):
        verdict = run(system, prop, warm, options.timeout)
        if verdict.reason != f"state limit {warm} reached":
            return verdict
    verdict = _run_c(lambda: _refine_on_c(system, prop, options, started), options, notes)
    if verdict is not None:
        return verdict
    return run(system, prop, options.max_states, _remaining(options, started))


def _check_safety(system: TransitionSystem, prop: Property, options: CheckOptions,
                  notes: list[str]) -> Verdict:
    """Return the explorer's verdict for a non-LTL property, from the C engine when it
    is chosen (``_use_c_engine``) and can finish exactly, else from the Python one
    (with ``auto``, a small state space is left to the Python engine: see
    ``AUTO_PYTHON_STATES``)."""
    explore_module = "bridge.semantics.explore"
    run = _room(explore_module, "check_property", "the explicit-state explorer")
    explore_options = _room(explore_module, "ExploreOptions", "the explicit-state explorer")

    def python(max_states: int | None, timeout: float | None) -> Verdict:
        verdict = run(system, prop, _options(
            explore_options, max_states=max_states, timeout=timeout,
            max_memory=options.max_memory, ignore_end_states=options.ignore_end_states,
            progress=options.progress))
        return dataclasses.replace(verdict, statistics=_tagged(verdict.statistics, []))

    started = time.perf_counter()
    if _use_c_engine(system, prop, options, notes):
        engine_c = importlib.import_module("bridge.engine_c")
        warm = _warm_up_limit(system, options)
        if warm is not None and (options.max_states is None or options.max_states > warm):
            verdict = python(warm, options.timeout)
            if verdict.reason != f"state limit {warm} reached":
                return verdict
        verdict = _run_c(lambda: engine_c.check_property_c(system, prop, engine_c.SearchOptions(
            max_states=options.max_states, timeout=_remaining(options, started),
            max_memory=options.max_memory, ignore_end_states=options.ignore_end_states,
            progress=options.progress)), options, notes)
        if verdict is not None:
            return verdict
    return python(options.max_states, _remaining(options, started))


def _check_counter_abstraction(system: TransitionSystem, prop: Property,
                               options: CheckOptions, fairness: Fairness) -> Verdict:
    """Return the verdict of the process counter abstraction (paper 002 sections 3-5).

    It has its own fair search (always/once/leave), so it takes process-level fairness
    or none; with omega counts the verdict may be unknown, and its notes say whether
    the result is exact, sound with omega, or inconclusive. A model the abstraction
    cannot represent is rejected with an ``UnsupportedError`` naming the construct.
    """
    if options.por or options.symmetry:
        raise ConfigurationError("--counter-abstraction cannot be combined with --por or "
                                 "--symmetry (it replaces the state space)")
    if options.annotations:
        raise ConfigurationError("--counter-abstraction takes no --fair annotations "
                                 "(process-level fairness or none)")
    allowed = (Fairness.NONE, Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG)
    if fairness not in allowed:
        raise ConfigurationError(
            f"--counter-abstraction checks fairness {', '.join(f.value for f in allowed)}; "
            f"not {fairness.value} (paper 002 defines process-level fairness on counts)")
    if options.unbounded and options.cutoff is None:
        raise ConfigurationError("--unbounded needs --cutoff K")
    run = _room("bridge.reductions.counter", "check_counter_abstraction",
                "the process counter abstraction")
    limits = {"max_states": options.max_states} if options.max_states is not None else {}
    started = time.perf_counter()
    verdict = run(system, prop, fairness, options.cutoff, unbounded=options.unbounded,
                  timeout=options.timeout, **limits)
    if not verdict.statistics.seconds:  # the abstraction does not time itself
        statistics = dataclasses.replace(verdict.statistics,
                                         seconds=time.perf_counter() - started)
        verdict = dataclasses.replace(verdict, statistics=statistics)
    return verdict


def _check_ltl(system: TransitionSystem, prop: Property, options: CheckOptions,
               fairness: Fairness, notes: list[str], use_c: bool = False,
               reduced: _Reduced | None = None) -> Verdict:
    """Return the fair checker's verdict, on a reduced state space when asked and sound.

    ``bridge.reductions.apply_reductions`` decides what may be applied (and says why
    not in its notes); the checker then searches the wrapper (``check_ltl(space=...)``),
    judging fairness on the unreduced enabled sets (``full_successors``). A lasso found
    in a symmetry quotient is a path of representatives, not a run of the model, so a
    violation found there is searched again on the full state space to print a real
    counterexample (paper 001 Lemma 1 says one exists). On the C engine (``use_c``)
    the quotient is searched by the C fair search (``symmetry.c``) and the full search
    for the counterexample too, with what is left of the timeout; a large strong
    globally fair part closed node by node is lifted instead (``_certified_part``).
    """
    reduced = reduced if reduced is not None else _Reduced()
    ltl_options = _room("bridge.fairness.check", "LtlOptions", "the fair LTL checker")
    if prop.kind is PropertyKind.NEVER:
        run = _room("bridge.fairness.never", "check_never", "the never-claim checker")
    else:
        run = _room("bridge.fairness.check", "check_ltl", "the fair LTL checker")
    settings = _options(ltl_options, progress=options.progress, fairness=fairness,
                        annotations=options.annotations, max_states=options.max_states,
                        timeout=options.timeout)
    if options.counter_abstraction:
        if prop.kind is PropertyKind.NEVER:
            notes.append("--counter-abstraction: not used for never claims; checked on "
                         "the full state space")
        else:
            return _check_counter_abstraction(system, prop, options, fairness)
    if prop.kind is PropertyKind.NEVER and (options.por or options.symmetry):
        # The reductions judge visibility from the formula's atoms; a claim's guards are
        # not a formula they can see, so reducing would be unsound.
        notes.append("--por/--symmetry: not used: reductions are not applied to never "
                     "claims (their guards are not visible to the reductions)")
    if use_c:
        space = _reduced_once(system, prop, fairness, options, notes, reduced) \
            if options.symmetry and prop.kind is PropertyKind.LTL else None
        return _fair_on_c(run, system, prop, settings, options, notes, space)
    if prop.kind is PropertyKind.NEVER or not (options.por or options.symmetry):
        return run(system, prop, settings)
    space = _reduced_once(system, prop, fairness, options, notes, reduced)
    if space is None:
        return run(system, prop, settings)
    verdict = run(system, prop, settings, space=space)
    return _with_counterexample(verdict, space, lambda: run(system, prop, settings))


# ---------------------------------------------------------------------------------
# Exploring, simulating, showing


def explore(model_file: ModelFile, target: str | None = None,
            options: CheckOptions | None = None) -> list[tuple[TransitionSystem, Statistics]]:
    """Return the reachable-state statistics of each system (or the one named).

    A resource limit raises ``ResourceLimitReached`` carrying the statistics so far.
    """
    options = options or CheckOptions()
    module = "bridge.semantics.explore"
    run = _room(module, "explore", "the explicit-state explorer")
    explore_options = _room(module, "ExploreOptions", "the explicit-state explorer")
    systems = [select_system(model_file, target)] if target else list(model_file.systems)
    if not systems:
        select_system(model_file)  # raises the "no system" error
    settings = _options(explore_options, max_states=options.max_states,
                        timeout=options.timeout, ignore_end_states=options.ignore_end_states,
                        max_memory=options.max_memory, progress=options.progress)
    results = []
    for system in systems:
        system = _completed(system)
        try:
            results.append((system, _explore_one(system, options, run, settings)))
        except ResourceLimitReached as limit:
            raise ResourceLimitReached(f"{system.name}: {limit}", limit.statistics) from None
    return results


def _explore_one(system: TransitionSystem, options: CheckOptions, run: Any,
                 settings: Any) -> Statistics:
    """Return the statistics of one system, from the engine ``options.engine`` chooses
    (``auto`` as in ``_check_safety``); the statistics' ``engine`` entry names it,
    ``engine_note`` says why the C engine did not run it."""
    notes: list[str] = []
    started = time.perf_counter()
    if _use_c_engine(system, None, options, notes):
        engine_c = importlib.import_module("bridge.engine_c")
        warm = _warm_up_limit(system, options)
        if warm is not None and (options.max_states is None or options.max_states > warm):
            try:
                return _tagged(run(system, dataclasses.replace(settings, max_states=warm)), [])
            except ResourceLimitReached as limit:
                if str(limit) != f"state limit {warm} reached":
                    if isinstance(limit.statistics, Statistics):
                        limit.statistics = _tagged(limit.statistics, [])
                    raise
        explored = _run_c(lambda: engine_c.explore_c(system, engine_c.SearchOptions(
            max_states=options.max_states, timeout=_remaining(options, started),
            max_memory=options.max_memory, progress=options.progress)), options, notes,
            refuted="explored")
        if explored is not None:
            return explored
    if options.timeout is not None:
        settings = dataclasses.replace(settings, timeout=_remaining(options, started))
    try:
        statistics = run(system, settings)
    except ResourceLimitReached as limit:
        if isinstance(limit.statistics, Statistics):
            limit.statistics = _tagged(limit.statistics, notes)
        raise
    return _tagged(statistics, notes)


def simulate(model_file: ModelFile, steps: int = 50, seed: int | None = None,
             target: str | None = None) -> Trace:
    """Return a random run of at most ``steps`` steps (reproducible with ``seed``)."""
    if steps < 0:
        raise ConfigurationError(f"--steps must be at least 0, not {steps}")
    run = _room("bridge.semantics.explore", "simulate", "the simulator")
    return run(select_system(model_file, target), steps, seed)


def show(model_file: ModelFile, as_json: bool = False) -> str:
    """Return the IR of the model as readable text (or as JSON)."""
    if as_json:
        from bridge.ir.serialize import dumps

        return dumps(model_file)
    from bridge.ir.printer import print_model_file

    return print_model_file(model_file)


def validate(model_file: ModelFile) -> list[str]:
    """Return the structural problems of the IR (empty when it is well formed)."""
    from bridge.ir.validate import validate_model_file

    return [str(problem) for problem in validate_model_file(model_file)]


def statistics_rate(statistics: Statistics) -> float | None:
    """Return states per second, or None when the time is too short to tell."""
    if statistics.seconds <= 0:
        return None
    return statistics.states / statistics.seconds


def outcome_exit_code(verdicts: Sequence[Verdict]) -> int:
    """Return the exit code for a list of verdicts: 1 if any is violated, else 3 if
    any is unknown, else 0 (DESIGN.md section 8)."""
    outcomes = {v.outcome for v in verdicts}
    if Outcome.VIOLATED in outcomes:
        return 1
    if Outcome.UNKNOWN in outcomes:
        return 3
    return 0
