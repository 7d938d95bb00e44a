"""Time the case-study rows: ``python3 benchmarks/case_studies.py [PATH...] [--all]``.

Return nothing; print one line per row (states, seconds, states/s, the paper's PAT
time and the ratio) and write ``benchmarks/case_studies.json``. By default only the
rows marked ``fast`` run; ``--all`` runs every row (the big sizes take hours, as in the
papers). The verdicts are compared by ``bridge regress``; this script reports speed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bridge import regress

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    """Run the benchmark; return 0 (1 if any row mismatched or failed)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[str(ROOT / "case_studies")])
    parser.add_argument("--all", action="store_true", help="every row, not only fast ones")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--output", default=str(ROOT / "benchmarks" / "case_studies.json"))
    args = parser.parse_args(argv)
    rows = [r for r in regress.load_rows(args.paths) if not r.missing and (args.all or r.fast)]
    results = regress.run_rows(rows, regress.RunOptions(timeout=args.timeout, jobs=args.jobs))
    records = []
    for result in results:
        row = result.row
        rate = (result.states / result.seconds) if result.states and result.seconds else None
        ratio = (result.seconds / row.paper_seconds) if result.seconds and row.paper_seconds \
            else None
        records.append({
            "row": row.name, "status": result.status, "expected": row.expected,
            "got": result.got, "states": result.states, "transitions": result.transitions,
            "seconds": result.seconds, "states_per_second": rate,
            "paper_seconds": row.paper_seconds, "paper_states": row.paper_states,
            "ratio_to_paper": ratio, "message": result.message,
        })
        print(f"{row.name:<60} {result.status:<9} states={result.states or '-':<9} "
              f"s={result.seconds or 0:.2f} rate={rate or 0:.0f}/s paper={row.paper_seconds}")
    Path(args.output).write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")
    return 1 if any(r.status in regress.Status.FAILING for r in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
