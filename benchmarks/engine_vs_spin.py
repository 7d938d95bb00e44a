"""The compiled engine against SPIN's pan on the same Promela model, in the same run.

Run: ``python3 benchmarks/engine_vs_spin.py [--counters K] [--modulus M] [--scale]``.

The model is K interleaved counters mod M written in Promela (the issue 12 yardstick:
K = 5, M = 18 gives 1,889,568 states and 9,447,840 transitions). The script writes it to
a temporary directory, explores it with bridge's C engine (``bridge.api.explore`` with
``engine="c"``; compile time reported apart, and the cached library is used when the
same model was compiled before) and runs ``spin -a`` + ``cc -O2 -DNOREDUCE -DSAFETY``
(depth-first, ``-m`` above the state count) and the same with ``-DBFS``. It prints, per
engine: states, transitions, seconds, states/s, transitions/s, bytes per state (bridge:
the C state store's allocations; pan: its "total actual memory usage") and peak
resident memory, then the ratios bridge / pan. ``--python`` adds the Python engine.
The fair check row (``--fair`` alone, ``--no-fair`` to leave it out) checks
``benchmarks/models/counters.pml`` (5 counters mod 18, ``[]<> (c[0] == 0)``) under
process-weak fairness with the C engine and with ``pan -a -f`` (``-O2 -DNOREDUCE``) and
prints the same columns per product state. The notion rows (``--notions`` alone,
``--no-notions`` to leave them out) check each ``--notions-model`` (default
``case_studies/promela_le_c/le_c_6.pml``, ``case_studies/le_t/le_t_13.csp`` and 4
counters mod 18 with ``[]<> (c[0] == 0)``; assertion 1) under weak, strong-local,
process-strong and strong-global fairness, which pan has no counterpart for, with
bridge's C and Python engines, and print the ratio C / Python. ``--scale`` runs growing
models (``--sizes 5x18,5x27,6x18``: K counters mod M, each up to ``--max-states``) with
bridge only and reports what it reached.

Timings are noisy on a shared machine: compare the ratios of one run, not seconds
across runs.
"""

from __future__ import annotations

import argparse
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bridge import api  # noqa: E402
from bridge.ir import Fairness  # noqa: E402


def counters_model(k: int, m: int) -> str:
    """Return the Promela text of ``k`` interleaved counters mod ``m``."""
    kind = "byte" if m <= 256 else "short"
    return (f"{kind} c[{k}];\n"
            f"active [{k}] proctype Counter() {{\n"
            "  do\n"
            f"  :: c[_pid] = (c[_pid] + 1) % {m}\n"
            "  od\n"
            "}\n")


@dataclass
class Row:
    engine: str
    states: int
    transitions: int
    seconds: float
    bytes_per_state: float
    rss_mb: float
    note: str = ""

    def rate(self) -> float:
        return self.states / self.seconds if self.seconds > 0 else 0.0

    def trate(self) -> float:
        return self.transitions / self.seconds if self.seconds > 0 else 0.0


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_bridge(path: Path, engine: str) -> Row:
    model = api.load_model(str(path))
    started = time.perf_counter()
    [(_, statistics)] = api.explore(model, options=api.CheckOptions(engine=engine))
    wall = time.perf_counter() - started
    extra = dict(statistics.extra)
    compile_seconds = float(extra.get("compile_seconds", 0.0))
    note = f"compile {compile_seconds:.2f} s, wall {wall:.2f} s" if engine == "c" else ""
    per_state = statistics.peak_memory_bytes / statistics.states if statistics.states else 0
    return Row(f"bridge ({engine})", statistics.states, statistics.transitions,
               statistics.seconds, per_state, _rss_mb(), note)


def _tools() -> tuple[str, str]:
    spin, cc = shutil.which("spin"), shutil.which("cc") or shutil.which("gcc")
    if spin is None or cc is None:
        raise SystemExit("spin and a C compiler are needed")
    return spin, cc


def _pan_number(out: str, pattern: str) -> float:
    """Return the number ``pattern`` (one group) reads in pan's output ``out``."""
    found = re.search(pattern, out)
    if not found:
        raise SystemExit(f"cannot read pan's output ({pattern}):\n{out[-2000:]}")
    return float(found.group(1))


def run_pan(path: Path, work: Path, bfs: bool, depth: int) -> Row:
    spin, cc = _tools()
    subprocess.run([spin, "-a", path.name], cwd=work, check=True, capture_output=True)
    exe = "pan_bfs" if bfs else "pan_dfs"
    flags = ["-O2", "-DNOREDUCE", "-DSAFETY"] + (["-DBFS"] if bfs else [])
    started = time.perf_counter()
    subprocess.run([cc, *flags, "-o", exe, "pan.c"], cwd=work, check=True, capture_output=True)
    compile_seconds = time.perf_counter() - started
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    argv = [f"./{exe}"] + ([] if bfs else [f"-m{depth}"])
    done = subprocess.run(argv, cwd=work, check=False, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = done.stdout

    def number(pattern: str) -> float:
        return _pan_number(out, pattern)

    states = int(number(r"(\d+) states, stored"))
    transitions = int(number(r"(\d+) transitions \(= stored\+matched\)"))
    seconds = number(r"pan: elapsed time ([\d.e+-]+) seconds")
    memory = number(r"([\d.]+)\s+total actual memory usage")
    return Row("pan BFS" if bfs else "pan DFS", states, transitions, seconds,
               memory * 1024 * 1024 / states, max(after, before) / 1024,
               f"compile {compile_seconds:.2f} s")


def _print(rows: list[Row]) -> None:
    print(f"{'engine':<16}{'states':>12}{'transitions':>14}{'seconds':>10}{'states/s':>13}"
          f"{'trans/s':>13}{'bytes/state':>13}{'max RSS MB':>12}  note")
    for r in rows:
        print(f"{r.engine:<16}{r.states:>12}{r.transitions:>14}{r.seconds:>10.2f}"
              f"{r.rate():>13,.0f}{r.trate():>13,.0f}{r.bytes_per_state:>13.1f}"
              f"{r.rss_mb:>12.0f}  {r.note}")


def compare(k: int, m: int, python: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="bridge-vs-pan-") as tmp:
        work = Path(tmp)
        path = work / f"counters_{k}_{m}.pml"
        path.write_text(counters_model(k, m), encoding="utf-8")
        rows = [run_bridge(path, "c")]
        if python:
            rows.append(run_bridge(path, "python"))
        expected = m ** k
        rows.append(run_pan(path, work, bfs=False, depth=expected + 10))
        rows.append(run_pan(path, work, bfs=True, depth=0))
    print(f"model: {k} interleaved counters mod {m} (Promela), {expected} states expected")
    _print(rows)
    bridge = rows[0]
    for pan in rows[-2:]:
        print(f"ratio bridge(c) / {pan.engine}: states/s {bridge.rate() / pan.rate():.2f}x, "
              f"bytes/state {bridge.bytes_per_state / pan.bytes_per_state:.2f}x")
    # pan counts transitions as "stored + matched": one more than the steps (the root)
    counts = {(r.states, r.transitions - (1 if r.engine.startswith("pan") else 0))
              for r in rows}
    print("counts agree (pan's transitions count the root as well)" if len(counts) == 1
          else f"COUNTS DIFFER: {counts}")


FAIR_MODEL = Path(__file__).resolve().parent / "models" / "counters.pml"


def run_bridge_fair(path: Path, engine: str) -> Row:
    """Check the model's LTL assertion under process-weak fairness with ``engine``."""
    model = api.load_model(str(path))
    started = time.perf_counter()
    [verdict] = api.check(model, 1, options=api.CheckOptions(
        engine=engine, fairness=Fairness.PROCESS_WEAK))
    wall = time.perf_counter() - started
    statistics = verdict.statistics
    extra = dict(statistics.extra)
    if engine == "c" and extra.get("engine") != "c":
        raise SystemExit(f"the C engine did not check the fair row: {verdict.notes}")
    note = f"{verdict.outcome.value}, wall {wall:.2f} s"
    if engine == "c":
        note += f", compile {float(extra.get('compile_seconds', 0.0)):.2f} s"
    per_state = statistics.peak_memory_bytes / statistics.states if statistics.states else 0
    return Row(f"bridge ({engine})", statistics.states, statistics.transitions,
               statistics.seconds, per_state, _rss_mb(), note)


def run_pan_fair(path: Path, work: Path, depth: int) -> Row:
    """Run ``pan -a -f`` (acceptance cycles under weak fairness) on ``path``'s ltl."""
    spin, cc = _tools()
    local = work / path.name
    if local != path:
        shutil.copy(path, local)
    subprocess.run([spin, "-a", local.name], cwd=work, check=True, capture_output=True)
    started = time.perf_counter()
    subprocess.run([cc, "-O2", "-DNOREDUCE", "-DMEMLIM=8000", "-o", "pan_fair", "pan.c"],
                   cwd=work, check=True, capture_output=True)
    compile_seconds = time.perf_counter() - started
    done = subprocess.run(["./pan_fair", "-a", "-f", f"-m{depth}"], cwd=work, check=False,
                          capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = done.stdout

    def number(pattern: str) -> float:
        return _pan_number(out, pattern)

    states = int(number(r"(\d+) states, stored"))
    # under -a pan counts transitions as visited + matched
    transitions = int(number(r"([\d.e+]+) transitions \(= visited\+matched\)"))
    seconds = number(r"pan: elapsed time ([\d.e+-]+) seconds")
    memory = number(r"([\d.]+)\s+total actual memory usage")
    errors = int(number(r"errors: (\d+)"))
    return Row("pan -a -f", states, transitions, seconds, memory * 1024 * 1024 / states,
               after / 1024, f"{'violated' if errors else 'holds'}, compile "
               f"{compile_seconds:.2f} s")


def compare_fair(path: Path, python: bool) -> None:
    """The fair check row: ``path``'s first LTL assertion under process-weak fairness,
    bridge's C engine against ``pan -a -f`` (product states: bridge counts (system
    state, automaton state) pairs; pan counts its states with the claim and the
    fairness copies, so the counts differ by construction; compare states/s and bytes
    per product state)."""
    rows = [run_bridge_fair(path, "c")]
    if python:
        rows.append(run_bridge_fair(path, "python"))
    with tempfile.TemporaryDirectory(prefix="bridge-vs-pan-fair-") as tmp:
        # the depth pan reaches on counters.pml is 3,989,086; its stack is part of the
        # memory it reports, as the C search's DFS and live stacks are part of bridge's
        rows.append(run_pan_fair(path, Path(tmp), 5_000_000))
    print(f"fair check: {path.name}, its ltl under process-weak fairness (pan -a -f)")
    _print(rows)
    bridge, pan = rows[0], rows[-1]
    print(f"ratio bridge(c) / pan -a -f: states/s {bridge.rate() / pan.rate():.2f}x, "
          f"seconds {pan.seconds / bridge.seconds:.2f}x faster, "
          f"bytes/state {bridge.bytes_per_state / pan.bytes_per_state:.2f}x")


CASE_STUDIES = Path(__file__).resolve().parents[1] / "case_studies"
# the notion rows: case studies that hold under these notions (so the whole product is
# searched), and 4 counters mod 18 with the fair row's formula (written at run time)
NOTIONS_MODELS = (CASE_STUDIES / "promela_le_c" / "le_c_6.pml",
                  CASE_STUDIES / "le_t" / "le_t_13.csp")
NOTIONS = (Fairness.WEAK, Fairness.STRONG_LOCAL, Fairness.PROCESS_STRONG,
           Fairness.STRONG_GLOBAL)


def run_bridge_notion(path: Path, assertion: int, fairness: Fairness, engine: str) -> Row:
    """Check assertion ``assertion`` of ``path`` under ``fairness`` with ``engine``."""
    model = api.load_model(str(path))
    started = time.perf_counter()
    [verdict] = api.check(model, assertion, options=api.CheckOptions(
        engine=engine, fairness=fairness))
    wall = time.perf_counter() - started
    statistics = verdict.statistics
    extra = dict(statistics.extra)
    if engine == "c" and extra.get("engine") != "c":
        raise SystemExit(f"the C engine did not check {fairness.value}: {verdict.notes}")
    note = (f"{verdict.outcome.value}, wall {wall:.2f} s, early report "
            f"{extra.get('early_report')}, Fig. 5 subgraphs {extra.get('subgraphs_checked')}")
    per_state = statistics.peak_memory_bytes / statistics.states if statistics.states else 0
    short = {"strong-local": "s-local", "process-strong": "p-strong",
             "strong-global": "s-global"}.get(fairness.value, fairness.value)
    return Row(f"{'py' if engine == 'python' else engine} {short}", statistics.states, statistics.transitions,
               statistics.seconds, per_state, _rss_mb(), note)


def compare_notions(path: Path, assertion: int) -> None:
    """The notions pan has no counterpart for (it has -f, process-weak, only): bridge's
    C engine against bridge's Python engine, same model and assertion, same run."""
    if path.name == "counters":
        with tempfile.TemporaryDirectory(prefix="bridge-notions-") as tmp:
            model = Path(tmp) / "counters_4_18.pml"
            model.write_text(counters_model(4, 18) + "ltl { []<> (c[0] == 0) }\n",
                             encoding="utf-8")
            compare_notions(model, 1)
        return
    rows = []
    for fairness in NOTIONS:
        c = run_bridge_notion(path, assertion, fairness, "c")
        py = run_bridge_notion(path, assertion, fairness, "python")
        rows += [c, py]
        if (c.states, c.transitions) != (py.states, py.transitions):
            print(f"COUNTS DIFFER under {fairness.value}: {c} / {py}")
    print(f"fairness notions without a pan counterpart: {path.name}, assertion {assertion}, "
          "bridge C against bridge Python (the same product)")
    _print(rows)
    for c, py in zip(rows[::2], rows[1::2], strict=True):
        # (the Python engine's bytes per state are the process's peak resident memory
        # per state, not a store's size: no ratio of those)
        print(f"ratio {c.engine} / python: seconds {py.seconds / c.seconds:.1f}x faster")


def scale(max_states: int, sizes: list[tuple[int, int]]) -> None:
    rows = []
    for k, m in sizes:
        if m ** k > max_states:
            continue
        with tempfile.TemporaryDirectory(prefix="bridge-scale-") as tmp:
            path = Path(tmp) / f"counters_{k}_{m}.pml"
            path.write_text(counters_model(k, m), encoding="utf-8")
            row = run_bridge(path, "c")
            row.engine = f"c {k}x mod {m}"
            rows.append(row)
            print(f"{k} counters mod {m}: {row.states} states in {row.seconds:.1f} s "
                  f"({row.rate():,.0f} states/s, {row.bytes_per_state:.1f} bytes/state)",
                  flush=True)
    _print(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counters", type=int, default=5)
    parser.add_argument("--modulus", type=int, default=18)
    parser.add_argument("--python", action="store_true", help="also run the Python engine")
    parser.add_argument("--scale", action="store_true",
                        help="grow the model and report the largest state space reached")
    parser.add_argument("--max-states", type=int, default=40_000_000)
    parser.add_argument("--sizes", default="5x18,5x27,6x18",
                        help="with --scale: KxM counter models, comma separated")
    parser.add_argument("--fair", action="store_true",
                        help="only the fair check row (benchmarks/models/counters.pml "
                             "under process-weak fairness against pan -a -f)")
    parser.add_argument("--no-fair", action="store_true", help="leave the fair row out")
    parser.add_argument("--fair-model", type=Path, default=FAIR_MODEL)
    parser.add_argument("--notions", action="store_true",
                        help="only the rows of weak, strong-local, process-strong and "
                             "strong-global fairness (bridge C against bridge Python)")
    parser.add_argument("--no-notions", action="store_true", help="leave those rows out")
    parser.add_argument("--notions-model", type=Path, action="append",
                        help="a model for the notion rows (repeatable; 'counters': 4 "
                             "counters mod 18); default: le_c_6.pml, le_t_13.csp, counters")
    parser.add_argument("--notions-assertion", type=int, default=1)
    args = parser.parse_args()
    notion_models = args.notions_model or [*NOTIONS_MODELS, Path("counters")]
    if args.notions:
        for path in notion_models:
            compare_notions(path, args.notions_assertion)
    elif args.fair:
        compare_fair(args.fair_model, args.python)
    elif args.scale:
        sizes = [tuple(int(x) for x in item.split("x")) for item in args.sizes.split(",")]
        scale(args.max_states, sizes)  # type: ignore[arg-type]
    else:
        compare(args.counters, args.modulus, args.python)
        if not args.no_fair:
            compare_fair(args.fair_model, args.python)
        if not args.no_notions:
            for path in notion_models:
                compare_notions(path, args.notions_assertion)


if __name__ == "__main__":
    main()
