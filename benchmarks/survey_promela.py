"""Survey of public Promela models: does SPIN accept each, does bridge load it, do they agree?

Run: ``python3 benchmarks/survey_promela.py DIR [--check] [--timeout S] [--markdown OUT]``.

``DIR`` holds the models (kept outside the repository: public models are never copied
into the project). When ``DIR/MANIFEST.tsv`` exists its rows name the models (columns
``file`` relative to ``DIR``, ``repo``, ``path``, ``commit``, ``spin_accepts``,
``spin_message``); otherwise every ``*.pml``, ``*.prm`` and ``*.promela`` under ``DIR``
is a model. For each model:

1. ``spin -a`` runs in a fresh temporary directory on the model's absolute path (so
   that ``#include "f"`` resolves beside the model, as with cpp); it *accepts* the model
   when it exits 0 without an ``Error:`` line. That decides the denominator.
2. bridge loads the model (``bridge.api.load_model``) in a child process with a time
   and memory limit; the outcome is ``loads``, ``refused`` (a ``BridgeError``: its first
   line, ``file:line:col: message``) or ``traceback`` (any other exception: a bug).
3. With ``--check``, for every model SPIN accepts and bridge loads: bridge checks each
   property (``safety``, each ``ltl``, a never claim) with ``--timeout`` seconds and
   ``--max-states``, and pan checks the same (``gcc -DNOCLAIM`` and ``pan -m100000``
   for safety; ``pan -a -m100000 -N name`` for an ltl block; ``pan -a`` for a never
   claim), each with the same time limit; verdicts are compared where both finished.

``--write-manifest`` rewrites the manifest's ``spin_accepts``/``spin_message`` columns
from step 1. Timings are not recorded: the machine is shared and they are noisy.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODEL_SUFFIXES = (".pml", ".prm", ".promela")
MANIFEST_COLUMNS = ("file", "repo", "path", "commit", "spin_accepts", "spin_message")


@dataclass
class ModelEntry:
    """One row of the manifest: where the model is and where it came from."""

    file: str
    repo: str = ""
    path: str = ""
    commit: str = ""
    spin_accepts: str = ""
    spin_message: str = ""


@dataclass
class Result:
    """What the survey found for one model."""

    entry: ModelEntry
    spin_accepts: bool = False
    spin_message: str = ""
    load: str = ""  # "loads" | "refused" | "traceback" | "timeout" | "crashed"
    message: str = ""
    verdicts: dict[str, str] = field(default_factory=dict)  # bridge: name -> outcome
    pan: dict[str, str] = field(default_factory=dict)  # pan: name -> outcome


# ---------------------------------------------------------------------------------
# The models


def read_manifest(directory: Path) -> list[ModelEntry]:
    """Return the manifest's rows, or one entry per model file under ``directory``."""
    manifest = directory / "MANIFEST.tsv"
    if manifest.is_file():
        with manifest.open(encoding="utf-8", newline="") as handle:
            rows = csv.DictReader(handle, delimiter="\t")
            return [ModelEntry(**{k: (row.get(k) or "") for k in MANIFEST_COLUMNS})
                    for row in rows]
    return [ModelEntry(str(p.relative_to(directory)))
            for p in sorted(directory.rglob("*")) if p.suffix.lower() in MODEL_SUFFIXES]


def write_manifest(directory: Path, results: list[Result]) -> None:
    """Write ``MANIFEST.tsv`` with SPIN's acceptance of each model filled in."""
    with (directory / "MANIFEST.tsv").open("w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle, delimiter="\t", lineterminator="\n")
        out.writerow(MANIFEST_COLUMNS)
        for r in results:
            e = r.entry
            out.writerow([e.file, e.repo, e.path, e.commit,
                          "yes" if r.spin_accepts else "no", r.spin_message])


# ---------------------------------------------------------------------------------
# SPIN


def _limit_memory(megabytes: int):  # noqa: ANN202 - a preexec_fn
    def apply() -> None:
        os.setsid()
        limit = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def _run(argv: list[str], cwd: Path, timeout: float, memory_mb: int = 4000
         ) -> tuple[int | None, str]:
    """Return (exit status or None on timeout, stdout+stderr) of ``argv`` in ``cwd``."""
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, errors="replace", preexec_fn=_limit_memory(memory_mb))
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, _ = proc.communicate()
        return None, out
    return proc.returncode, out


def spin_accepts(model: Path, work: Path) -> tuple[bool, str]:
    """Return whether ``spin -a`` accepts ``model`` (run in ``work``) and its message."""
    status, out = _run(["spin", "-a", str(model)], work, 120)
    lines = out.splitlines()
    errors = [line.strip() for line in lines
              if re.search(r"Error:|error:|^tl_spin: expected|preprocessing failed", line)]
    if status is None:
        return False, "spin -a timed out"
    if status != 0 or errors:
        return False, (errors or [line.strip() for line in lines[-1:]] or ["(no output)"])[0]
    return True, ""


def _pan_outcome(out: str) -> str:
    errors = re.search(r"errors: (\d+)", out)
    if errors is None:
        return "unknown"
    if "pan: reached -DMEMLIM bound" in out or "max search depth too small" in out \
            and int(errors.group(1)) == 0:
        return "unknown"
    return "violated" if int(errors.group(1)) > 0 else "holds"


def pan_verdicts(model: Path, work: Path, names: list[str], never: bool,
                 timeout: float) -> dict[str, str]:
    """Return pan's outcome for ``safety`` and each ltl name (or the never claim)."""
    cc = shutil.which("gcc") or "cc"
    verdicts: dict[str, str] = {}
    status, out = _run([cc, "-w", "-O1", "-DNOCLAIM", "-DMEMLIM=2048", "-o", "pan_safety",
                        "pan.c"], work, 300)
    if status == 0:
        status, out = _run(["./pan_safety", "-m100000"], work, timeout)
        verdicts["safety"] = "timeout" if status is None else _pan_outcome(out)
    if names or never:
        status, out = _run([cc, "-w", "-O1", "-DMEMLIM=2048", "-o", "pan_claim", "pan.c"],
                           work, 300)
        if status == 0:
            for name in names or ["never"]:
                flags = ["-a", "-m100000"] + (["-N", name] if names else [])
                status, out = _run(["./pan_claim", *flags], work, timeout)
                verdicts[name] = "timeout" if status is None else _pan_outcome(out)
    return verdicts


# ---------------------------------------------------------------------------------
# bridge (in a child process: a hang or a crash must not stop the survey)


def worker(path: str, check: bool, timeout: float, max_states: int) -> dict:
    """Return what bridge does with ``path``: load outcome and, with ``check``, verdicts."""
    sys.path.insert(0, str(ROOT))
    from bridge import api
    from bridge.diagnostics import BridgeError

    result: dict = {"load": "", "message": "", "verdicts": {}, "ltl": [], "never": False}
    try:
        model = api.load_model(path)
    except BridgeError as error:
        result["load"] = "refused"
        result["message"] = str(error).splitlines()[0]
        return result
    except Exception:  # noqa: BLE001 - the survey records bugs, it does not hide them
        result["load"] = "traceback"
        result["message"] = traceback.format_exc().strip().splitlines()[-1]
        result["traceback"] = traceback.format_exc()
        return result
    result["load"] = "loads"
    pairs = model.properties()
    result["ltl"] = [p.name for _, p in pairs if p.kind.value == "ltl"]
    result["never"] = any(p.kind.value == "never" for _, p in pairs)
    if check:
        options = api.CheckOptions(timeout=timeout, max_states=max_states)
        for system, prop in pairs:
            name = "never" if prop.kind.value == "never" else prop.name
            try:
                verdict = api.check_property(system, prop, options)
                result["verdicts"][name] = verdict.outcome.value.lower()
            except BridgeError as error:
                result["verdicts"][name] = f"error: {str(error).splitlines()[0]}"
            except Exception:  # noqa: BLE001
                result["verdicts"][name] = "traceback: " + \
                    traceback.format_exc().strip().splitlines()[-1]
    return result


def run_worker(model: Path, check: bool, timeout: float, max_states: int) -> dict:
    """Return ``worker``'s answer for ``model`` from a child process (limits applied)."""
    argv = [sys.executable, __file__, "--worker", str(model), "--timeout", str(timeout),
            "--max-states", str(max_states)] + (["--check"] if check else [])
    return child_answer(argv, 120 + (timeout * 8 if check else 0))


def child_answer(argv: list[str], budget: float) -> dict:
    """Return the JSON object a worker child (``argv``) prints last, or a ``load`` of
    ``timeout``/``crashed`` when it gives none within ``budget`` seconds and 6 GB."""
    status, out = _run(argv, ROOT, budget, memory_mb=6000)
    if status is None:
        return {"load": "timeout", "message": f"no answer within {budget:.0f} s"}
    for line in reversed(out.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    tail = out.strip().splitlines()[-1:] or ["(no output)"]
    return {"load": "crashed", "message": f"exit {status}: {tail[0]}"}


def _result_from(data: dict) -> Result:
    data = dict(data)
    data["entry"] = ModelEntry(**data["entry"])
    return Result(**data)


def survey(directory: Path, check: bool, timeout: float, max_states: int,
           only: str | None = None, progress: Path | None = None) -> list[Result]:
    """Return one ``Result`` per model of ``directory`` (see the module docstring).

    With ``progress``, each result is appended to that JSON-lines file as soon as it
    is known, and models already in it are not surveyed again (a long ``--check`` run
    can be resumed)."""
    done: dict[str, Result] = {}
    if progress is not None and progress.is_file():
        for line in progress.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = _result_from(json.loads(line))
                done[r.entry.file] = r
    results = []
    for entry in read_manifest(directory):
        if only and only not in entry.file:
            continue
        if entry.file in done:
            results.append(done[entry.file])
            continue
        model = (directory / entry.file).resolve()
        result = Result(entry)
        with tempfile.TemporaryDirectory(prefix="survey-pml-") as tmp:
            work = Path(tmp)
            result.spin_accepts, result.spin_message = spin_accepts(model, work)
            answer = run_worker(model, check and result.spin_accepts, timeout, max_states)
            result.load, result.message = answer["load"], answer.get("message", "")
            result.verdicts = answer.get("verdicts", {})
            if check and result.spin_accepts and result.load == "loads":
                result.pan = pan_verdicts(model, work, answer.get("ltl", []),
                                          answer.get("never", False), timeout)
        print(f"{entry.file}: spin {'accepts' if result.spin_accepts else 'refuses'}, "
              f"bridge {result.load} {result.message}", file=sys.stderr)
        if progress is not None:
            with progress.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(asdict(result)) + "\n")
        results.append(result)
    return results


# ---------------------------------------------------------------------------------
# Report


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _agreement(r: Result) -> str:
    """Return ``agree``/``DIFFER`` over the properties both sides decided, or ``-``."""
    decided = ("holds", "violated")
    both = [k for k in r.verdicts if r.verdicts[k] in decided and r.pan.get(k) in decided]
    if not both:
        return "-"
    differ = [k for k in both if r.verdicts[k] != r.pan[k]]
    if differ:
        return "DIFFER: " + ", ".join(f"{k} bridge {r.verdicts[k]} pan {r.pan[k]}"
                                      for k in differ)
    return f"agree ({len(both)})"


def markdown(results: list[Result], check: bool) -> str:
    """Return the results table and the closing note with the rates."""
    accepted = [r for r in results if r.spin_accepts]
    loads = [r for r in accepted if r.load == "loads"]
    tracebacks = [r for r in results if r.load in ("traceback", "crashed")]
    lines = ["| model (repo/path) | spin -a accepts? | loads? | refusal message |"
             + (" verdicts (bridge vs pan) |" if check else ""),
             "|---|---|---|---|" + ("---|" if check else "")]
    for r in results:
        name = f"{r.entry.repo}/{r.entry.path}" if r.entry.repo else r.entry.file
        message = r.message if r.load != "loads" else ""
        row = (f"| {_cell(name)} | {'yes' if r.spin_accepts else 'no: ' + _cell(r.spin_message)}"
               f" | {r.load} | {_cell(message)} |")
        if check:
            row += f" {_cell(_agreement(r))} |"
        lines.append(row)
    rate = 100.0 * len(loads) / len(accepted) if accepted else 0.0
    lines += ["", f"Models: {len(results)}; `spin -a` accepts {len(accepted)}; bridge loads "
              f"{len(loads)} of those ({rate:.1f}%); Python tracebacks: {len(tracebacks)}."]
    if check:
        compared = [r for r in loads if _agreement(r) != "-"]
        differ = [r for r in compared if _agreement(r).startswith("DIFFER")]
        lines.append(f"Verdicts compared on {len(compared)} models: "
                     f"{len(compared) - len(differ)} agree on every property both decided, "
                     f"{len(differ)} differ.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?")
    parser.add_argument("--check", action="store_true", help="also compare verdicts with pan")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--max-states", type=int, default=1_000_000)
    parser.add_argument("--markdown", help="write the table to this file")
    parser.add_argument("--json", help="write the raw results to this file")
    parser.add_argument("--write-manifest", action="store_true")
    parser.add_argument("--only", help="survey only models whose file contains this")
    parser.add_argument("--progress", help="JSON-lines file: append each result, resume")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.check, args.timeout, args.max_states)))
        return 0
    if not args.directory:
        parser.error("the directory of models is required")
    directory = Path(args.directory)
    results = survey(directory, args.check, args.timeout, args.max_states, args.only,
                     Path(args.progress) if args.progress else None)
    if args.write_manifest:
        write_manifest(directory, results)
    table = markdown(results, args.check)
    if args.markdown:
        Path(args.markdown).write_text(table, encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in results], indent=1),
                                   encoding="utf-8")
    print(table.rsplit("\n\n", 1)[-1], end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
