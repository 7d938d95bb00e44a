"""CSP# refinement on the C engine against the Python one (issue 12): one larger check,
``K`` alternating-bit protocols over lossy media against ``K`` one-place buffers
(``tests/models/csp/refines_abp.csp``, traces refinement: it holds, so the whole
product of the protocol's states and the buffers' normal form is explored).

Run: ``python3 benchmarks/refinement_c.py [--k K] [--timeout S]`` (default K = 3:
260^3 protocol states against 8 normal-form nodes). Each engine checks assertion 1
with ``--timeout`` seconds (default 60); the script prints the verdict, pairs,
transitions, seconds and pairs per second of each and the ratio C / Python of pairs
per second. The C library is compiled before the timed run (its compile time apart).
A row that hits the timeout compares how far each engine got in the same time.

Timings are noisy on a shared machine: compare the ratio of one run, and give the
load (``uptime``) with it.
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

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "tests" / "models" / "csp" / "refines_abp.csp"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=3, help="protocols side by side")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per engine")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"refines_abp_{args.k}.csp"
        path.write_text(re.sub(r"^#define K [^;]*;", f"#define K {args.k};",
                               MODEL.read_text(), count=1, flags=re.MULTILINE))
        model = api.load_model(str(path))
        started = time.perf_counter()
        api.check(model, 1, api.CheckOptions(engine="c", max_states=10))  # compile
        print(f"K = {args.k}: C library ready in {time.perf_counter() - started:.1f} s")
        rates = {}
        for engine in ("c", "python"):
            (v,) = api.check(model, 1, api.CheckOptions(engine=engine, timeout=args.timeout))
            s = v.statistics
            rate = s.states / s.seconds if s.seconds else 0.0
            rates[engine] = rate
            print(f"{engine:7} {v.outcome.value:9} {v.reason or '':28} pairs {s.states:>11,} "
                  f"transitions {s.transitions:>12,} {s.seconds:8.1f} s {rate:>12,.0f} pairs/s")
        if rates["python"]:
            print(f"C / Python pairs per second: {rates['c'] / rates['python']:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
