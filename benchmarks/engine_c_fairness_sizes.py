"""The C fair search against the Python one on the issue 12 rows that the C engine took
over late: an annotated model and a model of many processes, in the same run.

Run: ``python3 benchmarks/engine_c_fairness_sizes.py [--ms N] [--le N] [--timeout S]``.

Rows: ``case_studies/ms/ms_annotated.csp`` at ``--ms`` (default 100; paper 000 Table 3
row ms(100), strong fairness on the communications written as ``sf`` marks, PAT 5.5 s
with partial order reduction) with no notion beyond the model's annotations, and
``case_studies/le_pl/le_pl.csp`` at ``--le`` (default 1000 processes; 002 section 6,
LE 1000) under process-weak fairness. Each is checked (assertion 1, ``N`` rewritten in
a temporary copy) by the C engine and by the Python engine with ``--timeout`` seconds
each (default 120); the script prints the verdict, product states, transitions,
seconds and states per second of each, and the ratios C / Python of states reached and
of states per second. The C engine's compile time is reported apart (a second run uses
the cached library). Neither row finishes on the full state space here (PAT used
partial order reduction for ms, 002 the counter abstraction for LE): a row that hits
the timeout compares how far each engine got in the same time.

Timings are noisy on a shared machine: compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bridge import api  # noqa: E402
from bridge.ir import Fairness, PropertyKind  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _sized(path: Path, n: int, into: Path) -> Path:
    """Return a copy of ``path`` with ``#define N <n>;``."""
    text = re.sub(r"^#define N [^;]*;", f"#define N {n};", path.read_text(), count=1,
                  flags=re.MULTILINE)
    out = into / f"{path.stem}_{n}.csp"
    out.write_text(text)
    return out


def _row(label: str, path: Path, fairness: Fairness, timeout: float) -> None:
    [ts] = api.load_model(str(path)).systems
    prop = next(p for p in ts.properties if p.kind is PropertyKind.LTL)
    got = {}
    for engine in ("c", "python"):
        started = time.perf_counter()
        v = api.check_property(ts, prop, api.CheckOptions(engine=engine, fairness=fairness,
                                                          timeout=timeout))
        wall = time.perf_counter() - started
        s = v.statistics
        extra = dict(s.extra)
        rate = s.states / s.seconds if s.seconds else 0.0
        got[engine] = (s.states, rate)
        compile_s = extra.get("compile_seconds", "-")
        print(f"{label:28} {engine:6} {v.outcome.value:8} {s.states:>11,} {s.transitions:>12,} "
              f"{s.seconds:8.1f} {rate:>10,.0f} {wall:8.1f} {compile_s!s:>8}")
    (cs, cr), (ps, pr) = got["c"], got["python"]
    if ps and pr:
        print(f"{label:28} ratio C / Python: states reached {cs / ps:.1f}x, "
              f"states/s {cr / pr:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ms", type=int, default=100)
    parser.add_argument("--le", type=int, default=1000)
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    print(f"{'row':28} {'engine':6} {'verdict':8} {'states':>11} {'transitions':>12} "
          f"{'search s':>8} {'states/s':>10} {'wall s':>8} {'compile':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        into = Path(tmp)
        _row(f"ms_annotated N={args.ms}", _sized(ROOT / "case_studies/ms/ms_annotated.csp",
                                                  args.ms, into), Fairness.NONE, args.timeout)
        _row(f"le_pl N={args.le} process-weak", _sized(ROOT / "case_studies/le_pl/le_pl.csp",
                                                       args.le, into),
             Fairness.PROCESS_WEAK, args.timeout)


if __name__ == "__main__":
    main()
