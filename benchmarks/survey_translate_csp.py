"""Measure ``bridge translate --to csp`` on a directory of public Promela models:
``python3 benchmarks/survey_translate_csp.py DIR [--output FILE.md]``.

Return nothing; write a Markdown table (default ``benchmarks/survey_translate_csp.md``)
with one row per model that SPIN accepts (``DIR/MANIFEST.tsv``, column
``spin_accepts``; without a manifest, every ``.pml`` under ``DIR``): whether it loads,
whether it translates (else the refusal, ``file:line:col`` and the construct), whether
bridge's CSP# front-end parses the output, and for each property the verdict of ``bridge
check`` on the source and on the output (the Promela safety check against ``#assert ...
deadlockfree``, each LTL formula against its CSP# ``|=``). Each model runs in a child
process with a wall-clock limit and a memory limit; a check that reaches the state or
time limit is ``unknown`` and is not compared. The models stay outside the repository.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _one(path: str, max_states: int, timeout: float) -> dict:
    """Translate and check one model (in the child process); return a JSON-able record."""
    from bridge import api, compare
    from bridge.diagnostics import BridgeError
    from bridge.frontends.csp import load_csp

    record: dict = {"file": path, "load": "", "translate": "", "parse": "", "checks": []}
    try:
        model = api.load_model(path)
    except BridgeError as error:
        record["load"] = "refused: " + str(error).splitlines()[0]
        return record
    record["load"] = "loads"
    start = time.perf_counter()
    try:
        text = compare.translate(model, "csp")
    except BridgeError as error:
        record["translate"] = "refused: " + str(error).splitlines()[0]
        return record
    record["translate"] = "translates"
    record["translate_seconds"] = round(time.perf_counter() - start, 2)
    record["csp_lines"] = text.count("\n")
    try:
        csp = load_csp(path + ".csp", text)
    except BridgeError as error:
        record["parse"] = "refused: " + str(error).splitlines()[0]
        return record
    record["parse"] = "parses"
    options = api.CheckOptions(max_states=max_states, timeout=timeout)
    system = model.systems[0]
    record["states"] = _state_spaces(path, text, system, max_states, timeout)
    for prop, (csp_system, csp_prop) in zip(system.properties, csp.properties(), strict=True):
        source = api.check_property(system, prop, options)
        output = api.check_property(csp_system, csp_prop, options)
        record["checks"].append({
            "property": prop.name or prop.text, "source": source.outcome.value,
            "source_reason": source.reason, "source_states": source.statistics.states,
            "output": output.outcome.value, "output_reason": output.reason,
            "output_states": output.statistics.states,
        })
        if (source.outcome != output.outcome
                and "unknown" not in (source.outcome.value, output.outcome.value)):
            record["checks"][-1]["pan"] = _pan_verdict(path, prop, timeout)
    return record


def _state_spaces(path: str, text: str, system: object, max_states: int,
                  timeout: float) -> dict:
    """Return the states and transitions of the source and of ``BridgeSystem(0)`` (the
    system the LTL assertions name: one PAT step per Promela step), each explored up to
    the limits; a side that meets a model error or a limit has no counts."""
    from bridge.diagnostics import ModelRuntimeError, ResourceLimitReached
    from bridge.frontends.csp import load_csp
    from bridge.semantics.explore import ExploreOptions, explore

    csp = load_csp(path + ".csp", text + "\n#assert BridgeSystem(0) deadlockfree;\n")
    target = next(s for s in csp.systems if s.name.replace(" ", "") == "BridgeSystem(0)")
    out: dict = {}
    for side, sys_ in (("source", system), ("output", target)):
        try:
            result = explore(sys_, ExploreOptions(max_states, timeout, False))
        except ModelRuntimeError:
            out[side] = "model error"
        except ResourceLimitReached:
            out[side] = "limit"
        else:
            out[side] = [result.states, result.transitions]
    return out


def _pan_verdict(path: str, prop: object, timeout: float) -> str:
    """Return pan's verdict on the source for ``prop`` (``holds``/``violated``, or
    ``unknown``): asked only where the source and the CSP# verdicts differ."""
    from bridge.backends.spin.run import SpinOptions, run_spin
    from bridge.diagnostics import BridgeError
    from bridge.ir import PropertyKind

    kind = prop.kind  # type: ignore[attr-defined]
    base = {"timeout": max(timeout, 60.0), "include_dirs": (os.path.dirname(path),)}
    if kind is PropertyKind.SAFETY:
        options = SpinOptions(defines=("NOCLAIM",), **base)
    elif kind is PropertyKind.LTL:
        options = SpinOptions(defines=("NOREDUCE",), acceptance=True,
                              ltl=prop.name, **base)  # type: ignore[attr-defined]
    elif kind is PropertyKind.NON_PROGRESS:
        options = SpinOptions(defines=("NOREDUCE", "NOCLAIM"), non_progress=True, **base)
    elif kind in (PropertyKind.ACCEPTANCE, PropertyKind.NEVER):
        noclaim = ("NOCLAIM",) if kind is PropertyKind.ACCEPTANCE else ()
        options = SpinOptions(defines=("NOREDUCE", *noclaim), acceptance=True, **base)
    else:
        return "unknown"
    try:
        result = run_spin(Path(path).read_text(encoding="utf-8"), options)
    except BridgeError:
        return "unknown"
    if result.errors:
        return "violated"
    return "holds" if result.complete else "unknown"


def _models(directory: Path) -> list[tuple[str, str]]:
    """Return (path, repository) of every model SPIN accepts."""
    manifest = directory / "MANIFEST.tsv"
    if manifest.exists():
        with manifest.open(encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
        return [(str(directory / r["file"]), r.get("repo", "")) for r in rows
                if r.get("spin_accepts", "yes").strip() in ("yes", "true", "True", "1")]
    return [(str(p), "") for p in sorted(directory.rglob("*.pml"))]


def _run_child(path: str, args: argparse.Namespace) -> dict:
    def limit() -> None:
        memory = args.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    command = [sys.executable, __file__, "--one", path, "--max-states", str(args.max_states),
               "--timeout", str(args.timeout)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, preexec_fn=limit,
                              timeout=args.model_timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"file": path, "error": f"no answer within {args.model_timeout:.0f} s"}
    lines = [x for x in done.stdout.splitlines() if x.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"file": path, "error": f"exit {done.returncode}: {tail}"}
    return json.loads(lines[-1])


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(records: list[dict], directory: Path, args: argparse.Namespace) -> str:
    loads = [r for r in records if r.get("load") == "loads"]
    translates = [r for r in loads if r.get("translate") == "translates"]
    parses = [r for r in translates if r.get("parse") == "parses"]
    checks = [c for r in parses for c in r["checks"]]
    compared = [c for c in checks if c["source"] != "unknown" and c["output"] != "unknown"]
    agree = [c for c in compared if c["source"] == c["output"]]
    disagree = [c for c in compared if c["source"] != c["output"]]
    errors = [r for r in records if "error" in r]
    pan_output = [c for c in disagree if c.get("pan") == c["output"]]
    spaces = [r["states"] for r in parses if "states" in r]
    counted = [x for x in spaces if isinstance(x["source"], list) and isinstance(x["output"], list)]
    same = [x for x in counted if x["source"] == x["output"]]
    share = 100.0 * len(translates) / len(loads) if loads else 0.0
    out = [
        "# `bridge translate --to csp` on public Promela models",
        "",
        f"Written by `benchmarks/survey_translate_csp.py` from the models of a survey "
        f"directory (`{directory.name}/`, outside the repository) that SPIN 6.5.2 accepts "
        "(its `MANIFEST.tsv` names each model's repository, path and commit); a model is "
        "named `owner+repository/path`. Each check ran with a limit of "
        f"{args.max_states} states and {args.timeout:.0f} s; `unknown` (a limit) is not "
        "compared.",
        "",
        f"- models SPIN accepts: {len(records)}; load in bridge: {len(loads)}",
        f"- translate: {len(translates)} of {len(loads)} that load ({share:.0f}%)",
        f"- output parsed by bridge's CSP# front-end: {len(parses)} of {len(translates)}",
        f"- verdicts compared (source vs output): {len(compared)} of {len(checks)} "
        f"properties; agree {len(agree)}, disagree {len(disagree)} (pan on the source "
        f"gives the CSP# output's verdict on {len(pan_output)} of them)",
        f"- state spaces (source vs `BridgeSystem(0)`, both explored completely): "
        f"{len(counted)} of {len(parses)} models; same states and transitions: {len(same)}",
        f"- child processes that failed or timed out: {len(errors)}",
        "",
        "| model | translate | parse | verdicts (source / CSP#) | states, transitions "
        "(source / CSP#) | notes |",
        "|---|---|---|---|---|---|",
    ]
    for r in records:
        name = os.path.relpath(r["file"], directory)
        if "error" in r:
            out.append(f"| {_cell(name)} | | | | | {_cell(r['error'])} |")
            continue
        if r["load"] != "loads":
            out.append(f"| {_cell(name)} | (does not load) | | | | {_cell(r['load'])} |")
            continue
        if r["translate"] != "translates":
            message = r["translate"].removeprefix("refused: ")
            out.append(f"| {_cell(name)} | refused | | | | {_cell(message)} |")
            continue
        if r["parse"] != "parses":
            out.append(f"| {_cell(name)} | yes | NO | | | {_cell(r['parse'])} |")
            continue
        cells = []
        notes = []
        for c in r["checks"]:
            mark = ("?" if "unknown" in (c["source"], c["output"]) else
                    "=" if c["source"] == c["output"] else "DIFFERENT")
            pan = f" (pan: {c['pan']})" if "pan" in c else ""
            cells.append(f"{c['property']}: {c['source']} / {c['output']} {mark}{pan}")
            if "unknown" in (c["source"], c["output"]):
                notes.append(c["source_reason"] or c["output_reason"])
        space = r.get("states", {})
        sides = [", ".join(map(str, x)) if isinstance(x, list) else x or "?"
                 for x in (space.get("source"), space.get("output"))]
        mark = " =" if space and space["source"] == space["output"] else ""
        out.append(f"| {_cell(name)} | yes | yes | {_cell('; '.join(cells))} | "
                   f"{_cell(' / '.join(sides))}{mark} | "
                   f"{_cell('; '.join(sorted(set(n for n in notes if n))))} |")
    out.append("")
    # messages name the models by their place in the survey, not by this machine's path
    return "\n".join(out).replace(f"{directory}{os.sep}", "")


def main(argv: list[str]) -> int:
    """Run the survey; return 0 (1 if an output does not parse or a verdict differs)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--max-states", type=int, default=200_000)
    parser.add_argument("--timeout", type=float, default=60.0, help="per check (s)")
    parser.add_argument("--model-timeout", type=float, default=600.0, help="per model (s)")
    parser.add_argument("--memory-mb", type=int, default=4000)
    parser.add_argument("--jobs", type=int, default=1, help="models checked at once")
    parser.add_argument("--output", default=str(ROOT / "benchmarks" / "survey_translate_csp.md"))
    parser.add_argument("--json", default=None, help="also write the records as JSON")
    parser.add_argument("--reuse", default=None, metavar="JSON",
                        help="take the records of an earlier --json run, rerunning only "
                             "the models whose child process failed or timed out")
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(_one(args.one, args.max_states, args.timeout)))
        return 0
    if not args.directory:
        parser.error("give the directory of models")
    directory = Path(args.directory)
    records = []
    earlier: dict[str, dict] = {}
    if args.reuse:
        earlier = {r["file"]: r for r in json.loads(Path(args.reuse).read_text())
                   if "error" not in r}
    paths = [path for path, _ in _models(directory)]
    done: dict[str, dict] = {}

    def one(path: str) -> dict:
        return earlier.get(path) or _run_child(path, args)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for path, record in zip(paths, pool.map(one, paths), strict=True):
            done[path] = record
            print(f"{os.path.relpath(path, directory)}: "
                  f"{record.get('error') or record.get('translate') or record.get('load')}",
                  flush=True)
            # rewritten after every model, so a long survey leaves its table so far
            records = [done[p] for p in paths if p in done]
            Path(args.output).write_text(_table(records, directory, args), encoding="utf-8")
            if args.json:
                Path(args.json).write_text(json.dumps(records, indent=1) + "\n",
                                           encoding="utf-8")
    bad = [r for r in records if r.get("parse", "").startswith("refused")
           or any(c["source"] != c["output"] and "unknown" not in (c["source"], c["output"])
                  for c in r.get("checks", []))]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
