"""Survey: which public models that load in bridge run on the C engine, and why not the others?

Run: ``python3 benchmarks/survey_engine_c.py [--promela DIR]... [--csp DIR]...
[--timeout S] [--json OUT] [--markdown OUT]``.

The model directories are the ones the load surveys read (kept outside the repository):
``--promela`` a directory of ``benchmarks/survey_promela.py`` (its ``MANIFEST.tsv``:
only the models ``spin -a`` accepts), ``--csp`` one of ``benchmarks/survey_csp.py``
(only CSP# models PAT accepts). Each model is loaded in a child process (time and memory
limits, so a hang cannot stop the survey); for every model that loads, the child asks
the question ``--engine auto`` asks before a check:

- the system (exploring it): ``bridge.engine_c.driver.supports(system)``, then the
  count of instances with C code of their own (``api._compiled.AUTO_C_MAX_OWN_CODE``: ``auto``
  leaves a system with more to the Python engine);
- each property: ``supports(system, prop)`` for deadlock freedom, non-termination,
  safety, invariants and reaches; ``ltl_supports`` (with the automaton of the negated
  formula, no fairness unless the assertion names one) for an LTL property.

Properties left to other work are counted apart and not asked about: never claims,
progress and accept labels (``non-progress``/``acceptance``), ``deterministic``/
``divergencefree``, and ``refines`` (checked by the Python engine by design). The
refusal messages are tallied by reason (the message with its numbers and quoted names
blanked). ``supports`` only generates the C source; with ``--compile`` the child also
builds the library of each system the C engine takes (``driver.compile_model``; set
``BRIDGE_CACHE_DIR`` to keep these libraries out of the usual cache), so a source the C
compiler rejects is a refusal too, and the compile time is recorded (noisy: the
machine is shared).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import traceback
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from survey_csp import model_file as csp_model_file  # noqa: E402
from survey_csp import read_manifest as csp_manifest  # noqa: E402
from survey_promela import child_answer  # noqa: E402
from survey_promela import read_manifest as promela_manifest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LEFT_APART = ("never", "non-progress", "acceptance", "deterministic", "divergencefree",
              "refines")


@dataclass
class ModelResult:
    """What the survey found for one model: load outcome, and per task the answer."""

    language: str
    name: str
    load: str = ""  # "loads" | "refused" | "traceback" | "timeout" | "crashed"
    message: str = ""
    instances: int = 0
    system: str = ""  # "" (runs in C) or the refusal
    properties: dict[str, str] = field(default_factory=dict)  # name -> "" or refusal
    apart: list[str] = field(default_factory=list)  # kinds not asked about
    compile_seconds: float | None = None  # with --compile: the first system's build


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


def worker(path: str, build: bool = False) -> dict:
    """Return the engine choice of ``--engine auto`` for the model in ``path``; with
    ``build``, the C library of the first system is built too."""
    sys.path.insert(0, str(ROOT))
    from bridge import api
    from bridge.automata.ltl import translate_formula
    from bridge.diagnostics import BridgeError
    from bridge.engine_c.driver import compile_model, ltl_supports, own_code_count, supports
    from bridge.engine_c.gen_base import CUnsupported
    from bridge.ir import Fairness, PropertyKind

    out: dict = {"load": "", "message": "", "instances": 0, "system": "",
                 "properties": {}, "apart": [], "compile_seconds": None}
    try:
        model = api.load_model(path)
        pairs = model.properties()
    except BridgeError as error:
        out["load"], out["message"] = "refused", _first_line(str(error))
        return out
    except Exception:  # noqa: BLE001 - the survey records bugs, it does not hide them
        out["load"] = "traceback"
        out["message"] = traceback.format_exc().strip().splitlines()[-1]
        return out
    out["load"] = "loads"

    def ask(system, prop) -> str:  # noqa: ANN001
        try:
            if prop is not None and prop.kind is PropertyKind.LTL:
                na = translate_formula(prop.formula)
                ok, why = ltl_supports(system, prop, list(na.binding.atoms),
                                       prop.fairness or Fairness.NONE, na.buchi.num_sets,
                                       na.buchi.num_states)
            else:
                ok, why = supports(system, prop)
        except BridgeError as error:
            return f"error: {_first_line(str(error))}"
        except Exception:  # noqa: BLE001
            return "traceback: " + traceback.format_exc().strip().splitlines()[-1]
        if ok and own_code_count(system) > api._compiled.AUTO_C_MAX_OWN_CODE:
            return (f"auto: more than {api._compiled.AUTO_C_MAX_OWN_CODE} process instances with "
                    f"code of their own ({own_code_count(system)})")
        return "" if ok else why

    systems: list = []
    for k, (system, prop) in enumerate(pairs):
        if all(system is not s for s in systems):
            systems.append(system)
            if len(systems) == 1:
                out["instances"] = len(system.processes)
                out["system"] = ask(system, None)
                if build and not out["system"]:
                    try:
                        out["compile_seconds"] = compile_model(system).compile_seconds
                    except CUnsupported as why:
                        out["system"] = f"the C engine does not translate {why}"
        if prop.kind.value in LEFT_APART:
            out["apart"].append(prop.kind.value)
            continue
        out["properties"][f"{k}:{prop.kind.value}:{prop.name}"] = ask(system, prop)
    if not pairs:
        system = getattr(model, "system", None)
        if system is not None:
            out["instances"] = len(system.processes)
            out["system"] = ask(system, None)
    return out


def run_worker(model: Path, timeout: float, build: bool = False) -> dict:
    """Return ``worker``'s answer for ``model`` from a child process (limits applied)."""
    argv = [sys.executable, __file__, "--worker", str(model)] + (["--compile"] if build else [])
    return child_answer(argv, timeout)


def models(promela: list[Path], csp: list[Path]) -> list[tuple[str, str, Path]]:
    """Return ``(language, name, path)`` of every model the reference tool accepts."""
    found = []
    for directory in promela:
        for e in promela_manifest(directory):
            if e.spin_accepts in ("yes", ""):
                found.append(("promela", f"{e.repo}/{e.path}" if e.repo else e.file,
                              directory / e.file))
    for directory in csp:
        for row in csp_manifest(directory):
            if row.kind == "pat" and not row.pat_rejects:
                found.append(("csp", f"{row.repo}/{row.path}", csp_model_file(directory, row)))
    return found


# ---------------------------------------------------------------------------------
# Tally


def reason_key(message: str) -> str:
    """Return ``message`` with its particulars blanked, so that refusals group."""
    key = re.sub(r"^the C engine does not translate ", "", message)
    key = re.sub(r"'[^']*'", "'_'", key)
    key = re.sub(r"\b\d[\d,_.]*\b", "N", key)
    return key if len(key) <= 140 else key[:137] + "..."


def tally(results: list[ModelResult], language: str) -> list[str]:
    """Return the markdown lines of the tally for ``language``."""
    mine = [r for r in results if r.language == language]
    loads = [r for r in mine if r.load == "loads"]
    system_ok = [r for r in loads if not r.system]
    props = [(r, v) for r in loads for v in r.properties.values()]
    props_ok = [v for _, v in props if not v]
    all_ok = [r for r in system_ok if all(not v for v in r.properties.values())]
    apart = Counter(k for r in loads for k in r.apart)
    lines = [
        f"- models the reference tool accepts: {len(mine)}; they load in bridge: "
        f"{len(loads)} (not loaded in the survey's time limit or refused: "
        f"{len(mine) - len(loads)})",
        f"- of those, the C engine explores the system: **{len(system_ok)} of {len(loads)}**; "
        f"it takes every asked property too: **{len(all_ok)} of {len(loads)}**",
        f"- properties asked about: {len(props)}; the C engine takes **{len(props_ok)}**",
        "- properties not asked about (other work): "
        + (", ".join(f"{k} {n}" for k, n in sorted(apart.items())) or "none"),
    ]
    built = sorted((r.compile_seconds, r.name) for r in loads if r.compile_seconds is not None)
    if built:
        median = built[len(built) // 2][0]
        lines.append(f"- libraries built (`--compile`): {len(built)}; compile time median "
                     f"{median:.1f} s, longest {built[-1][0]:.1f} s ({built[-1][1]}; "
                     "noisy: shared machine)")
    lines += [
        "",
        "| refusal (particulars blanked) | models (system) | properties |",
        "|---|---|---|",
    ]
    by_system = Counter(reason_key(r.system) for r in loads if r.system)
    by_prop = Counter(reason_key(v) for _, v in props if v)
    for key in sorted(set(by_system) | set(by_prop),
                      key=lambda k: (-by_system[k] - by_prop[k], k)):
        cell = key.replace("|", "\\|")
        lines.append(f"| {cell} | {by_system[key]} | {by_prop[key]} |")
    if not by_system and not by_prop:
        lines.append("| (none) | 0 | 0 |")
    not_loaded = [r for r in mine if r.load != "loads"]
    if not_loaded:
        lines += ["", "Not loaded within the survey's limits: " + "; ".join(
            f"{r.name} ({r.load})" for r in not_loaded) + "."]
    return lines


def markdown(results: list[ModelResult]) -> str:
    """Return the tallies of both languages."""
    lines: list[str] = []
    for language in ("promela", "csp"):
        if any(r.language == language for r in results):
            lines += [f"### {'Promela' if language == 'promela' else 'CSP#'}", ""]
            lines += tally(results, language) + [""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--promela", action="append", default=[], type=Path)
    parser.add_argument("--csp", action="append", default=[], type=Path)
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds for loading one model and asking about it")
    parser.add_argument("--compile", action="store_true",
                        help="also build the C library of each system the C engine takes")
    parser.add_argument("--only", help="survey only models whose name contains this")
    parser.add_argument("--json", help="write the raw results to this file")
    parser.add_argument("--markdown", help="write the tally to this file")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.compile)))
        return 0
    results = []
    for language, name, path in models(args.promela, args.csp):
        if args.only and args.only not in name:
            continue
        answer = run_worker(path.resolve(), args.timeout, args.compile)
        result = ModelResult(language, name, **answer)
        refusals = [v for v in result.properties.values() if v]
        print(f"{name}: {result.load} {result.message} system: {result.system or 'C'}; "
              f"properties refused {len(refusals)}/{len(result.properties)}",
              file=sys.stderr)
        results.append(result)
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in results], indent=1),
                                   encoding="utf-8")
    text = markdown(results)
    if args.markdown:
        Path(args.markdown).write_text(text, encoding="utf-8")
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
