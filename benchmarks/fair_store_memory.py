"""What a product node costs in the C fair search (issue 13 item 1, issue 12 item 5).

Run from the repository root::

    python3 benchmarks/fair_store_memory.py [--sizes 9 11] [--fairness strong-global]
        [--timeout S] [--max-memory MB]

For each size N of TC_R (``case_studies/tc_r/tc_r_<N>.csp``, assertion 1; the files
hold N = 3..9, 11 and 13) the check runs on the C engine and prints the verdict, the
product states and transitions, the search's seconds (compiling apart), the bytes per
product node the C core reports (every array it holds: the state store, the per-node
arrays, the search stacks, at their capacities) and the peak resident set of this
process. N = 13 under strong global fairness (89,478,485 nodes) needs about 4 GB:
``ulimit -v 12000000; python3 benchmarks/fair_store_memory.py --sizes 13``.
Timings on a shared machine are noisy; the bytes per node are not.
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bridge import api  # noqa: E402
from bridge.ir import Fairness  # noqa: E402

TC_R = ROOT / "case_studies" / "tc_r"


def measure(n: int, fairness: Fairness, timeout: float | None, max_memory: int | None) -> str:
    """Return one table row for TC_R of size n."""
    [system] = api.load_model(str(TC_R / f"tc_r_{n}.csp")).systems
    prop = next(p for p in system.properties if p.formula is not None)
    v = api.check_property(system, prop, api.CheckOptions(
        engine="c", fairness=fairness, timeout=timeout, max_memory=max_memory))
    s = v.statistics
    extra = dict(s.extra)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # kB -> GB
    return (f"| {n} | {fairness.value} | {v.outcome.value} | {s.states:,} | {s.transitions:,} "
            f"| {s.seconds:.1f} | {extra.get('bytes_per_state', '-')} "
            f"| {s.peak_memory_bytes / 2**30:.2f} | {rss:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[9, 11])
    parser.add_argument("--fairness", default="strong-global")
    parser.add_argument("--timeout", type=float, default=None)
    parser.add_argument("--max-memory", type=int, default=None, help="MB")
    args = parser.parse_args()
    fairness = Fairness(args.fairness)
    print("| N | fairness | verdict | product states | transitions | seconds "
          "| bytes/node | reported GB | peak RSS GB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        memory = args.max_memory * 2**20 if args.max_memory else None
        print(measure(n, fairness, args.timeout, memory), flush=True)


if __name__ == "__main__":
    main()
