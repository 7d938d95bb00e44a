"""The case studies' symmetry rows (paper 001 Table 1, LE_R) on the C engine (issue 13).

Run: ``python3 benchmarks/symmetry_c.py [--case orienting_rings] [--max-n 4]
[--engine c|python|auto] [--python-too] [--timeout S] [--max-memory MB]``.

The rows are those of ``case_studies/*/expected.toml`` with ``reduction = "symmetry"``
(orienting rings, two-hop coloring, LE_C, LE_OR: 001 Table 1 "With Reduction"; LE_R:
bridge's own rows). Each is checked with ``bridge.api.check(..., symmetry=True)`` on the
chosen engine (default ``c``, where the quotient is searched by
``templates/c/symmetry.c``) and prints: case, N, assertion, fairness, our verdict, the
quotient's product states and transitions, the search's seconds (compiling apart), the
paper's states and seconds with reduction, and the ratio paper / ours. With
``--python-too`` the same row also runs on the Python engine's quotient (same timeout)
and its seconds and the ratio Python / C are printed: the two engines search the same
quotient, so the state counts must agree (a disagreement is printed as MISMATCH).

The papers' seconds come from another machine and another decade; timings here are
noisy on a shared machine (prefer the Python / C ratio of one run).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import table2  # noqa: E402

from bridge import api, regress  # noqa: E402

CASES = Path(__file__).resolve().parents[1] / "case_studies"
CASE_NAMES = ("orienting_rings", "two_hop_coloring", "le_c", "le_or", "le_r")


def symmetry_rows(cases: list[str], max_n: int | None) -> list[regress.Row]:
    """Return the rows with ``reduction = "symmetry"`` of ``cases`` (N at most max_n)."""
    rows = []
    for case in cases:
        for row in regress.load_rows([CASES / case]):
            n = dict(row.size).get("N", 0)
            if row.reduction == "symmetry" and (max_n is None or n <= max_n):
                rows.append(row)
    return rows


def run_row(row: regress.Row, engine: str, timeout: float | None,
            max_memory_mb: int | None) -> dict[str, object]:
    """Return the cells of one row checked with ``--symmetry`` on ``engine``."""
    return table2.run_row(row, engine, timeout, max_memory_mb, symmetry=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=CASE_NAMES)
    parser.add_argument("--max-n", type=int)
    parser.add_argument("--engine", default="c", choices=api.ENGINES)
    parser.add_argument("--python-too", action="store_true")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--max-memory", type=int, default=16000, help="MB for the store")
    args = parser.parse_args()
    print(f"{'case':<17}{'N':>3} {'#':>2} {'fairness':<14}{'ours':>8}{'states':>10}"
          f"{'transitions':>12}{'seconds':>9}{'paper st.':>10}{'paper s':>9}{'paper/ours':>11}"
          + (f"{'python s':>9}{'py/c':>7}" if args.python_too else "") + "  engine, note",
          flush=True)
    for row in symmetry_rows(args.case or list(CASE_NAMES), args.max_n):
        cells = run_row(row, args.engine, args.timeout, args.max_memory)
        n = dict(row.size).get("N", 0)
        seconds = cells.get("seconds")
        paper = f"{row.paper_seconds:.2f}" if row.paper_seconds is not None else "-"
        ratio = (f"{row.paper_seconds / seconds:.1f}x"
                 if row.paper_seconds and isinstance(seconds, float) and seconds > 0 else "-")
        line = (f"{row.case:<17}{n:>3} {row.assertion:>2} {row.fairness:<14}{cells['got']:>8}"
                f"{cells.get('states', '-'):>10}{cells.get('transitions', '-'):>12}"
                f"{format(seconds, '.2f') if isinstance(seconds, float) else '-':>9}"
                f"{row.paper_states or '-':>10}{paper:>9}{ratio:>11}")
        if args.python_too:
            py = run_row(row, "python", args.timeout, args.max_memory)
            py_s = py.get("seconds")
            same = py.get("states") == cells.get("states") or "unknown" in (py["got"],
                                                                            cells["got"])
            line += (f"{format(py_s, '.2f') if isinstance(py_s, float) else '-':>9}"
                     f"{format(py_s / seconds, '.0f') + 'x' if isinstance(py_s, float) and isinstance(seconds, float) and seconds > 0 else '-':>7}")
            if not same:
                line += f"  MISMATCH: python {py.get('states')} states, {py['got']}"
        print(f"{line}  {cells.get('engine', '-')}, {cells.get('note', '')}", flush=True)


if __name__ == "__main__":
    main()
