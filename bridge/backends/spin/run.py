"""Run SPIN on Promela text: ``spin -a``, ``cc``, ``./pan``; return a ``SpinResult``.

DESIGN.md section 5: the SPIN runner calls ``spin -a``, the C compiler and ``pan`` in a
temporary directory with time and memory limits, parses pan's output and keeps the
trail for ``replay_trail`` (``trail.py``). Each tool runs in a fresh process group with
``resource.setrlimit`` applied in the child, and the whole group is killed on timeout
(STYLE.md section 5, as Spot does for its external translators). Commands are argv
lists, never shell strings, so nothing from the model or the options reaches a shell.

Known limits: pan's own verdict is trusted as printed; a search that stopped at the
depth bound (``-m``) without errors is reported with ``depth_limit_hit`` so callers can
refuse to call it "holds" (SPIN prints "error: max search depth too small" then).
"""

from __future__ import annotations

import dataclasses
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bridge.backends.spin.pan_output import ERROR_KINDS as ERROR_KINDS
from bridge.backends.spin.pan_output import classify_error, parse_pan_output
from bridge.diagnostics import BackendError, ConfigurationError

MODEL_FILE = "model.pml"

_DEFINE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.+-]*)?$")
_FLAG = re.compile(r"^-[A-Za-z][A-Za-z0-9_.=:-]*$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True, slots=True)
class SpinOptions:
    """How to run SPIN once (every field has a safe default).

    ``timeout``: seconds for the whole pipeline (spin -a, cc, pan); ``memory_mb``: the
    address-space limit of each tool and pan's ``-DMEMLIM``. ``acceptance`` (``-a``),
    ``weak_fairness`` (``-f``, SPIN's process-level weak fairness, needs ``-a`` or
    ``-l``), ``non_progress`` (``-l``, compiles with ``-DNP``), ``ignore_end_states``
    (``-E``), ``max_depth`` (``-m``), ``hash_bits`` (``-w``). ``defines``: C macros for
    pan (``NOREDUCE``, ``SAFETY``, ``VECTORSZ=2048``); ``ltl``: the ltl block to check
    (``pan -N``); ``never_claim``: the text of a never claim given to ``spin -a -N``
    (the model must then contain no ltl block). ``extra_pan_flags``: more pan flags,
    each one ``-x``-shaped token. ``include_dirs``: directories the preprocessor
    searches for ``#include "file"`` (the model runs from a temporary directory, so a
    model that includes a file next to it needs its own directory here).
    """

    timeout: float = 60.0
    memory_mb: int = 1024
    acceptance: bool = False
    weak_fairness: bool = False
    non_progress: bool = False
    ignore_end_states: bool = False
    max_depth: int | None = None
    hash_bits: int | None = None
    defines: tuple[str, ...] = ()
    ltl: str | None = None
    never_claim: str | None = None
    extra_pan_flags: tuple[str, ...] = ()
    processes: int | None = None  # running processes, to size -DNFAIR for -f
    optimise: str = "-O0"  # pan.c of a big claim compiles in minutes at -O1 and up
    spin: str = "spin"
    cc: str = "cc"
    keep_directory: str | None = None  # copy the work directory here (debugging, ltlcross)
    include_dirs: tuple[str, ...] = ()

    def validate(self) -> None:
        """Raise ``ConfigurationError`` if a field cannot be passed on safely."""
        if self.timeout <= 0:
            raise ConfigurationError(f"timeout must be positive, got {self.timeout}")
        if self.memory_mb < 16:
            raise ConfigurationError(f"memory limit must be at least 16 MB, got {self.memory_mb}")
        for d in self.defines:
            if not _DEFINE.match(d):
                raise ConfigurationError(
                    f"bad C define {d!r}: allowed NAME or NAME=VALUE (letters, digits, _ . + -)"
                )
        for f in self.extra_pan_flags:
            if not _FLAG.match(f):
                raise ConfigurationError(f"bad pan flag {f!r}: expected one token like -w26")
        if self.ltl is not None and not _NAME.match(self.ltl):
            raise ConfigurationError(f"bad ltl name {self.ltl!r}: expected an identifier")
        if self.ltl is not None and self.never_claim is not None:
            raise ConfigurationError("give either an ltl name or a never claim, not both")
        if self.weak_fairness and not (self.acceptance or self.non_progress):
            raise ConfigurationError(
                "weak fairness (-f) needs acceptance (-a) or non-progress (-l)"
            )
        for d in self.include_dirs:
            if not Path(d).is_dir():
                raise ConfigurationError(f"include directory {d!r} is not a directory")
        if self.max_depth is not None and self.max_depth < 1:
            raise ConfigurationError(f"max depth must be positive, got {self.max_depth}")
        if self.optimise not in ("-O0", "-O1", "-O2", "-O3", "-Os"):
            raise ConfigurationError(f"bad optimisation flag {self.optimise!r}: -O0..-O3 or -Os")
        if self.hash_bits is not None and not 10 <= self.hash_bits <= 40:
            raise ConfigurationError(f"hash bits must be in 10..40, got {self.hash_bits}")

    def pan_arguments(self) -> list[str]:
        """Return pan's argv after ``./pan``."""
        argv: list[str] = []
        if self.acceptance:
            argv.append("-a")
        if self.non_progress:
            argv.append("-l")
        if self.weak_fairness:
            argv.append("-f")
        if self.ignore_end_states:
            argv.append("-E")
        if self.max_depth is not None:
            argv.append(f"-m{self.max_depth}")
        if self.hash_bits is not None:
            argv.append(f"-w{self.hash_bits}")
        if self.ltl is not None:
            argv += ["-N", self.ltl]
        argv += list(self.extra_pan_flags)
        return argv

    def cc_defines(self) -> list[str]:
        """Return the ``-D`` arguments for compiling pan.c."""
        names = list(self.defines)
        if self.non_progress and "NP" not in names:
            names.append("NP")
        if self.weak_fairness and self.processes and not any(d.startswith("NFAIR") for d in names):
            # pan's -f supports at most 4*NFAIR-2 processes, the claim included
            names.append(f"NFAIR={max(2, -(-(self.processes + 3) // 4))}")
        if not any(d.startswith("MEMLIM") for d in names):
            names.append(f"MEMLIM={self.memory_mb}")
        return [f"-D{d}" for d in names]


@dataclass(frozen=True, slots=True)
class SpinResult:
    """What one pan run found.

    ``errors``: pan's error count; ``error_kind``: one of ``ERROR_KINDS`` (or pan's own
    words for anything else), empty when there is none; ``error_message``: pan's line.
    ``complete``: the search was exhaustive (no error stopped it, no depth/memory
    bound cut it). ``trail``: the trail file's text (None if none was written).
    """

    errors: int = 0
    error_kind: str = ""
    error_message: str = ""
    error_depth: int | None = None
    states_stored: int = 0
    states_matched: int = 0
    transitions: int = 0
    memory_mb: float = 0.0
    pan_seconds: float = 0.0
    seconds: float = 0.0
    depth_reached: int = 0
    depth_limit_hit: bool = False
    out_of_memory: bool = False
    timed_out: bool = False
    complete: bool = False
    claim: str | None = None
    output: str = ""
    trail: str | None = None
    claim_text: str | None = None  # the never claim(s) spin built from ltl blocks
    stage_seconds: tuple[tuple[str, float], ...] = field(default=())

    @property
    def violated(self) -> bool:
        """Return True if pan reported an error (the property or a safety check fails)."""
        return self.errors > 0


# ---------------------------------------------------------------------------------
# Running tools


def _limits(memory_mb: int, cpu_seconds: float):  # noqa: ANN202 - returns a preexec_fn
    def apply() -> None:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        cpu = max(1, int(cpu_seconds) + 1)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


@dataclass(frozen=True, slots=True)
class _Completed:
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool
    seconds: float


def run_limited(
    argv: Sequence[str],
    cwd: str,
    timeout: float,
    memory_mb: int,
    stdin: str | None = None,
) -> _Completed:
    """Return the result of running ``argv`` in ``cwd`` under time and memory limits.

    The child gets its own process group (``start_new_session``); on timeout the whole
    group gets SIGKILL, so a ``cc`` or ``pan`` grandchild cannot outlive us. A missing
    executable raises ``BackendError``. Used by the runner and by ``spin -f`` callers.
    """
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=True,
            preexec_fn=_limits(memory_mb, timeout),
        )
    except OSError as exc:
        raise BackendError(
            list(argv), None, str(exc), message=f"cannot run {argv[0]}: {exc}"
        ) from exc
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, err = proc.communicate()
        timed_out = True
    return _Completed(
        None if timed_out else proc.returncode, out, err, timed_out, time.monotonic() - start
    )


def _kill_group(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def output_tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def tools_available(spin: str = "spin", cc: str = "cc") -> str | None:
    """Return None if spin and a C compiler are on PATH, else why not (for skips)."""
    if shutil.which(spin) is None:
        return f"{spin} is not installed"
    if shutil.which(cc) is None and shutil.which("gcc") is None:
        return "no C compiler (cc/gcc) found"
    return None


def _compiler(name: str) -> str:
    if shutil.which(name) is not None:
        return name
    if name == "cc" and shutil.which("gcc") is not None:
        return "gcc"
    return name


def run_spin(pml_text: str, options: SpinOptions | None = None) -> SpinResult:
    """Return pan's findings for the Promela text under ``options``.

    Runs ``spin -a [-N claim] model.pml``, ``cc -O1 -D... -o pan pan.c`` and ``./pan
    flags`` in a fresh temporary directory. A syntax error found by spin, a compiler
    failure, or a tool crash raises ``BackendError`` (with the stderr tail); a timeout in
    any stage returns ``SpinResult(timed_out=True)`` with what was printed so far, since
    a timeout is an answer ("unknown"), not a tool failure.
    """
    options = options or SpinOptions()
    options.validate()
    deadline = time.monotonic() + options.timeout
    stages: list[tuple[str, float]] = []
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bridge-spin-") as work:
        Path(work, MODEL_FILE).write_text(pml_text, encoding="utf-8")
        spin_argv = [options.spin, "-a"]
        spin_argv += [f"-E-I{Path(d).resolve()}" for d in options.include_dirs]
        if options.never_claim is not None:
            Path(work, "claim.nvr").write_text(options.never_claim, encoding="utf-8")
            spin_argv += ["-N", "claim.nvr"]
        spin_argv.append(MODEL_FILE)
        tool_memory = max(options.memory_mb, 2048)

        def remaining() -> float:
            return max(0.05, deadline - time.monotonic())

        done = run_limited(spin_argv, work, remaining(), tool_memory)
        stages.append(("spin", done.seconds))
        if done.timed_out:
            return _timeout_result(done, stages, start)
        if (
            done.returncode != 0
            or not Path(work, "pan.c").exists()
            or re.search(r"^spin: .*, Error: ", done.stdout, re.M)
        ):
            raise BackendError(
                spin_argv,
                done.returncode,
                output_tail(done.stdout + done.stderr),
                message="spin -a rejected the model: " + _first_error(done.stdout + done.stderr),
            )
        nvr = Path(work, "_spin_nvr.tmp")
        claim_text = nvr.read_text(encoding="utf-8", errors="replace") if nvr.exists() else None
        for attempt in range(6):  # compile again only when pan asks for a larger VECTORSZ
            cc_argv = [
                _compiler(options.cc),
                options.optimise,
                "-w",
                *options.cc_defines(),
                "-o",
                "pan",
                "pan.c",
            ]
            done = run_limited(cc_argv, work, remaining(), tool_memory)
            stages.append(("cc", done.seconds))
            if done.timed_out:
                return _timeout_result(done, stages, start)
            if done.returncode != 0:
                raise BackendError(
                    cc_argv, done.returncode, output_tail(done.stderr), message="compiling pan.c failed"
                )
            pan_argv = ["./pan", *options.pan_arguments()]
            # pan allocates its hash table up front: give the address space some room
            # beyond MEMLIM (which pan enforces itself, reporting "out of memory").
            done = run_limited(pan_argv, work, remaining(), options.memory_mb + 256)
            stages.append(("pan", done.seconds))
            trail_path = Path(work, MODEL_FILE + ".trail")
            trail = trail_path.read_text(encoding="utf-8") if trail_path.exists() else None
            if options.keep_directory is not None:
                shutil.copytree(work, options.keep_directory, dirs_exist_ok=True)
            if done.timed_out:
                return _timeout_result(done, stages, start, trail)
            output = done.stdout + done.stderr
            parsed = parse_pan_output(output)
            vector = _VECTORSZ.search(str(parsed.get("fatal", "")))
            if vector is not None and attempt < 5:
                # pan's state vector outgrew VECTORSZ: recompile with a larger one
                needed = 4 * int(vector.group(1))
                options = dataclasses.replace(options, defines=(
                    *(d for d in options.defines if not d.startswith("VECTORSZ")),
                    f"VECTORSZ={needed}"))
                continue
            if "fatal" in parsed:
                raise BackendError(
                    pan_argv, done.returncode, output_tail(output), message=f"pan: {parsed['fatal']}"
                )
            if done.returncode not in (0, None) and not parsed.get("summary"):
                raise BackendError(
                    pan_argv,
                    done.returncode,
                    output_tail(output),
                    message="pan failed: " + _first_error(output),
                )
            break
        return dataclasses.replace(
            _result_from(parsed, output, trail, stages, start), claim_text=claim_text
        )


_VECTORSZ = re.compile(r"VECTORSZ too small.*?N>(\d+)")


def _first_error(text: str) -> str:
    for line in text.splitlines():
        low = line.lower()
        if "error" in low or "syntax" in low or "fatal" in low:
            return line.strip()
    return output_tail(text, 1) or "no output"


def _timeout_result(
    done: _Completed, stages: list[tuple[str, float]], start: float, trail: str | None = None
) -> SpinResult:
    output = done.stdout + done.stderr
    parsed = parse_pan_output(output)
    return SpinResult(
        states_stored=int(parsed.get("stored", 0)),
        transitions=int(parsed.get("transitions", 0)),
        timed_out=True,
        output=output,
        trail=trail,
        seconds=time.monotonic() - start,
        stage_seconds=tuple(stages),
    )


def _result_from(
    parsed: dict[str, object],
    output: str,
    trail: str | None,
    stages: list[tuple[str, float]],
    start: float,
) -> SpinResult:
    errors = int(parsed.get("errors", 0))  # type: ignore[call-overload]
    message = str(parsed.get("error", "")) if errors else ""
    depth_limit_hit = bool(parsed["depth_limit_hit"])
    out_of_memory = bool(parsed["out_of_memory"])
    return SpinResult(
        errors=errors,
        error_kind=classify_error(message) if message else "",
        error_message=message,
        error_depth=parsed.get("error_depth") if errors else None,  # type: ignore[arg-type]
        states_stored=int(parsed.get("stored", 0)),  # type: ignore[call-overload]
        states_matched=int(parsed.get("matched", 0)),  # type: ignore[call-overload]
        transitions=int(parsed.get("transitions", 0)),  # type: ignore[call-overload]
        memory_mb=float(parsed.get("memory", 0.0)),  # type: ignore[arg-type]
        pan_seconds=float(parsed.get("elapsed", 0.0)),  # type: ignore[arg-type]
        seconds=time.monotonic() - start,
        depth_reached=int(parsed.get("depth", 0)),  # type: ignore[call-overload]
        depth_limit_hit=depth_limit_hit,
        out_of_memory=out_of_memory,
        complete=errors == 0 and not depth_limit_hit and not out_of_memory,
        claim=parsed.get("claim"),  # type: ignore[arg-type]
        output=output,
        trail=trail,
        stage_seconds=tuple(stages),
    )
