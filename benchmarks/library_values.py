"""PAT's library classes on both engines (issue 12 item 1): states/s and bytes per state.

Run from the repository root::

    python3 benchmarks/library_values.py [--n 8 10]

For each N, ``benchmarks/models/library_values.csp`` (N tokens in a Set, a Queue of at
most 4 elements shared by three producers and a consumer: 2^N * 121 states) is
explored by the C engine (library values interned by content, ``templates/c/
library.c``; compiling reported apart) and by the Python engine (tuples in the state),
and the ratio of their states per second is printed. The counts must agree. Timings on
a shared machine are noisy: compare the ratio of one run, not seconds across runs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bridge import api  # noqa: E402

MODEL = ROOT / "benchmarks" / "models" / "library_values.csp"


def row(n: int) -> str:
    """Return one table row for N tokens."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"library_values_{n}.csp"
        path.write_text(MODEL.read_text(encoding="utf-8").replace(
            "#define N 8;", f"#define N {n};"), encoding="utf-8")
        model = api.load_model(str(path))
    got = {}
    for engine in ("c", "python"):
        [(_, stats)] = api.explore(model, options=api.CheckOptions(engine=engine))
        got[engine] = stats
    c, py = got["c"], got["python"]
    assert (c.states, c.transitions) == (py.states, py.transitions), "the engines disagree"
    extra = dict(c.extra)
    rate = {e: s.states / s.seconds if s.seconds > 0 else float("inf") for e, s in got.items()}
    per = {e: s.peak_memory_bytes / s.states if s.states else 0.0 for e, s in got.items()}
    return (f"{n:>3} {c.states:>10,} {c.transitions:>12,} {rate['c']:>12,.0f} "
            f"{rate['python']:>12,.0f} {rate['c'] / rate['python']:>7.1f}x "
            f"{per['c']:>8.1f} {per['python']:>8.1f} {extra.get('compile_seconds', 0):>8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[8])
    args = parser.parse_args()
    print("  N     states  transitions    C states/s  Py states/s   ratio   C B/st  Py B/st"
          "  compile s")
    for n in args.n:
        print(row(n), flush=True)


if __name__ == "__main__":
    main()
