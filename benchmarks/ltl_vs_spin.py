"""bridge's fair LTL search against SPIN on the same Promela, in the same run (issue 11).

Run from the repository root::

    python3 benchmarks/ltl_vs_spin.py [--quick] [--timeout S] [--table spin|constraints|all]

Table 1 (``spin``): per model, bridge's native check and pan on the Promela that
``bridge translate --to promela`` writes for the same model (``spin -a``, ``cc``, ``pan
-a``; ``pan -a -f`` for process-level weak fairness): verdict, product states until the
verdict (pan: states stored), seconds, bytes per product state, and bridge / pan
ratios. Models: five interleaved counters mod 18 (``benchmarks/models/counters.pml``,
3.67 million product states, ``[]<> (c[0] == 0)``, holds under process-weak fairness,
fails without) and Treiber's stack (``case_studies/stack``, N = 9, violated).

Table 2 (``constraints``): the cost of many fairness constraints on a fixed state space.
(a) ``benchmarks/models/many_events.csp`` (two counters mod M, events ``inc.i.v``) under
process-weak fairness plus n strongly fair annotated events, n = 0, 10, 100, 1000:
seconds and memory against n = 0. (b) ``benchmarks/models/many_processes.csp`` (K
processes on one shared counter) under process-strong fairness against no fairness, for
K = 10, 100, 1000.

Memory: bridge runs each check in a fresh child process and reports the growth of its
resident set during the check (peak RSS, ``VmHWM``, reset through
``/proc/self/clear_refs`` just before the check, minus the RSS at that moment, after
the model is loaded and a warm-up check), divided by the product states: RSS deltas, not
``tracemalloc`` (which slows the search several times). pan's memory is the "total
actual memory usage" it prints (hash table included). Timings on a shared machine are
noisy: the ratios come from the same run.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bridge.backends.spin.run import SpinOptions, run_spin  # noqa: E402
from bridge.regress import instantiate  # noqa: E402

MODELS = ROOT / "benchmarks" / "models"
STACK = ROOT / "case_studies" / "stack" / "stack.csp"


# ---------------------------------------------------------------------------------
# One bridge check in a child process


def _status_bytes(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0


def _reset_peak() -> bool:
    """Reset the peak resident set (VmHWM) to the current one (Linux 4.0+)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _child(request: dict) -> dict:
    """Run one check (in this process) and return what was measured."""
    from bridge import api

    model = api.load_model(request["model"], defines=request.get("defines") or None)
    options = api.CheckOptions(
        fairness=api.parse_fairness(request["fairness"]),
        annotations=tuple(api.parse_annotation(a) for a in request.get("annotations", ())),
        timeout=request.get("timeout"))
    # Warm up (Spot, the compiled successor code, imports) so that the RSS growth
    # measured next is the search's own.
    warm = api.CheckOptions(fairness=options.fairness, annotations=options.annotations,
                            max_states=1)
    api.check(model, 1, warm)
    before = _status_bytes("VmRSS")
    reset = _reset_peak()
    started = time.perf_counter()
    (verdict,) = api.check(model, 1, options)
    seconds = time.perf_counter() - started
    if reset:
        peak = _status_bytes("VmHWM")
    else:  # the process's lifetime peak: may include loading the model
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"verdict": verdict.outcome.value, "states": verdict.statistics.states,
            "transitions": verdict.statistics.transitions, "seconds": seconds,
            "grown": max(0, peak - before)}


def bridge_check(model: Path, fairness: str, annotations: tuple[str, ...] = (),
                 defines: dict[str, str] | None = None, timeout: float = 600) -> dict:
    """Return the measurements of one bridge check run in a fresh child process."""
    request = {"model": str(model), "fairness": fairness, "annotations": list(annotations),
               "defines": defines or {}, "timeout": timeout}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(request, f)
    done = subprocess.run([sys.executable, __file__, "--child", f.name], capture_output=True,
                          text=True, timeout=timeout + 120)
    Path(f.name).unlink(missing_ok=True)
    if done.returncode != 0:
        return {"verdict": "error", "states": 0, "seconds": 0.0, "grown": 0,
                "message": done.stderr.strip().splitlines()[-1:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------
# pan on bridge's Promela


def translate(model: Path, defines: dict[str, str] | None = None) -> str:
    """Return ``bridge translate --to promela`` of ``model`` (assertion 1)."""
    argv = [sys.executable, "-m", "bridge", "translate", "--to", "promela", "--assert", "1"]
    for key, value in (defines or {}).items():
        argv += ["-D", f"{key}={value}"]
    done = subprocess.run(argv + [str(model)], capture_output=True, text=True, cwd=ROOT,
                          check=True)
    return done.stdout


def pan_check(pml: str, weak_fairness: bool, timeout: float, memory_mb: int) -> dict:
    """Return pan's verdict, states stored, seconds and memory on ``pml``."""
    result = run_spin(pml, SpinOptions(timeout=timeout, memory_mb=memory_mb, acceptance=True,
                                       weak_fairness=weak_fairness, max_depth=10_000_000))
    if result.violated:
        verdict = "violated"
    elif result.complete:
        verdict = "holds"
    else:
        verdict = "unknown"
    return {"verdict": verdict, "states": result.states_stored, "seconds": result.pan_seconds,
            "total_seconds": result.seconds, "grown": int(result.memory_mb * 2**20)}


# ---------------------------------------------------------------------------------
# Tables


def _per_state(row: dict) -> str:
    # Below ~100 000 states the RSS growth is mostly the allocator's noise.
    return f"{row['grown'] / row['states']:.0f}" if row.get("states", 0) >= 100_000 else "-"


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "-"


def table_spin(quick: bool, timeout: float) -> list[str]:
    """Return the lines of Table 1 (bridge against pan)."""
    m = "8" if quick else "18"
    n = "5" if quick else "9"
    cases = [
        (f"counters M={m}", MODELS / "counters.pml", {"M": m}, "process-weak", True),
        (f"counters M={m}", MODELS / "counters.pml", {"M": m}, "none", False),
        (f"stack N={n}", STACK, {"N": n}, "none", False),
        (f"stack N={n}", STACK, {"N": n}, "process-weak", True),
    ]
    lines = ["| model | fairness (bridge / pan) | tool | verdict | states until verdict "
             "| seconds | bytes/state | time ratio | memory ratio |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, path, defines, fairness, pan_f in cases:
        model = path
        if path.suffix == ".csp":
            text = instantiate(path.read_text(), list((k, int(v)) for k, v in defines.items()), "csp")
            model = Path(tempfile.mkdtemp()) / path.name
            model.write_text(text)
            defines = {}
        ours = bridge_check(model, fairness, defines=defines, timeout=timeout)
        pml = translate(model, defines)
        pan = pan_check(pml, pan_f, timeout, memory_mb=8000)
        flags = "pan -a -f" if pan_f else "pan -a"
        lines.append(f"| {name} | {fairness} / {flags} | bridge | {ours['verdict']} | "
                     f"{ours['states']} | {ours['seconds']:.2f} | {_per_state(ours)} | "
                     f"{_ratio(ours['seconds'], pan['seconds'])} | "
                     f"{_ratio(ours['grown'], pan['grown'])} |")
        lines.append(f"| {name} | | {flags} | {pan['verdict']} | {pan['states']} | "
                     f"{pan['seconds']:.2f} (all stages {pan['total_seconds']:.1f}) | "
                     f"{_per_state(pan)} | 1 | 1 |")
        print("\n".join(lines[-2:]), file=sys.stderr, flush=True)
    return lines


def table_constraints(quick: bool, timeout: float) -> list[str]:
    """Return the lines of Table 2 (the cost of many fairness constraints)."""
    lines = ["| model | constraints | verdict | states | seconds | grown MB | time / base "
             "| memory / base |", "|---|---|---|---|---|---|---|---|"]
    m = 40 if quick else 500
    events = MODELS / "many_events.csp"
    model = Path(tempfile.mkdtemp()) / events.name
    model.write_text(instantiate(events.read_text(), [("M", m)], "csp"))
    base = None
    for n in (0, 10, 100, 1000):
        if n > 2 * m:
            continue
        marks = tuple(f"sf:inc.{v // m}.{v % m}" for v in range(n))
        row = bridge_check(model, "process-weak", marks, timeout=timeout)
        base = base or row
        lines.append(f"| two counters mod {m} | process-weak + {n} sf events | {row['verdict']} | "
                     f"{row['states']} | {row['seconds']:.2f} | {row['grown'] / 2**20:.1f} | "
                     f"{_ratio(row['seconds'], base['seconds'])} | "
                     f"{_ratio(row['grown'], base['grown'])} |")
        print(lines[-1], file=sys.stderr, flush=True)
    processes = MODELS / "many_processes.csp"
    for k in ((10, 100) if quick else (10, 100, 1000)):
        model = Path(tempfile.mkdtemp()) / processes.name
        model.write_text(instantiate(processes.read_text(), [("K", k), ("M", 1000)], "csp"))
        plain = bridge_check(model, "none", timeout=timeout)
        fair = bridge_check(model, "process-strong", timeout=timeout)
        for label, row in (("none", plain), ("process-strong", fair)):
            lines.append(f"| {k} processes, counter mod 1000 | {label} | {row['verdict']} | "
                         f"{row['states']} | {row['seconds']:.2f} | {row['grown'] / 2**20:.1f} | "
                         f"{_ratio(row['seconds'], plain['seconds'])} | "
                         f"{_ratio(row['grown'], plain['grown'])} |")
            print(lines[-1], file=sys.stderr, flush=True)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per check")
    parser.add_argument("--table", choices=("spin", "constraints", "all"), default="all")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(json.loads(Path(args.child).read_text()))))
        return 0
    if args.table in ("spin", "all"):
        print("\n".join(table_spin(args.quick, args.timeout)) + "\n")
    if args.table in ("constraints", "all"):
        print("\n".join(table_constraints(args.quick, args.timeout)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
