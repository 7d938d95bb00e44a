"""Flat verbs over every room: load a model, check it, explore, simulate, show it.

The only module (with ``bridge.compare`` and ``bridge.regress``) that crosses rooms
(STYLE.md section 1), the way LTSmin's ``wrapModel`` or stormpy's top-level verbs do.
The CLI calls these verbs and nothing else of the engine.

Rooms are looked up when a verb needs them: a room that is not part of this build makes
its verbs raise ``NotAvailableError`` (a ``ConfigurationError``, exit code 2), never a
made-up verdict. A requested reduction that is unavailable, or unsound under the chosen
fairness (paper 001 section 6: no POR under strong local/global fairness), is not used,
and the verdict's notes say so.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bridge.diagnostics import ConfigurationError, ModelRuntimeError, ResourceLimitReached
from bridge.ir.model import FairnessMark, ModelFile, RefusedAssertion, TransitionSystem
from bridge.ir.property import Fairness, LtlState, Property, PropertyKind, RefinementModel
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


class NotAvailableError(ConfigurationError):
    """A verb needs a room (front-end, engine, back-end) that this build does not have."""


# ---------------------------------------------------------------------------------
# Options


Progress = Callable[[int, int, float], None]
"""A callback ``progress(states, transitions, seconds)`` a long run calls now and then."""


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """Options of ``check``, ``explore`` and ``simulate``.

    ``fairness``: None takes the fairness written with the property, else none.
    ``annotations``: extra per-event fairness (``(FairnessMark.SF, "rule1.0.1")``).
    ``max_states``/``timeout`` (seconds) apply to each property separately.
    ``ignore_end_states``: a Promela deadlock at a non-end location is not an error
    (SPIN's ``-E``). ``por``/``symmetry``: ask for the reductions (used only where
    sound; the verdict's notes say when one was not used). ``counter_abstraction``:
    check LTL properties on the process counter abstraction (paper 002), counts above
    ``cutoff`` becoming omega; ``unbounded``: the process families are unbounded.
    ``engine``: ``auto`` (the compiled C engine when a C compiler is present and it
    supports the model and property, else the Python engine, with a note saying why),
    ``c`` (the C engine or a ``ConfigurationError`` saying why not) or ``python`` (the
    reference engine). ``max_memory``: bytes for the state store (C engine) or the
    process's resident memory (Python engine); reaching it is an UNKNOWN verdict.
    """

    fairness: Fairness | None = None
    annotations: tuple[tuple[FairnessMark, str], ...] = ()
    max_states: int | None = None
    timeout: float | None = None
    ignore_end_states: bool = False
    por: bool = False
    symmetry: bool = False
    counter_abstraction: bool = False
    cutoff: int | None = None
    unbounded: bool = False
    progress: Progress | None = None
    engine: str = "auto"
    max_memory: int | None = None


ENGINES = ("auto", "c", "python")


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


# ---------------------------------------------------------------------------------
# Rooms


def _room(module: str, attribute: str, what: str) -> Any:
    """Return ``module.attribute``, or raise ``NotAvailableError`` naming ``what``."""
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as error:
        missing = error.name or module
        if module == missing or module.startswith(missing + "."):
            raise NotAvailableError(f"{what} is not available in this build "
                                    f"(module {module} is missing)") from None
        raise NotAvailableError(f"{what} is not available: {module} needs the "
                                f"Python module {missing!r}, which is not installed") from None
    found = getattr(loaded, attribute, None)
    if found is None:
        raise NotAvailableError(f"{what} is not available in this build "
                                f"({module}.{attribute} is missing)")
    return found


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


def _options(cls: type, progress: Progress | None = None, **values: Any) -> Any:
    """Return ``cls(**values)``, plus ``progress`` when ``cls`` has such a field.

    The progress callback is an optional extra of the rooms' options; every other value
    is part of their fixed interface (COMMON.md), so a missing field is an error here,
    never silently dropped.
    """
    if progress is not None and dataclasses.is_dataclass(cls) and any(
            f.name == "progress" for f in dataclasses.fields(cls)):
        values["progress"] = progress
    return cls(**values)


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


def load_model(path: str, defines: Mapping[str, str] | None = None) -> ModelFile:
    """Return the model in ``path`` (Promela or CSP#, chosen by extension) as IR.

    ``defines``: ``-D NAME=VALUE`` macros for Promela's preprocessor. Bad input raises a
    ``SourceError`` with spans; an unreadable file or an unknown extension raises
    ``ConfigurationError``.
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
    return complete_unfoldings(load(path, text))


def complete_unfoldings(model_file: ModelFile) -> ModelFile:
    """Return ``model_file`` with every lazily unfolded process completed
    (``semantics.unfolding``: a search of each such system unfolds the locations it
    reaches), refinement specifications included."""

    def lazy(system: TransitionSystem) -> bool:
        return system.unfolding is not None or any(
            p.spec is not None and p.spec.unfolding is not None for p in system.properties)

    if not any(lazy(system) for system in model_file.systems):
        return model_file
    complete = _room("bridge.semantics.unfolding", "complete_unfolding", "the Python engine")
    systems = []
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


def _refine_on_c(system: TransitionSystem, prop: Property, options: CheckOptions,
                 started: float) -> Verdict:
    """Return the C engine's verdict of a ``refines`` assertion (``_check_refinement``);
    raises the C engine's ``CFallback`` (the normal form is too large, or the
    specification meets a model error: the Python engine reports it where it matters)
    or ``EngineDisagreement`` (the replay refutes the C answer)."""
    refinement = importlib.import_module("bridge.refinement")
    engine_c = importlib.import_module("bridge.engine_c")
    model = prop.refinement or RefinementModel.TRACES
    if prop.spec is None:
        raise ConfigurationError(f"property '{prop.name}' is no refinement assertion")
    try:
        table = refinement.normalise_whole(
            prop.spec, divergence=model is RefinementModel.FAILURES_DIVERGENCE)
    except refinement.NormalFormTooLarge as large:
        raise engine_c.CFallback(f"{large}; the Python engine normalises it lazily") \
            from None
    except ModelRuntimeError as error:
        raise engine_c.CFallback(f"the specification meets a model error ({error}) "
                                 "normalising it whole") from None
    answer = engine_c.refine_c(system, table, model.value,
                               engine_c.SearchOptions(
                                   max_states=options.max_states,
                                   timeout=_remaining(options, started),
                                   max_memory=options.max_memory, progress=options.progress))
    try:
        return refinement.verdict_from_c(system, prop, table, answer,
                                         time.perf_counter() - started)
    except (refinement.ReplayRefuted, ModelRuntimeError) as refuted:
        raise engine_c.EngineDisagreement(f"the C engine's refinement counterexample was "
                                          f"refuted by its replay ({refuted})") from None


# ``--engine auto`` leaves a system to the Python engine when more than this many of its
# process instances (or templates, of a dynamic system) get C code of their own
# (``engine_c.own_code_count``: counted on the generated source, before the compiler
# runs). Instances whose code differs only in data share one C code per family
# (``engine_c/gen_families``) and are not counted: LE (le_pl) compiles in about 3 s of
# compiler CPU at any N up to 10,000. Code of its own costs the compiler about 24 ms
# of CPU per instance of LE's size (3 location functions, 2 kB of C): gcc -O2 took
# 24.8 s of CPU on LE N = 1,000 with every node's code its own, 7.5 s at 300, 1.3 s
# with shared code (``benchmarks/many_instances.py --c-engine --baseline``, 2026-11-26,
# load 4-6 on 2 cores), so this many take about 30 s.
AUTO_C_MAX_OWN_CODE = 1000


def _use_c_engine(system: TransitionSystem, prop: Property | None, options: CheckOptions,
                  notes: list[str], ask: Callable[[], tuple[bool, str]] | None = None) -> bool:
    """Return True when the compiled engine runs this task (``options.engine``); for
    ``auto``, a note says why the Python engine runs it instead; for ``c``, a task the C
    engine does not support raises ``ConfigurationError`` with the reason. ``ask``: the
    question ``(supported, why not)`` to put instead of ``engine_c.supports``."""
    engine = options.engine
    if engine not in ENGINES:
        raise ConfigurationError(f"unknown engine {engine!r}; allowed: {', '.join(ENGINES)}")
    if engine == "python":
        return False
    try:
        if ask is None:
            supports = _room("bridge.engine_c", "supports", "the compiled engine")
            ok, why = supports(system, prop)
        else:
            ok, why = ask()
    except NotAvailableError as missing:
        ok, why = False, str(missing)
    if ok and engine == "auto":
        own = _room("bridge.engine_c", "own_code_count", "the compiled engine")(system)
        if own > AUTO_C_MAX_OWN_CODE:
            notes.append(f"checked by the Python engine: {own} process instances get C "
                         "code of their own (not shared by a family of instances), more "
                         f"than the --engine auto limit of {AUTO_C_MAX_OWN_CODE} "
                         "(api.AUTO_C_MAX_OWN_CODE: compiling them would take more than "
                         "about 30 s); --engine c compiles them anyway")
            return False
    if ok:
        return True
    if engine == "c":
        raise ConfigurationError(f"--engine c: {why}; use --engine auto or python")
    notes.append(f"checked by the Python engine: {why}")
    return False


# ``--engine auto`` runs a model whose library is not built yet on the Python engine
# first, for this many states: a small state space is done before the C compiler would
# have finished (0.3-2 s), and only a larger one pays for compiling.
AUTO_PYTHON_STATES = 20000


def _warm_up_limit(system: TransitionSystem, options: CheckOptions) -> int | None:
    """Return the state limit of the Python warm-up run of ``auto``, or None for none
    (another engine was asked for, or the library is built already)."""
    if options.engine != "auto":
        return None
    engine_c = importlib.import_module("bridge.engine_c")
    if engine_c.is_compiled(system):
        return None
    return AUTO_PYTHON_STATES


def _remaining(options: CheckOptions, started: float) -> float | None:
    if options.timeout is None:
        return None
    return max(0.001, options.timeout - (time.perf_counter() - started))


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


def _run_c(run: Callable[[], Any], options: CheckOptions, notes: list[str]) -> Any:
    """Return ``run()`` (a C engine search), or None when the Python engine must answer
    instead: a note says why (the C engine fell back, or its run was refuted by its
    replay on the reference semantics: never answer from it, a bug of the C engine);
    with ``--engine c``, a model the C compiler rejects is a ``ConfigurationError``."""
    engine_c = importlib.import_module("bridge.engine_c")
    try:
        return run()
    except (engine_c.CFallback, engine_c.CUnsupported) as fallback:
        if options.engine == "c" and isinstance(fallback, engine_c.CUnsupported):
            raise ConfigurationError(f"--engine c: {fallback}") from None
        notes.append(f"checked by the Python engine: {fallback}")
    except engine_c.EngineDisagreement as disagreement:
        notes.append(f"checked by the Python engine: {disagreement}")
    return None


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


@dataclass
class _Reduced:
    """The reduced state space of one LTL check, built once (``_reduced_space``) and
    shared by the engine choice and the check: ``space`` None when no reduction
    applies; ``built`` False until it was asked for."""

    built: bool = False
    space: Any = None


def _reduced_once(system: TransitionSystem, prop: Property, fairness: Fairness,
                  options: CheckOptions, notes: list[str], reduced: _Reduced) -> Any:
    """Return ``_reduced_space``'s result, building it (and writing its notes) once."""
    if not reduced.built:
        reduced.space = _reduced_space(system, prop, fairness, options, notes)
        reduced.built = True
    return reduced.space


def _use_c_ltl(system: TransitionSystem, prop: Property, options: CheckOptions,
               fairness: Fairness, notes: list[str], reduced: _Reduced | None = None) -> bool:
    """Return True when the compiled engine's fair search checks LTL property ``prop``
    (``_use_c_engine``'s contract: ``auto`` notes why not, ``c`` refuses with the
    reason). It takes the notions of ``engine_c.LTL_FAIRNESS`` with annotations (the
    command line's and the model's), and symmetry reduction (paper 001; the quotient
    of static and dynamic layouts, ``engine_c.symmetry_supports``); --por and the
    counter abstraction run on the Python engine. With --symmetry the quotient is built here, once, into
    ``reduced`` (its notes say whether it applies; where it does not, the C engine
    searches the full state space, as the Python engine would)."""
    reduced = reduced if reduced is not None else _Reduced()

    def ask() -> tuple[bool, str]:
        if prop.kind is PropertyKind.LTL and (options.por or options.counter_abstraction):
            return False, ("the reductions --por and --counter-abstraction run on the "
                           "Python engine")
        if options.symmetry and prop.kind is PropertyKind.LTL:
            quotient = _reduced_once(system, prop, fairness, options, notes, reduced)
            if quotient is not None:
                symmetry_supports = _room("bridge.engine_c", "symmetry_supports",
                                          "the compiled engine")
                ok, why = symmetry_supports(system, quotient.group_action())
                if not ok:
                    return False, f"the C engine does not take {why}"
        supports = _room("bridge.engine_c", "ltl_supports", "the compiled engine")
        atoms, buchi = _fair_search_automaton(system, prop)
        return supports(system, prop, atoms, fairness, buchi.num_sets, buchi.num_states,
                        options.annotations)

    return _use_c_engine(system, prop, options, notes, ask)


def _fair_search_automaton(system: TransitionSystem, prop: Property,
                           translate: bool = True) -> tuple[list[Any], Any]:
    """Return ``(atoms, automaton)`` of the fair search of ``prop``: for LTL the
    automaton of the negation (Spot) and its atoms; for a never claim the claim read as
    an automaton (``fairness.never.claim_automaton``, which refuses a claim with side
    effects) and its guards; for non-progress and acceptance cycles SPIN's automaton
    (``fairness.cycles``) over ``engine_c.LabelAtom``s. ``translate`` False: the atoms
    only (the automaton is None for LTL, no Spot call)."""
    if prop.kind is PropertyKind.LTL:
        assert prop.formula is not None
        if not translate:
            bind = _room("bridge.automata.ltl", "bind_atoms", "the LTL translator")
            return list(bind(prop.formula)[1].atoms), None
        na = _room("bridge.automata.ltl", "translate_formula", "the LTL translator")(prop.formula)
        return list(na.binding.atoms), na.buchi
    if prop.kind is PropertyKind.NEVER:
        if system.never is None:
            raise ConfigurationError(f"model {system.name!r} has no never claim")
        claim_automaton = _room("bridge.fairness.never", "claim_automaton",
                                "the never-claim checker")
        claim = claim_automaton(system.never)
        return [LtlState(a, "") for a in claim.atoms], claim.buchi
    label_atom = _room("bridge.engine_c", "LabelAtom", "the compiled engine")
    if prop.kind is PropertyKind.NON_PROGRESS:
        make = _room("bridge.fairness.cycles", "non_progress_automaton", "the cycle checker")
        return [label_atom("np_")], make()
    make = _room("bridge.fairness.cycles", "acceptance_automaton", "the cycle checker")
    return [label_atom("accept")], make()


def _c_fair_search(system: TransitionSystem, prop: Property, options: CheckOptions,
                   notes: list[str], symmetry: Any = None) -> Callable[..., Any]:
    """Return the compiled engine's fair search for ``check_ltl(search=...)``: the C
    search of the product (``engine_c.fair_search_c``), whose report is rebuilt on the
    Python semantics: the path and the fair part are walked on the Python product (each
    C node matched by its system state and automaton state among the Python
    successors), the part is re-checked (acceptance, the notion's ``prune``) and the
    lasso is built and replayed by ``emptiness.build_lasso``. A C result that does not
    replay, or a value the C engine cannot hold, hands the search to the Python engine
    with a note; a C verdict is never reported unchecked. A strong globally fair part
    of more than ``LOOP_PRINT_NODES`` nodes is checked as a whole by the C engine
    instead of through a lasso, and only the path into it is replayed on the Python
    semantics (``_certified_part``). The Python engine's fallback gets what is left of
    the timeout. ``symmetry``: the
    ``GroupAction`` of the quotient ``check_ltl`` searches (the C search then searches
    the same quotient, and its report is rebuilt on the Python quotient product)."""
    engine_c = importlib.import_module("bridge.engine_c")
    fcheck = importlib.import_module("bridge.fairness.check")
    atoms, _ = _fair_search_automaton(system, prop, translate=False)

    def search(space: Any, system_: TransitionSystem, buchi: Any, state_letter: Any,
               event_letter: Any, fairness: Fairness, ltl_options: Any, stats: Any) -> Any:
        args = (space, system_, buchi, state_letter, event_letter, fairness, ltl_options, stats)
        def c_search() -> Any:
            deadline = None if ltl_options.timeout is None else \
                time.monotonic() + ltl_options.timeout
            result = engine_c.fair_search_c(system, buchi, atoms, fairness, engine_c.SearchOptions(
                max_states=ltl_options.max_states, timeout=ltl_options.timeout,
                max_memory=options.max_memory, progress=options.progress),
                ltl_options.annotations, ltl_options.model_annotations, symmetry,
                check_part_over=LOOP_PRINT_NODES)
            return _replay_c_search(engine_c, fcheck, result, system, args, deadline)

        begun = time.monotonic()
        found = _run_c(c_search, options, notes)
        if found is not None:
            return found
        if ltl_options.timeout is not None:  # the Python engine gets what is left
            left = max(0.001, ltl_options.timeout - (time.monotonic() - begun))
            args = args[:6] + (dataclasses.replace(ltl_options, timeout=left), stats)
        return fcheck.run_fair_search(*args)

    return search


# A strong globally fair part with more nodes than this is checked as a whole by the C
# engine that found it (``engine_c.PartCheck``, the C twin of ``fairness.terminal``) and
# reported without its loop: the loop takes every step of the part (paper 001 Lemma 2),
# too long to print or to replay step by step. Smaller parts are rebuilt, re-checked
# and replayed as a lasso on the Python semantics.
LOOP_PRINT_NODES = 20_000


def _replay_c_search(engine_c: Any, fcheck: Any, result: Any, system: TransitionSystem,
                     args: tuple[Any, ...], deadline: float | None = None) -> Any:
    """Return the ``FairSearch`` of a C fair search ``result`` (see ``_c_fair_search``);
    raises ``engine_c.EngineDisagreement`` when it does not replay. The replay honours
    the search's time limit: past ``deadline`` (``time.monotonic()``) it ends as an
    UNKNOWN limit verdict, never as a killed run."""
    product_room = importlib.import_module("bridge.fairness.product")
    try:
        return _replay_c_result(engine_c, fcheck, result, system, args, deadline)
    except product_room.LimitReached as limit:
        what = "state limit" if limit.what == "states" else "time limit"
        return fcheck.FairSearch(None, early=(
            Outcome.UNKNOWN, f"{what} reached before a verdict (while checking the C "
            "engine's fair part on the Python semantics)", {}), statistics=result.statistics)


def _replay_c_result(engine_c: Any, fcheck: Any, result: Any, system: TransitionSystem,
                     args: tuple[Any, ...], deadline: float | None) -> Any:
    """``_replay_c_search`` without the limits' handling (``LimitReached`` goes up)."""
    space, _system, buchi, state_letter, event_letter, fairness, ltl_options, stats = args
    product_room = importlib.import_module("bridge.fairness.product")
    components = importlib.import_module("bridge.fairness.components")
    emptiness = importlib.import_module("bridge.fairness.emptiness")
    onthefly = importlib.import_module("bridge.fairness.onthefly")
    started = time.perf_counter()
    stats.sccs = result.sccs
    stats.nontrivial_sccs = result.nontrivial_sccs
    stats.early_report = result.early_report
    stats.subgraphs = result.subgraphs
    stats.pruned = result.pruned
    c_stats = result.statistics
    if result.outcome == "limit":
        return fcheck.FairSearch(None, early=(Outcome.UNKNOWN, f"{result.reason} reached "
                                              "before a verdict", {}), statistics=c_stats)
    if result.outcome == "error" and not result.path:
        return fcheck.run_fair_search(*args)  # the initial state: Python stops at once
    # no state limit here: the replay interns only what the C search reported (its part
    # and path, and their successors), which the C search's own state limit bounded
    product = product_room.Product(
        space, buchi, state_letter, event_letter,
        timeout=None if deadline is None else max(0.001, deadline - time.monotonic()))
    condition = fcheck.build_condition(product, fairness, ltl_options, system)
    if result.outcome == "empty":
        return fcheck.FairSearch(product, condition, None, statistics=c_stats,
                                 events_seen=result.events_seen,
                                 annotations_seen=result.annotations_seen)
    key, path, part_keys = _replay_keys(engine_c, system, space, product, result)
    disagree = engine_c.EngineDisagreement
    starts = [n for n in product.initial_nodes() if key(n) == path[0]]
    if not starts:
        raise disagree("the C engine's initial product state is not the Python one")
    initial = u = starts[0]
    edges: list[tuple[int, int, int]] = []
    # Along the C search's DFS path each node was entered by the first edge to it in the
    # search order (several steps, of different processes, may reach the same node): the
    # same edge as the Python search's. Past it (a shortest path), the first edge. Only
    # the round robin order (strong global fairness) is followed: the rotated one
    # depends on system state ids, which this fresh product numbers differently.
    round_robin = onthefly.search_order(condition) == onthefly.ORDER_ROUND_ROBIN
    in_step = -1
    for i, want in enumerate(path[1:]):
        if deadline is not None and i % 512 == 0 and time.monotonic() > deadline:
            raise product_room.LimitReached("time")
        out = product.edges(u)
        ranks: Any = range(len(out))
        if round_robin and i + 1 < result.dfs_len and len(out) > 1:
            ranks = onthefly.edge_order(product, onthefly.ORDER_ROUND_ROBIN, u, in_step,
                                        [k for _w, k, _a in out])
        step = next(((out[j][0], out[j][1]) for j in ranks if key(out[j][0]) == want), None)
        if step is None:
            raise disagree("a step of the C engine's fair search is not a step of the "
                           "Python product")
        edges.append((u, step[1], step[0]))
        u, in_step = step[0], step[1]
    if result.outcome == "error":
        try:
            product.expand(u)
        except product_room.ModelErrorAt as failure:
            from bridge.semantics.trace import make_trace

            err = failure.error
            trace = make_trace(space, product.sys_states[product.node_sys[initial]],
                               product.system_path(edges))
            return fcheck.FairSearch(product, early=(
                Outcome.VIOLATED, f"{getattr(err, 'kind', 'error')}: {err}", {"trace": trace}),
                statistics=c_stats)
        raise disagree("the C engine met a model error that the Python engine does not")
    part = set(part_keys)
    if key(u) != part_keys[0]:
        raise disagree("the C engine's fair part does not start where its path ends")
    if result.part_check is not None:
        if fairness is not Fairness.STRONG_GLOBAL or type(condition).__name__ != \
                "StrongGlobalFairness":
            raise disagree("the C engine checked a fair part under another notion")
        return _certified_part(fcheck, product, condition, result, initial, edges, u,
                               deadline, started)
    members, queue = {u}, [u]
    while queue:
        v = queue.pop()
        for w, _k, _a in product.edges(v):
            if w not in members and key(w) in part:
                members.add(w)
                queue.append(w)
    if len(members) != len(part):
        raise disagree("the C engine's fair part is not strongly connected on the Python "
                       "product")
    g = components.component_subgraph(product, members)
    acc = 0
    for _u, _v, _k, a in g.edges:
        acc |= a
    if acc & buchi.all_sets != buchi.all_sets or condition.prune(g):
        raise disagree("the C engine's fair part is not fair and accepting on the Python "
                       "product")
    condition.clear_caches()
    if len(edges) <= onthefly.SHORT_PREFIX:
        g.entry = (initial, edges)
    else:
        allowed = members | {e[0] for e in edges}
        g.entry = (initial, components.path_within(product, initial, allowed, members))
    try:
        lasso = emptiness.build_lasso(product, condition, g)
    except AssertionError as error:
        raise disagree(f"the C engine's counterexample does not replay ({error})") from None
    # the seconds of the C search and of the replay (compiling is reported apart)
    c_stats = dataclasses.replace(c_stats, seconds=c_stats.seconds + time.perf_counter()
                                  - started)
    return fcheck.FairSearch(product, condition, lasso, statistics=c_stats,
                             events_seen=result.events_seen,
                             annotations_seen=result.annotations_seen)


def _replay_keys(engine_c: Any, system: TransitionSystem, space: Any, product: Any,
                 result: Any) -> tuple[Callable[[int], Any], list[Any], list[Any]]:
    """Return (the key of a Python product node, the C search's path and part as such
    keys) for ``_replay_c_result``: a node's system state without its hidden
    variables (each product keeps the first value it reached) and its automaton state.

    The C engine's keys are canonical int tuples (``PackedLayout.canonical``). For a
    static layout without library values the canonical state is the Python state, so
    the path and part are packed once (``fairness.packed.pack_state``, canonical: equal
    states, equal bytes) and a node's key is its interned bytes, read without unpacking
    it: at 10,000 instances each of 20,003 successors would otherwise be unpacked and
    copied twice (issue 13, le_pl N = 10,000: seconds). Else every node is unpacked
    and made canonical."""
    packed = engine_c.compile_model(system).packed
    hidden = engine_c.hidden_slots(space)
    states = product.sys_states
    if not packed.dynamic and not packed.library_slots and hidden == 0:
        pack_state = importlib.import_module("bridge.fairness.packed").pack_state
        path = [(pack_state(values), q) for values, q in result.path]
        part = [(pack_state(values), q) for values, q in result.part]
        # tag 4 (marshal): a value that is not an int, whose packing tells bool from int
        if all(k[0][-1] != 4 for k in path + part):
            return (lambda n: (states.packed[product.node_sys[n]], product.node_q[n]),
                    path, part)
    keys: dict[int, tuple[tuple[int, ...], int]] = {}

    def key(n: int) -> tuple[tuple[int, ...], int]:
        hit = keys.get(n)
        if hit is None:
            state = states[product.node_sys[n]]
            hit = keys[n] = (tuple(packed.canonical(space, state)[hidden:]), product.node_q[n])
        return hit

    return key, list(result.path), list(result.part)


def _certified_part(fcheck: Any, product: Any, condition: Any, result: Any, initial: int,
                    edges: list[tuple[int, int, int]], start: int, deadline: float | None,
                    started: float) -> Any:
    """Return the ``FairSearch`` of a large strong globally fair part reported and
    checked as a whole by the C engine (``result.part_check``, ``engine_c.PartCheck``:
    closed under steps per system state, strongly connected, accepting; paper 001
    Lemma 2; the C twin of ``fairness.terminal``) instead of through a lasso whose loop
    would take every step of it: a VIOLATED verdict whose trace is the path into the
    part (``edges`` from ``initial``, already replayed on the Python product) and whose
    reason describes the part. In a symmetry quotient the path is lifted to a run of
    the model (``_lift_quotient_part``) when every node of the part takes all its steps
    inside it; otherwise the trace is the quotient's and ``_with_counterexample``
    searches the full state space. Raises ``EngineDisagreement`` when the part is not
    fair and accepting. The statistics' seconds are the C search's, the C check's and
    this replay's (since ``started``, a ``time.perf_counter()``)."""
    from bridge.semantics.trace import make_trace

    engine_c = importlib.import_module("bridge.engine_c")
    found = result.part_check
    if found.nodes != result.part_size:
        raise engine_c.EngineDisagreement(
            "the C engine's fair part is not strongly connected (its check reached "
            f"{found.nodes} of its {result.part_size} nodes)")
    if not found.fair_accepting:
        raise engine_c.EngineDisagreement(
            f"the C engine's fair part is not fair and accepting ({found.problem})")
    condition.clear_caches()
    space = product.space
    size = (f"{found.nodes} product states, {found.system_states} system states, "
            f"{found.edges} edges")
    checked = ("checked by the C engine: closed under steps, strongly connected, "
               "accepting; paper 001 Lemma 2; the path into it replayed on the Python "
               "semantics")
    path = product.system_path(edges)
    start_state = product.sys_states[product.node_sys[initial]]
    lifted_run = _is_quotient(space) and found.node_closed
    if lifted_run:
        concrete, lifted = _lift_quotient_part(space, path, deadline)
        trace = make_trace(space, concrete, lifted)
        reason = (f"acceptance cycle: the trace reaches the preimage of a terminal accepting "
                  f"component of the symmetry quotient ({size}; {checked}; every node takes "
                  f"all its steps inside it), where a fair loop takes every step of a "
                  f"terminal component of the model (paper 001 Theorem 4); the trace is "
                  f"lifted from the symmetry quotient (Lemma 1); the loop is not printed")
    else:
        trace = make_trace(space, start_state, path)
        reason = (f"acceptance cycle: the trace reaches a terminal accepting component "
                  f"({size}; {checked}); the fair loop takes every step of it and is not "
                  f"printed")
    stats = dataclasses.replace(
        result.statistics, seconds=result.statistics.seconds + found.seconds
        + time.perf_counter() - started,
        extra=result.statistics.extra + (("part_check_seconds", round(found.seconds, 3)),))
    return fcheck.FairSearch(product, early=(
        Outcome.VIOLATED, reason, {"trace": trace, "lifted": lifted_run}), statistics=stats,
        part_start=start)


def _lift_quotient_part(space: Any, path: list[Any], deadline: float | None
                        ) -> tuple[Any, list[Any]]:
    """Return ``(initial state, steps)`` of a run of the model that the quotient path
    ``path`` (``(Step, representative)`` pairs from the quotient's initial state)
    represents (paper 001 Lemma 1, ``SymmetryReduction.concretize``).

    Why its last state starts a fair accepting run when the quotient part ``P`` at the
    end of ``path`` is strongly connected, accepting and closed per node (every node
    ``(r, q)`` of ``P`` takes each step of ``r`` on an edge inside ``P``): let ``H`` be
    the nodes ``(s, q)`` of the full product with ``(rep(s), q)`` in ``P``. For ``s = g r``
    a step ``s -> g t`` is the image of a step ``r -> t`` (``g`` is an automorphism, the
    formula's atoms are invariant; in a Promela layout too: detection refuses families
    whose processes can finish, so members never die, and processes started by ``run``
    are invariant), so every node of ``H`` takes each of its steps on an
    edge inside ``H``, with the acceptance of the quotient edge. A terminal SCC ``C`` of
    ``H`` reachable from the run's last node therefore takes every step of its states
    (fair, 000 Def. 4), and its projection is closed under ``P``'s edges, hence all of
    ``P`` (strongly connected), so ``C`` meets every acceptance set ``P`` meets: the
    walk covering ``C``'s edges is a fair accepting loop (001 Lemma 2)."""
    try:
        concrete, prefix, _loop = space.concretize(path, deadline=deadline)
    except TimeoutError:
        product_room = importlib.import_module("bridge.fairness.product")
        raise product_room.LimitReached("time") from None
    return concrete, prefix


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


def _fair_on_c(run: Callable[..., Verdict], system: TransitionSystem, prop: Property,
               settings: Any, options: CheckOptions, notes: list[str], space: Any = None
               ) -> Verdict:
    """Return ``run``'s verdict (``check_ltl``, ``check_never`` or
    ``check_label_cycles``) with the compiled engine's fair search (``_c_fair_search``):
    with ``auto`` and a library not built yet, the Python engine first tries
    ``AUTO_PYTHON_STATES`` states. ``space``: a symmetry quotient to search (LTL only;
    a violation there is searched again in full for a counterexample, with what is
    left of the timeout)."""
    action = space.group_action() if space is not None else None
    # The C generator built the model's state space already (``generate_model``); the
    # Python side (warm-up, replay) uses that one instead of building it again
    # (seconds at 10,000 instances, issue 13).
    full = _generated_space(system)
    warm = _warm_up_limit(system, options)
    if warm is not None and (options.max_states is None or options.max_states > warm):
        verdict = run(system, prop, dataclasses.replace(settings, max_states=warm),
                      space=space if space is not None else full)
        if verdict.reason != "state limit reached before a verdict":
            return _with_counterexample(verdict, space, lambda: run(system, prop, settings,
                                                                    space=full))
    started = time.perf_counter()
    verdict = run(system, prop, settings, space=space if space is not None else full,
                  search=_c_fair_search(system, prop, options, notes, action))
    # the full search for a counterexample gets what is left of --timeout
    return _with_counterexample(verdict, space, lambda: run(
        system, prop, dataclasses.replace(settings, timeout=_remaining(options, started)),
        space=full, search=_c_fair_search(system, prop, options, notes)))


def _generated_space(system: TransitionSystem) -> Any:
    """Return the state space of ``system`` that the C engine generated its code from
    (``engine_c.generate_model``, built once per system), for the fair checker to
    search on and to replay the C search's report on, or None (the checker builds its
    own): building a second one is 0.05-0.2 s of every check of a large model."""
    engine_c = importlib.import_module("bridge.engine_c")
    try:
        return engine_c.generate_model(system).space
    except engine_c.CUnsupported:
        return None


def _with_counterexample(verdict: Verdict, space: Any, run_full: Callable[[], Verdict]
                         ) -> Verdict:
    """Return ``verdict``, or, when it is a violation found in a symmetry quotient
    ``space`` (a lasso of representatives, not a run of the model), the verdict of the
    full search ``run_full()`` with its real counterexample (paper 001 Lemma 1 says one
    exists)."""
    if space is None or verdict.outcome is not Outcome.VIOLATED or not _is_quotient(space):
        return verdict
    if verdict.lifted:
        return verdict  # the trace is a run of the model already (_certified_part)
    full = run_full()
    reduced_size = (f"{verdict.statistics.states} states in the symmetry quotient, "
                    f"{full.statistics.states} in the full search")
    if full.outcome is Outcome.VIOLATED:
        return dataclasses.replace(full, notes=tuple(full.notes) + (
            f"violated in the symmetry quotient; the counterexample comes from a search "
            f"of the full state space ({reduced_size})",))
    if full.outcome is Outcome.UNKNOWN:
        return dataclasses.replace(verdict, trace=None, lasso=None, notes=tuple(
            verdict.notes) + ("no counterexample printed: the search of the full state "
                              f"space for one stopped at a limit ({full.reason})",))
    # The quotient and the full search disagree: a bug; the full search is the truth.
    return dataclasses.replace(full, notes=tuple(full.notes) + (
        "BUG: the symmetry-reduced search found a violation that the full search does "
        "not; the verdict is the full search's (please report this model)",))


def _reduced_space(system: TransitionSystem, prop: Property, fairness: Fairness,
                   options: CheckOptions, notes: list[str]) -> Any:
    """Return the state space wrapped with the sound reductions asked for, or None when
    none applies; the reductions room's notes (what was applied or refused, and why)
    go to ``notes``."""
    try:
        apply_reductions = _room("bridge.reductions", "apply_reductions", "reductions")
        reduction_options = _room("bridge.reductions", "ReductionOptions", "reductions")
        build = _room("bridge.semantics.statespace", "build_state_space",
                      "the compiled state space")
    except NotAvailableError as missing:
        notes.append(f"--por/--symmetry: not used: {missing}")
        return None
    full = build(system)
    # full_enabled_sets: check_ltl judges fairness on the wrapper's full_successors.
    space, reduction_notes = apply_reductions(full, system, prop, reduction_options(
        por=options.por, symmetry=options.symmetry, fairness=fairness,
        annotations=options.annotations, max_states=options.max_states,
        full_enabled_sets=True))
    notes.extend(reduction_notes)
    return None if space is full else space


def _is_quotient(space: Any) -> bool:
    try:
        quotient = _room("bridge.reductions.symmetry", "SymmetryReduction", "symmetry")
    except NotAvailableError:
        return False
    return isinstance(space, quotient)


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
        try:
            return engine_c.explore_c(system, engine_c.SearchOptions(
                max_states=options.max_states, timeout=_remaining(options, started),
                max_memory=options.max_memory, progress=options.progress))
        except (engine_c.CFallback, engine_c.CUnsupported) as fallback:
            if options.engine == "c" and isinstance(fallback, engine_c.CUnsupported):
                raise ConfigurationError(f"--engine c: {fallback}") from None
            notes.append(f"checked by the Python engine: {fallback}")
        except engine_c.EngineDisagreement as disagreement:
            notes.append(f"explored by the Python engine: {disagreement}")
    if options.timeout is not None:
        settings = dataclasses.replace(settings, timeout=_remaining(options, started))
    try:
        statistics = run(system, settings)
    except ResourceLimitReached as limit:
        if isinstance(limit.statistics, Statistics):
            limit.statistics = _tagged(limit.statistics, notes)
        raise
    return _tagged(statistics, notes)


def _tagged(statistics: Statistics, notes: list[str]) -> Statistics:
    extra = (("engine", "python"),) + tuple(("engine_note", n) for n in notes)
    return dataclasses.replace(statistics, extra=tuple(statistics.extra) + extra)


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
