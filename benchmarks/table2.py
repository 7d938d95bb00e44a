"""Paper 000's Table 2 (population protocols) on the compiled engine, at the largest sizes.

Run: ``python3 benchmarks/table2.py [--all-sizes] [--engine c|python|auto]
[--family LE_R] [--fairness strong-global] [--timeout S] [--max-memory MB]``.

The rows are those of ``case_studies/{le_c,le_t,le_or,le_r,tc_r}/expected.toml`` whose
source is a row of pat-verification-under-fairness.txt, Table 2, plus the strong global
cells the paper left empty ("-": out of memory or more than 4 hours), which the case
studies carry as expected ``unknown``. By default only the largest size of each family
and fairness notion is run (``--all-sizes``: every size). Each row is checked with
``bridge.api.check`` on the chosen engine (default ``c``: a row the C engine cannot take
is reported, not silently run on Python) and prints: family, N, fairness, the paper's
verdict, ours, product states and transitions, seconds (the search; compile time
apart), the C state store's bytes per product state, the paper's PAT seconds (Core 2 at
2.4 GHz, 2 GB) and the ratio PAT / ours, and the paper's SPIN seconds (weak fairness
through action-as-process models; SPIN has no strong local or global fairness).

The papers' seconds come from another machine and another decade: the ratio says how
far the same question is answered faster here, not how the tools compare on one
machine (for that, see ``engine_vs_spin.py``, which runs pan in the same run). Timings
are noisy on a shared machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bridge import api, regress  # noqa: E402
from bridge.diagnostics import BridgeError  # noqa: E402

CASES = Path(__file__).resolve().parents[1] / "case_studies"
FAMILIES = {"LE_C": "le_c", "LE_T": "le_t", "LE_OR": "le_or", "LE_R": "le_r", "TC_R": "tc_r"}
SOURCE = "pat-verification-under-fairness.txt, Table 2, row "


def table2_rows(families: list[str]) -> list[tuple[str, regress.Row]]:
    """Return (family, row) for every case-study row of Table 2 in ``families``."""
    found = []
    for family in families:
        for row in regress.load_rows([CASES / FAMILIES[family]]):
            if row.reduction or not row.source.startswith(SOURCE + family + " "):
                continue
            found.append((family, row))
    return found


def largest(rows: list[tuple[str, regress.Row]]) -> list[tuple[str, regress.Row]]:
    """Return, per family and fairness, the rows of the largest size."""
    best: dict[tuple[str, str], int] = {}
    for family, row in rows:
        n = dict(row.size).get("N", 0)
        best[family, row.fairness] = max(best.get((family, row.fairness), 0), n)
    return [(f, r) for f, r in rows if dict(r.size).get("N", 0) == best[f, r.fairness]]


def run_row(row: regress.Row, engine: str, timeout: float | None,
            max_memory_mb: int | None, symmetry: bool = False) -> dict[str, object]:
    """Return the cells of one row checked with ``engine`` (and ``--symmetry``)."""
    options = api.CheckOptions(fairness=api.parse_fairness(row.fairness), timeout=timeout,
                               engine=engine, symmetry=symmetry,
                               max_memory=max_memory_mb * 2**20 if max_memory_mb else None)
    started = time.perf_counter()
    try:
        model = regress.load_row_model(row)
        [verdict] = api.check(model, row.assertion, options)
    except BridgeError as error:
        return {"got": "error", "note": " ".join(str(error).split())[:120]}
    wall = time.perf_counter() - started
    stats = verdict.statistics
    extra = dict(stats.extra)
    seconds = stats.seconds or wall
    per_state = stats.peak_memory_bytes / stats.states if stats.states else 0.0
    return {"got": verdict.outcome.value, "states": stats.states,
            "transitions": stats.transitions, "seconds": seconds, "wall": wall,
            "bytes": per_state, "engine": extra.get("engine", engine),
            "note": "" if verdict.outcome.value != "unknown" else verdict.reason}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all-sizes", action="store_true")
    parser.add_argument("--engine", default="c", choices=api.ENGINES)
    parser.add_argument("--family", action="append", choices=sorted(FAMILIES))
    parser.add_argument("--fairness", action="append")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--max-memory", type=int, default=16000, help="MB for the store")
    args = parser.parse_args()
    rows = table2_rows(args.family or list(FAMILIES))
    if not args.all_sizes:
        rows = largest(rows)
    if args.fairness:
        rows = [(f, r) for f, r in rows if r.fairness in args.fairness]
    print(f"{'family':<7}{'N':>3} {'fairness':<14}{'paper':>8}{'ours':>9}{'states':>12}"
          f"{'transitions':>13}{'seconds':>9}{'B/state':>9}{'PAT s':>8}{'PAT/ours':>9}"
          f"{'SPIN s':>8}  engine, note", flush=True)
    for family, row in rows:
        cells = run_row(row, args.engine, args.timeout, args.max_memory)
        n = dict(row.size).get("N", 0)
        pat = f"{row.paper_seconds:.1f}" if row.paper_seconds is not None else "-"
        spin = f"{row.spin_seconds:.1f}" if row.spin_seconds is not None else "-"
        seconds = cells.get("seconds")
        ratio = (f"{row.paper_seconds / seconds:.0f}x" if row.paper_seconds and seconds
                 else "-")
        states = cells.get("states")
        print(f"{family:<7}{n:>3} {row.fairness:<14}{row.expected:>8}{cells['got']:>9}"
              f"{states if states is not None else '-':>12}"
              f"{cells.get('transitions', '-'):>13}"
              f"{seconds if seconds is None else format(seconds, '.2f'):>9}"
              f"{cells.get('bytes', 0.0):>9.1f}{pat:>8}{ratio:>9}{spin:>8}  "
              f"{cells.get('engine', '-')}, {cells.get('note', '')}", flush=True)


if __name__ == "__main__":
    main()
