"""Speed of the process counter abstraction: ``python3 benchmarks/counter_abstraction.py``.

Return nothing; print, per model, the abstract states per second of the compiled
successor function (``bridge/reductions/_compile.py``, the default) and of the
interpreter (``CounterSpace(..., compiled=False)``) measured in the same run on the
same breadth-first exploration (``--states`` abstract states), and their ratio; then
the product states until the verdict with and without the early report of a fair part
(``counter._early_search``). Timings are noisy on a shared machine: compare the ratios.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import time
from pathlib import Path

from bridge.ir import Fairness
from bridge.reductions.counter import CounterSpace, analyse_counter_model, run_counter_abstraction

ROOT = Path(__file__).resolve().parents[1]
csp = importlib.import_module("bridge.frontends.csp")

# (case-study model, N, cutoff)
MODELS = [("stack/stack_anon.csp", 7, None), ("kv/kv.csp", 4, 2), ("ml/ml.csp", 10, 2)]


def load(path: str, n: int):
    text = re.sub(r"#define N \d+;", f"#define N {n};", (ROOT / "case_studies" / path).read_text())
    return csp.load_csp(Path(path).name, text).systems[0]


def rate(space: CounterSpace, limit: int) -> tuple[int, float]:
    """Return (abstract states explored, seconds) of a breadth-first exploration."""
    start = time.perf_counter()
    seen = {space.initial_state()}
    queue = list(seen)
    while queue and len(seen) < limit:
        state = queue.pop(0)
        for _step, target in space.successors(state):
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return len(seen), time.perf_counter() - start


def main(argv: list[str]) -> int:
    """Run the benchmark; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=20_000)
    args = parser.parse_args(argv)
    print(f"{'model':28} {'states':>7} {'compiled/s':>11} {'interpreted/s':>14} {'ratio':>6}")
    for path, n, cutoff in MODELS:
        ts = load(path, n)
        model = analyse_counter_model(ts, ts.properties[0].formula)
        fast = rate(CounterSpace(model, cutoff), args.states)
        slow = rate(CounterSpace(model, cutoff, compiled=False), args.states)
        r_fast, r_slow = fast[0] / fast[1], slow[0] / slow[1]
        print(f"{path} N={n} K={cutoff}".ljust(28)
              + f" {fast[0]:>7} {r_fast:>11.0f} {r_slow:>14.0f} {r_fast / r_slow:>6.1f}")
    print()
    print(f"{'stack_anon N, fairness':28} {'verdict':>9} {'early':>7} {'complete':>9}")
    for n in (5, 7):
        ts = load("stack/stack_anon.csp", n)
        for fairness in (Fairness.NONE, Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG):
            early = run_counter_abstraction(ts, ts.properties[0], fairness)
            full = run_counter_abstraction(ts, ts.properties[0], fairness, early=False)
            print(f"N={n} {fairness.value}".ljust(28)
                  + f" {early.outcome.value:>9} {early.product_states:>7} {full.product_states:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
