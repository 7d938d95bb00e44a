"""Regression runs over the published case studies: rows of ``expected.toml``, verdicts.

``load_rows`` reads every ``case_studies/<name>/expected.toml`` (DESIGN.md section 6);
``run_rows`` checks each row (model file, size, assertion, fairness) with
``bridge.api`` and compares the verdict with the paper's; ``format_table``,
``format_markdown``, ``format_junit`` and ``format_json`` (which ``bridge report``
draws) report the results.

Row format (one ``[[row]]`` table per verdict, all keys but the optional ones required):

- ``file``: the model, relative to the folder (empty in folders whose ``[case]`` says
  ``missing = "reason"``: the paper's rows are listed but cannot be run);
- ``size``: ``{ N = 5 }``; before loading, every ``#define N <v>;`` (CSP#) or
  ``#define N <v>`` (Promela) line of the file is rewritten to the row's value, and a
  size key the file does not define is an error, so a row cannot silently run at the
  wrong size;
- ``assertion``: 1-based number of the assertion in the file (or its name/text);
- ``fairness``: ``none weak strong-local strong-global process-weak process-strong``
  or ``annotated`` (no whole-system fairness; the model's ``wf/sf`` marks apply);
- ``expected``: ``holds``, ``violated`` or ``unknown`` (the papers give no verdict:
  reported, never counted as a failure);
- ``source``: paper file, table and row (or section) that states the verdict;
- optional ``paper_seconds``, ``spin_seconds``, ``paper_states`` (as printed),
  ``fast`` (finishes in a few seconds here: these rows run in CI) and ``note`` (the
  analysis of a row whose verdict we do not reproduce, or a modelling remark; shown in
  the Markdown/RESULTS table, never changes the status);
- optional ``reduction``: the reduction asked of ``bridge.api.check`` for this row
  through ``CheckOptions`` (the paper's, or one the row's note says is bridge's):
  ``"counter-abstraction"`` (process
  counter abstraction, paper 002; with optional ``cutoff = K``, counts above K become
  omega, and ``unbounded = true``, the process families are unbounded, which needs a
  cutoff), ``"symmetry"`` (paper 001 sections 4-5: no or strong global fairness) or
  ``"por"`` (partial order reduction: no, weak or process-weak fairness, annotations;
  event atoms the reduction cannot reorder around are refused). ``cutoff``
  and ``unbounded`` are allowed only with ``"counter-abstraction"``. A reduction the
  engine refuses for the row (unsound under its fairness, an event atom, no identical
  processes, ...) makes the row ``ERROR`` with the engine's reason: a reduced row never
  runs unreduced. Rows with a reduction are shown with it (``reduction`` column).
- optional ``paper_reduction``: the reduction with which the paper obtained this row's
  verdict and time, when the row itself runs without it (a *comparison row*: the same
  check on the concrete state space, next to the paper's row, which is listed with
  ``reduction`` set). The paper's time is shown with the reduction's name (the ratio
  then compares our unreduced check with the paper's reduced one), and a ``limit``
  there says that the paper's result was reduced (issue 13: such a row is not a paper
  row that stops at a limit).

Nothing here knows a verdict: they come from ``expected.toml`` only.
"""

from __future__ import annotations

import dataclasses
import html
import importlib
import multiprocessing
import re
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bridge import api
from bridge.diagnostics import BridgeError, ConfigurationError
from bridge.ir.model import ModelFile
from bridge.ir.property import Fairness
from bridge.ir.verdict import Lasso, Outcome, Trace, TraceStep, Verdict

__all__ = [
    "FAIRNESS_NAMES",
    "REDUCTION_NAMES",
    "Row",
    "RunOptions",
    "RowResult",
    "Status",
    "check_row",
    "discover_expected",
    "reduction_refusal",
    "format_junit",
    "format_case_summary",
    "format_json",
    "format_lasso",
    "format_markdown",
    "format_results_document",
    "format_table",
    "instantiate",
    "load_row_model",
    "load_rows",
    "results_json",
    "run_rows",
    "summarise",
]

FAIRNESS_NAMES = ("none", "weak", "strong-local", "strong-global", "process-weak",
                  "process-strong", "annotated")
EXPECTED_NAMES = ("holds", "violated", "unknown")
REDUCTION_NAMES = ("counter-abstraction", "symmetry", "por")


class Status:
    """Row statuses (strings, so they print and serialise as they are)."""

    PASS = "pass"  # verdict equals the paper's
    MISMATCH = "MISMATCH"  # a definite verdict different from the paper's
    REPORTED = "reported"  # the paper gives no verdict; ours is reported
    LIMIT = "limit"  # a time/state limit stopped the check before a verdict
    ERROR = "ERROR"  # the model could not be loaded or checked (message says why)
    MISSING = "missing"  # the case study has no model (reason in expected.toml)
    SKIPPED = "skipped"  # not run: outside the time budget or not selected

    FAILING = frozenset({"MISMATCH", "ERROR"})


@dataclass(frozen=True, slots=True)
class Row:
    """One expected verdict (see the module docstring for the fields)."""

    case: str
    folder: Path
    index: int  # 1-based position in expected.toml
    file: str
    size: tuple[tuple[str, int], ...]
    assertion: str
    fairness: str
    expected: str
    source: str
    paper_seconds: float | None = None
    spin_seconds: float | None = None
    paper_states: int | None = None
    fast: bool = False
    missing: str = ""
    note: str = ""
    reduction: str = ""  # "" (none) or one of REDUCTION_NAMES
    cutoff: int | None = None  # counter abstraction only
    unbounded: bool = False  # counter abstraction only
    paper_reduction: str = ""  # the paper's reduction when this row runs without it

    @property
    def path(self) -> Path:
        """Return the model file's path."""
        return self.folder / self.file

    @property
    def size_text(self) -> str:
        """Return ``N=3`` (or ``-`` for a model without a size)."""
        return ",".join(f"{k}={v}" for k, v in self.size) or "-"

    @property
    def reduction_text(self) -> str:
        """Return the reduction as shown in tables (``counter-abstraction cutoff=2``,
        ``symmetry``), or ``-`` for an unreduced row."""
        if not self.reduction:
            return "-"
        extra = [] if self.cutoff is None else [f"cutoff={self.cutoff}"]
        if self.unbounded:
            extra.append("unbounded")
        return " ".join([self.reduction, *extra])

    @property
    def key(self) -> tuple[Any, ...]:
        """Return what identifies the check: rows with equal keys share one run."""
        return (str(self.path), self.size, self.assertion, self.fairness, self.reduction,
                self.cutoff, self.unbounded)

    @property
    def name(self) -> str:
        """Return a stable test name such as ``le_r/le_r_3.csp[N=3]#1@weak``."""
        shown = self.file or "(no model)"
        reduced = f"+{self.reduction}" if self.reduction else ""
        return f"{self.case}/{shown}[{self.size_text}]#{self.assertion}@{self.fairness}" \
            f"{reduced}~{self.index}"


@dataclass(frozen=True, slots=True)
class RowResult:
    """The outcome of one row: our verdict (``got``), its statistics and status."""

    row: Row
    status: str
    got: str = "-"
    states: int | None = None
    transitions: int | None = None
    seconds: float | None = None
    message: str = ""
    lasso_text: str = ""
    ratio_text: str = ""  # the ratio as the run that measured it printed it (results_doc)


# ---------------------------------------------------------------------------------
# Reading expected.toml


def discover_expected(paths: Iterable[str | Path]) -> list[Path]:
    """Return the ``expected.toml`` files under ``paths`` (files or folders), sorted."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_file() and path.name == "expected.toml":
            found.append(path)
        elif path.is_file():
            candidate = path.parent / "expected.toml"
            if not candidate.is_file():
                raise ConfigurationError(f"{path}: no expected.toml beside it")
            found.append(candidate)
        elif path.is_dir():
            found.extend(sorted(path.rglob("expected.toml")))
        else:
            raise ConfigurationError(f"{path}: no such file or folder")
    unique = sorted({p.resolve() for p in found})
    return unique


def _number(value: Any, where: str, kind: type) -> Any:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigurationError(f"{where}: expected a number, not {value!r}")
    return kind(value)


def load_rows(paths: Iterable[str | Path], only_file: str | None = None) -> list[Row]:
    """Return every row of the ``expected.toml`` files under ``paths``, in file order.

    ``only_file``: keep only rows whose model file is this path (``bridge regress
    case_studies/le_r/le_r_3.csp``). Malformed rows raise ``ConfigurationError`` naming
    the file and row.
    """
    rows: list[Row] = []
    for toml_path in discover_expected(paths):
        try:
            data = tomllib.loads(toml_path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as error:
            raise ConfigurationError(f"{toml_path}: {error}") from None
        case = data.get("case", {})
        name = str(case.get("name") or toml_path.parent.name)
        missing = str(case.get("missing") or "")
        for index, raw in enumerate(data.get("row", []), start=1):
            rows.append(_row(toml_path, name, missing, index, raw))
    if only_file is not None:
        wanted = Path(only_file).resolve()
        rows = [r for r in rows if r.file and r.path.resolve() == wanted]
    return rows


def _row(toml_path: Path, case: str, missing: str, index: int, raw: Mapping[str, Any]) -> Row:
    where = f"{toml_path}: row {index}"
    allowed = {"file", "size", "assertion", "fairness", "expected", "source",
               "paper_seconds", "spin_seconds", "paper_states", "fast", "note",
               "reduction", "cutoff", "unbounded", "paper_reduction"}
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise ConfigurationError(f"{where}: unknown keys {', '.join(unknown)}; "
                                 f"allowed: {', '.join(sorted(allowed))}")
    fairness = str(raw.get("fairness", ""))
    if fairness not in FAIRNESS_NAMES:
        raise ConfigurationError(f"{where}: fairness {fairness!r}; allowed: "
                                 f"{', '.join(FAIRNESS_NAMES)}")
    expected = str(raw.get("expected", ""))
    if expected not in EXPECTED_NAMES:
        raise ConfigurationError(f"{where}: expected {expected!r}; allowed: "
                                 f"{', '.join(EXPECTED_NAMES)}")
    source = str(raw.get("source", "")).strip()
    if not source:
        raise ConfigurationError(f"{where}: every row needs a source (paper, table, row)")
    file = str(raw.get("file", ""))
    if not file and not missing:
        raise ConfigurationError(f"{where}: no model file (and the case is not marked "
                                 f"missing)")
    if file and not (toml_path.parent / file).is_file():
        raise ConfigurationError(f"{where}: model file {file} does not exist")
    size_raw = raw.get("size", {})
    if not isinstance(size_raw, Mapping):
        raise ConfigurationError(f"{where}: size must be a table such as {{ N = 3 }}")
    size = tuple((str(k), _number(v, f"{where}: size {k}", int)) for k, v in size_raw.items())
    if "assertion" not in raw:
        raise ConfigurationError(f"{where}: no assertion (1-based number or name)")
    reduction, cutoff, unbounded = _reduction(raw, where)
    paper_reduction = raw.get("paper_reduction", "")
    if "paper_reduction" in raw and (paper_reduction not in REDUCTION_NAMES
                                     or paper_reduction == reduction):
        raise ConfigurationError(
            f"{where}: paper_reduction {paper_reduction!r}: one of "
            f"{', '.join(REDUCTION_NAMES)}, other than the row's own reduction")
    return Row(case=case, folder=toml_path.parent, index=index, file=file, size=size,
               assertion=str(raw["assertion"]), fairness=fairness, expected=expected,
               source=source,
               paper_seconds=_number(raw.get("paper_seconds"), where, float),
               spin_seconds=_number(raw.get("spin_seconds"), where, float),
               paper_states=_number(raw.get("paper_states"), where, int),
               fast=bool(raw.get("fast", False)), missing=missing,
               note=" ".join(str(raw.get("note", "")).split()),
               reduction=reduction, cutoff=cutoff, unbounded=unbounded,
               paper_reduction=str(paper_reduction))


def _reduction(raw: Mapping[str, Any], where: str) -> tuple[str, int | None, bool]:
    """Return a row's ``(reduction, cutoff, unbounded)``; a value that is not one of
    ``REDUCTION_NAMES``, or ``cutoff``/``unbounded`` without ``"counter-abstraction"``,
    raises ``ConfigurationError`` naming the file and row."""
    value = raw.get("reduction", "")
    if not isinstance(value, str) or (value and value not in REDUCTION_NAMES):
        raise ConfigurationError(f"{where}: reduction {value!r}; allowed: "
                                 f"{', '.join(REDUCTION_NAMES)} (or no reduction key)")
    cutoff = raw.get("cutoff")
    unbounded = raw.get("unbounded", False)
    if (cutoff is not None or "unbounded" in raw) and value != "counter-abstraction":
        raise ConfigurationError(f"{where}: cutoff and unbounded apply to reduction = "
                                 f"\"counter-abstraction\" only")
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int)
                               or cutoff < 1):
        raise ConfigurationError(f"{where}: cutoff must be a positive integer, not "
                                 f"{cutoff!r}")
    if not isinstance(unbounded, bool):
        raise ConfigurationError(f"{where}: unbounded must be true or false, not "
                                 f"{unbounded!r}")
    if unbounded and cutoff is None:
        raise ConfigurationError(f"{where}: unbounded = true needs a cutoff (counts above "
                                 f"it become omega)")
    return value, cutoff, unbounded


# ---------------------------------------------------------------------------------
# Loading a row's model at its size


def instantiate(text: str, size: Sequence[tuple[str, int]], language: str,
                where: str = "model") -> str:
    """Return ``text`` with ``#define K <v>`` set to the row's size for every key.

    CSP# lines read ``#define N 3;`` and Promela lines ``#define N 3``. A key the text
    does not define raises ``ConfigurationError``.
    """
    for key, value in size:
        if language == "csp":
            pattern = re.compile(rf"^(\s*#define\s+{re.escape(key)}\s+)-?\d+(\s*;)", re.M)
        else:
            pattern = re.compile(rf"^(\s*#define\s+{re.escape(key)}\s+)-?\d+(\s*)$", re.M)
        text, count = pattern.subn(rf"\g<1>{value}\g<2>", text)
        if count == 0:
            raise ConfigurationError(f"{where}: the row sets {key}={value} but the model "
                                     f"has no '#define {key} <number>' line")
    return text


def _frontend(language: str) -> Callable[..., ModelFile]:
    module, attribute, what = {
        "csp": ("bridge.frontends.csp", "load_csp", "the CSP# front-end"),
        "promela": ("bridge.frontends.promela", "load_promela", "the Promela front-end"),
    }[language]
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError:
        raise api.NotAvailableError(f"{what} is not available in this build") from None
    found = getattr(loaded, attribute, None)
    if found is None:
        raise api.NotAvailableError(f"{what} is not available ({module}.{attribute} "
                                    f"is missing)")
    return found


def load_row_model(row: Row) -> ModelFile:
    """Return the row's model, loaded at the row's size."""
    language = api.language_of(str(row.path))
    text = instantiate(row.path.read_text(encoding="utf-8"), row.size, language,
                       str(row.path))
    load = _frontend(language)
    if language == "csp":
        return load(str(row.path), text=text)
    return load(str(row.path), text, None)


# ---------------------------------------------------------------------------------
# Checking


def _options(row: Row, timeout: float | None, max_states: int | None) -> api.CheckOptions:
    """Return the ``CheckOptions`` of a row: its fairness, limits and reduction."""
    fairness = Fairness.NONE if row.fairness == "annotated" else api.parse_fairness(
        row.fairness)
    return api.CheckOptions(fairness=fairness, timeout=timeout, max_states=max_states,
                            por=row.reduction == "por",
                            symmetry=row.reduction == "symmetry",
                            counter_abstraction=row.reduction == "counter-abstraction",
                            cutoff=row.cutoff, unbounded=row.unbounded)


def reduction_refusal(row: Row, verdict: Verdict) -> str | None:
    """Return why the engine did not use the row's reduction for ``verdict`` (its
    notes say so: ``bridge.api`` checks unreduced when a reduction is unsound or
    unavailable), or None when it was used or the row asks for none.

    Used-ness is read positively from the verdict: the symmetry room names the families
    it permutes (``symmetry: 3 instances of ...``), POR says ``partial order reduction
    applied``, the counter abstraction reports its ``abstract_states``.
    """
    if not row.reduction:
        return None
    notes = [str(n) for n in verdict.notes]
    general = [n for n in notes if n.startswith(("--por/--symmetry: not used",
                                                 "--counter-abstraction: not used"))]
    if row.reduction == "symmetry":
        refused = general + [n for n in notes if n.startswith("symmetry: not applied")]
        used = any(n.startswith("symmetry: ") and "not applied" not in n for n in notes)
    elif row.reduction == "por":
        refused = general + [n for n in notes if n.startswith("por: ")
                             and not n.startswith("por: partial order reduction applied")]
        used = any(n.startswith("por: partial order reduction applied") for n in notes)
    else:
        refused = general
        used = any(name == "abstract_states" for name, _v in verdict.statistics.extra)
    if refused:
        return "; ".join(refused)
    if not used:
        return (f"the engine's verdict does not say that {row.reduction} was applied "
                f"(notes: {'; '.join(notes) or 'none'})")
    return None


def format_lasso(lasso: Lasso, limit: int = 60) -> str:
    """Return a counterexample as text: initial valuation, prefix steps, loop steps."""
    lines = ["initial: " + ", ".join(f"{k}={v}" for k, v in lasso.prefix.initial)]

    def step_line(step: TraceStep) -> str:
        changes = ", ".join(f"{n}: {o} -> {w}" for n, o, w in step.changes)
        who = "/".join(step.processes)
        event = step.event or "tau"
        return f"  {event:<18} {who:<16} {changes}"

    prefix = lasso.prefix.steps
    if len(prefix) > limit:
        lines.append(f"prefix ({len(prefix)} steps, last {limit} shown):")
        prefix = prefix[-limit:]
    else:
        lines.append(f"prefix ({len(prefix)} steps):")
    lines.extend(step_line(s) for s in prefix)
    lines.append(f"loop ({len(lasso.loop)} steps, repeated forever):")
    lines.extend(step_line(s) for s in lasso.loop[:limit])
    if lasso.witness is not None:
        lines.append(f"fair because: {lasso.witness.explanation or lasso.witness.fairness}")
    return "\n".join(lines)


def _trace_text(trace: Trace | None) -> str:
    if trace is None:
        return ""
    return "\n".join(f"  {s.event or 'tau'} {'/'.join(s.processes)}" for s in trace.steps)


def _preflight(row: Row, model_file: ModelFile, options: api.CheckOptions) -> str | None:
    """Return why the engine will not use the row's reduction, found by a check limited
    to one state (the reductions decide, and say, before the search starts), or None.

    A refused reduction is thus reported at once instead of after a full unreduced run
    (which could also be killed at the time limit before its notes are seen).
    """
    if not row.reduction:
        return None
    probe = dataclasses.replace(options, max_states=1, progress=None,
                                timeout=30.0 if options.timeout is None
                                else min(options.timeout, 30.0))
    verdicts = api.check(model_file, row.assertion, probe)
    if len(verdicts) != 1:
        return None  # the real check reports the selection error
    return reduction_refusal(row, verdicts[0])


def check_row(row: Row, timeout: float | None = None, max_states: int | None = None,
              keep_trace: bool = False) -> RowResult:
    """Return the result of checking one row (never raises for a bad model or a limit)."""
    if row.missing or not row.file:
        return RowResult(row, Status.MISSING, message=row.missing or "no model file")
    started = time.perf_counter()
    try:
        model_file = load_row_model(row)
        options = _options(row, timeout, max_states)
        refusal = _preflight(row, model_file, options)
        if refusal is not None:
            return RowResult(row, Status.ERROR, seconds=time.perf_counter() - started,
                             message=f"reduction {row.reduction} refused: {refusal}")
        verdicts: list[Verdict] = api.check(model_file, row.assertion, options)
    except BridgeError as error:
        return RowResult(row, Status.ERROR, seconds=time.perf_counter() - started,
                         message=_one_line(error))
    except MemoryError:
        return RowResult(row, Status.LIMIT, got="unknown",
                         seconds=time.perf_counter() - started,
                         message="memory limit reached before a verdict")
    except Exception as error:  # noqa: BLE001 - an engine crash is a row error, reported
        return RowResult(row, Status.ERROR, seconds=time.perf_counter() - started,
                         message=f"internal error: {type(error).__name__}: {error}")
    seconds = time.perf_counter() - started
    if len(verdicts) != 1:
        return RowResult(row, Status.ERROR, seconds=seconds,
                         message=f"assertion {row.assertion} selected {len(verdicts)} "
                                 f"properties")
    verdict = verdicts[0]
    refusal = reduction_refusal(row, verdict)
    if refusal is not None:
        return RowResult(row, Status.ERROR, seconds=seconds,
                         message=f"reduction {row.reduction} refused: {refusal}")
    got = verdict.outcome.value
    stats = verdict.statistics
    if verdict.outcome is Outcome.UNKNOWN:
        status = Status.LIMIT
    elif row.expected == "unknown":
        status = Status.REPORTED
    elif got == row.expected:
        status = Status.PASS
    else:
        status = Status.MISMATCH
    text = ""
    if keep_trace and verdict.lasso is not None:
        text = format_lasso(verdict.lasso)
    elif keep_trace and verdict.trace is not None:
        text = _trace_text(verdict.trace)
    message = verdict.reason if verdict.outcome is not Outcome.HOLDS else ""
    if verdict.notes:
        message = "; ".join(filter(None, [message, *verdict.notes]))
    return RowResult(row, status, got=got, states=stats.states or None,
                     transitions=stats.transitions or None, seconds=seconds,
                     message=message, lasso_text=text)


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())[:300]


def _worker(row: Row, timeout: float | None, max_states: int | None, keep_trace: bool,
            connection: Any, memory_mb: int | None = None) -> None:
    if memory_mb is not None:
        # the address-space limit turns memory exhaustion into a MemoryError (a
        # ``limit`` row) instead of the machine's OOM killer ending the process
        import resource

        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        connection.send(check_row(row, timeout, max_states, keep_trace))
    finally:
        connection.close()


def default_memory_mb(jobs: int) -> int | None:
    """Return the per-check memory limit for ``jobs`` parallel checks: 80% of the
    physical memory shared among them, at least 2 GB (None if unknown)."""
    import os

    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return max(2048, int(total * 0.8 / max(1, jobs)) // (1024 * 1024))


@dataclass
class _Running:
    process: multiprocessing.Process
    connection: Any
    rows: list[Row]
    started: float
    hard_limit: float | None


@dataclass
class RunOptions:
    """How ``run_rows`` runs: a total budget, per-row limits, parallel jobs."""

    max_seconds: float | None = None  # total wall-clock budget; later rows are skipped
    timeout: float | None = None  # per row (the engine's own limit)
    max_states: int | None = None
    jobs: int = 1
    keep_traces: bool = False
    memory_mb: int | None = None  # per check; None: default_memory_mb(jobs)
    on_result: Callable[[RowResult], None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def run_rows(rows: Sequence[Row], options: RunOptions | None = None) -> list[RowResult]:
    """Return one result per row, in the rows' order.

    Rows with the same (file, size, assertion, fairness, reduction) share one check. Each check
    runs in its own process (``jobs`` at a time) and is killed if it overruns its time
    limit by more than half, so a stuck engine cannot stall the suite. With
    ``max_seconds``, checks start cheapest-first (fast rows, then by the paper's time)
    while budget remains; the per-check limit is the smaller of ``timeout`` and the
    remaining budget; rows left over are ``skipped``.
    """
    options = options or RunOptions()
    results: dict[int, RowResult] = {}
    groups: dict[Any, list[Row]] = {}
    for i, row in enumerate(rows):
        if row.missing or not row.file:
            results[i] = RowResult(row, Status.MISSING, message=row.missing or "no model")
            continue
        groups.setdefault(row.key, []).append(row)
    # fast rows first, then rows with a paper verdict before the 'unknown' ones (the
    # papers' '-' rows: out of memory or > 4 hours there), then by the paper's time and
    # by size (rows without a paper time last among equals)
    order = sorted(groups.values(), key=lambda g: (
        not any(r.fast for r in g), all(r.expected == "unknown" for r in g),
        min(r.paper_seconds if r.paper_seconds is not None else float("inf") for r in g),
        max(sum(v for _k, v in r.size) for r in g)))
    position = {id(row): i for i, row in enumerate(rows)}
    memory = options.memory_mb if options.memory_mb is not None \
        else default_memory_mb(options.jobs)
    # every check runs in a process forked from this one: import the checker's code
    # here once, so that a row's seconds are its own loading and checking
    api.import_rooms()
    begin = time.perf_counter()
    pending = list(order)
    running: list[_Running] = []
    context = multiprocessing.get_context("fork") if hasattr(multiprocessing, "get_context") \
        else multiprocessing

    def finish(group: list[Row], result: RowResult) -> None:
        for row in group:
            shared = dataclasses.replace(result, row=row)
            shared = _restatus(shared)
            results[position[id(row)]] = shared
            if options.on_result is not None:
                options.on_result(shared)

    while pending or running:
        while pending and len(running) < max(1, options.jobs):
            group = pending.pop(0)
            elapsed = time.perf_counter() - begin
            limit = options.timeout
            if options.max_seconds is not None:
                remaining = options.max_seconds - elapsed
                if remaining <= 0.5:
                    finish(group, RowResult(group[0], Status.SKIPPED,
                                            message="outside the time budget"))
                    continue
                limit = remaining if limit is None else min(limit, remaining)
            receive, send = context.Pipe(duplex=False)
            process = context.Process(target=_worker, args=(
                group[0], limit, options.max_states, options.keep_traces, send,
                memory), daemon=True)
            process.start()
            send.close()
            hard = None if limit is None else limit * 1.5 + 5.0
            running.append(_Running(process, receive, group, time.perf_counter(), hard))
        time.sleep(0.02)
        for job in list(running):
            now = time.perf_counter()
            if job.connection.poll():
                try:
                    result = job.connection.recv()
                except EOFError:
                    result = RowResult(job.rows[0], Status.ERROR, seconds=now - job.started,
                                       message="the checking process died")
                job.process.join(timeout=5)
                running.remove(job)
                finish(job.rows, result)
            elif not job.process.is_alive():
                running.remove(job)
                if job.process.exitcode == -9:  # SIGKILL: the kernel's OOM killer
                    finish(job.rows, RowResult(
                        job.rows[0], Status.LIMIT, got="unknown", seconds=now - job.started,
                        message="killed (SIGKILL, out of memory) before a verdict"))
                else:
                    finish(job.rows, RowResult(
                        job.rows[0], Status.ERROR, seconds=now - job.started,
                        message=f"the checking process died (exit code "
                                f"{job.process.exitcode})"))
            elif job.hard_limit is not None and now - job.started > job.hard_limit:
                job.process.kill()
                job.process.join(timeout=5)
                running.remove(job)
                finish(job.rows, RowResult(job.rows[0], Status.LIMIT, got="unknown",
                                           seconds=now - job.started,
                                           message="killed: time limit overrun"))
    return [results[i] for i in range(len(rows))]


def _restatus(result: RowResult) -> RowResult:
    """Return ``result`` with its status recomputed for its own row's expectation."""
    if result.status not in (Status.PASS, Status.MISMATCH, Status.REPORTED):
        return result
    row = result.row
    if row.expected == "unknown":
        status = Status.REPORTED
    elif result.got == row.expected:
        status = Status.PASS
    else:
        status = Status.MISMATCH
    return dataclasses.replace(result, status=status)


# ---------------------------------------------------------------------------------
# Reports


def summarise(results: Sequence[RowResult]) -> dict[str, int]:
    """Return the number of rows per status."""
    counts: dict[str, int] = {}
    for result in results:
        counts[result.status] = counts.get(result.status, 0) + 1
    return counts


def paper_seconds_text(row: Row) -> str:
    """Return the paper's time as shown in tables: ``5.5``, ``0.27 (counter-abstraction)``
    for a comparison row (``paper_reduction``), or ``-``."""
    if row.paper_seconds is None:
        return "-"
    if row.paper_reduction:
        return f"{row.paper_seconds:g} ({row.paper_reduction})"
    return f"{row.paper_seconds:g}"


def limit_text(result: RowResult) -> str:
    """Return the message of a ``limit`` row, saying for a comparison row that the
    paper's own result used a reduction this row does not."""
    row = result.row
    if result.status != Status.LIMIT or not row.paper_reduction:
        return result.message
    return (f"{result.message}; this row is the concrete state space: the paper's result "
            f"used {row.paper_reduction}, whose row is listed with it")


def comparison_text(results: Sequence[RowResult]) -> str:
    """Return ``" (of the limit rows, 3 are comparison rows: ...)"`` or ``""``."""
    n = sum(1 for r in results if r.status == Status.LIMIT and r.row.paper_reduction)
    if not n:
        return ""
    return (f" (of the limit rows, {n} are comparison rows: the concrete state space of "
            f"a row the paper checked with a reduction)")


HEADERS = ("model", "size", "property", "fairness", "reduction", "expected", "got",
           "states", "seconds", "paper s", "status")


def _cells(result: RowResult) -> tuple[str, ...]:
    row = result.row
    return (
        f"{row.case}/{row.file}" if row.file else row.case,
        row.size_text,
        f"#{row.assertion}",
        row.fairness,
        row.reduction_text,
        row.expected,
        result.got,
        "-" if result.states is None else str(result.states),
        "-" if result.seconds is None else f"{result.seconds:.2f}",
        paper_seconds_text(row),
        result.status,
    )


def format_table(results: Sequence[RowResult]) -> str:
    """Return the results as an aligned plain-text table with a summary line."""
    cells = [HEADERS] + [_cells(r) for r in results]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEADERS))]
    lines = ["  ".join(c[i].ljust(widths[i]) for i in range(len(HEADERS))).rstrip()
             for c in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for result in results:
        if result.status in Status.FAILING or result.status == Status.LIMIT:
            lines.append(f"{result.row.name}: {result.status}: {limit_text(result)}")
    counts = summarise(results)
    lines.append(", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return "\n".join(lines)


def format_markdown(results: Sequence[RowResult]) -> str:
    """Return a Markdown table: paper verdict and time, ours, the ratio, the source."""
    lines = [
        "| model | size | property | fairness | reduction | paper | paper s | ours | our s "
        "| ratio | states | status | source |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        row = result.row
        ratio = result.ratio_text or "-"
        if not result.ratio_text and result.seconds is not None and row.paper_seconds \
                and result.got in ("holds", "violated"):
            ratio = f"{result.seconds / row.paper_seconds:.2g}"
        note = limit_text(result) if result.status in (Status.MISSING, Status.ERROR,
                                                   Status.LIMIT, Status.SKIPPED) else ""
        status = result.status + (f" ({note})" if note else "")
        if row.note:
            status += f" [note: {row.note}]"
        lines.append("| " + " | ".join(_md(x) for x in (
            f"{row.case}/{row.file}" if row.file else row.case, row.size_text,
            f"#{row.assertion}", row.fairness, row.reduction_text, row.expected,
            paper_seconds_text(row), result.got, "-" if result.seconds is None else f"{result.seconds:.2f}", ratio,
            "-" if result.states is None else str(result.states), status,
            row.source)) + " |")
    counts = summarise(results)
    lines.append("")
    lines.append("Totals: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
                 + comparison_text(results))
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def results_json(results: Sequence[RowResult]) -> list[dict[str, Any]]:
    """Return one plain JSON object per row result: the row (model, size, property,
    fairness, reduction, expected verdict, the paper's seconds, source) and ours (got,
    states, transitions, seconds, status, message)."""
    return [{
        "model": f"{r.row.case}/{r.row.file}" if r.row.file else r.row.case,
        "case": r.row.case, "size": r.row.size_text, "property": f"#{r.row.assertion}",
        "fairness": r.row.fairness, "reduction": r.row.reduction_text,
        "expected": r.row.expected, "got": r.got, "states": r.states,
        "transitions": r.transitions, "seconds": r.seconds,
        "paper_seconds": r.row.paper_seconds, "paper_reduction": r.row.paper_reduction,
        "status": r.status, "message": limit_text(r),
        "source": r.row.source, "name": r.row.name,
    } for r in results]


def format_json(results: Sequence[RowResult]) -> str:
    """Return the results as a JSON list (``results_json``)."""
    import json

    return json.dumps(results_json(results), indent=1)


def format_junit(results: Sequence[RowResult], suite: str = "bridge-regress") -> str:
    """Return JUnit XML: one testcase per row (mismatch/error = failure, others skip)."""
    failures = sum(1 for r in results if r.status == Status.MISMATCH)
    errors = sum(1 for r in results if r.status == Status.ERROR)
    skipped = sum(1 for r in results if r.status in (Status.MISSING, Status.SKIPPED,
                                                     Status.LIMIT))
    total = sum(r.seconds or 0.0 for r in results)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuite name="{suite}" tests="{len(results)}" failures="{failures}" '
           f'errors="{errors}" skipped="{skipped}" time="{total:.3f}">']
    for result in results:
        row = result.row
        attrs = (f'classname="case_studies.{html.escape(row.case, quote=True)}" '
                 f'name="{html.escape(row.name, quote=True)}" '
                 f'time="{(result.seconds or 0.0):.3f}"')
        detail = html.escape(f"expected {row.expected}, got {result.got}; "
                             f"{result.message}; source: {row.source}", quote=True)
        if result.status == Status.MISMATCH:
            out.append(f"  <testcase {attrs}><failure message=\"{detail}\"/></testcase>")
        elif result.status == Status.ERROR:
            out.append(f"  <testcase {attrs}><error message=\"{detail}\"/></testcase>")
        elif result.status in (Status.MISSING, Status.SKIPPED, Status.LIMIT):
            out.append(f"  <testcase {attrs}><skipped message=\"{detail}\"/></testcase>")
        else:
            out.append(f"  <testcase {attrs}><system-out>{detail}</system-out></testcase>")
    out.append("</testsuite>")
    return "\n".join(out) + "\n"


RESULTS_HEADER = """# Case-study results

Every row of every table of the papers in `shared/papers/`, with the paper's verdict
and time and ours here (2 cores), and the ratio (ours / the paper's PAT time; the
papers' machines are 2008-2010 desktops, and our models are written from the papers'
descriptions, so state counts and times are comparable only roughly). Rows whose
verdict the papers do not give are `expected = unknown`; they are reported, never
counted as failures. Rows of case studies we have no model for are `missing`, with the
reason. Regenerate with:

    python3 -m bridge regress --show-missing --jobs 2 --timeout 600 --results case_studies/RESULTS.md --readme README.md

(the fast subset: `python3 -m bridge regress --fast`; the full suite with the big sizes
runs for hours, as in the papers; select rows and add `--update` to run only those and
keep the other rows as their last run printed them).

Statuses: `pass` (our verdict = the paper's), `MISMATCH`, `reported` (no paper verdict),
`limit` (no verdict: our time/state limit stopped the check, or the counter abstraction
was inconclusive; the message says which), `ERROR` (the model could not be loaded or
checked, or the engine refused the row's reduction: the message says why), `missing`
(no model), `skipped` (outside the budget). The `reduction` column names the reduction
the row asks for (the one the paper used: `counter-abstraction` for paper 002,
`symmetry` for paper 001); `-` means the concrete state space, unreduced.
"""


def format_case_summary(results: Sequence[RowResult]) -> str:
    """Return a Markdown table: per case study, rows reproduced, mismatched, reported
    (no paper verdict), not finished (limit, skipped, error, missing) and our seconds."""
    order: list[str] = []
    table: dict[str, dict[str, float]] = {}
    for result in results:
        case = result.row.case
        if case not in table:
            order.append(case)
            table[case] = dict.fromkeys(("rows", "pass", "mismatch", "reported",
                                         "unfinished", "seconds"), 0.0)
        entry = table[case]
        entry["rows"] += 1
        if result.status == Status.PASS:
            entry["pass"] += 1
        elif result.status == Status.MISMATCH:
            entry["mismatch"] += 1
        elif result.status == Status.REPORTED:
            entry["reported"] += 1
        else:
            entry["unfinished"] += 1
        entry["seconds"] += result.seconds or 0.0
    lines = ["| case study | rows | reproduced | MISMATCH | reported (no paper verdict) "
             "| not finished | our seconds (sum) |",
             "|---|---|---|---|---|---|---|"]
    for case in order:
        e = table[case]
        lines.append(f"| {case} | {e['rows']:.0f} | {e['pass']:.0f} | {e['mismatch']:.0f} "
                     f"| {e['reported']:.0f} | {e['unfinished']:.0f} | {e['seconds']:.1f} |")
    return "\n".join(lines) + "\n"


def format_results_document(results: Sequence[RowResult], preamble: str = "") -> str:
    """Return ``case_studies/RESULTS.md``: the header, ``preamble`` (the kept Notes),
    the per-case summary and the table of every row."""
    parts = [RESULTS_HEADER]
    if preamble:
        parts.append(preamble.rstrip() + "\n")
    parts.append("## Summary per case study\n")
    parts.append(format_case_summary(results))
    parts.append("## All rows\n")
    parts.append(format_markdown(results))
    return "\n".join(parts)
