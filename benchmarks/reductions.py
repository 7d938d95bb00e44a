"""Benchmarks of the reductions: states and time with and without each reduction, next to
the papers' numbers (paper 001 Table 1 for symmetry, paper 000 Table 3 for partial order
reduction, paper 002 section 6 table for process counter abstraction).

Run from the repository root: ``python3 benchmarks/reductions.py [--quick] [--timeout S]
[--only symmetry|canonical|por|counter]``. Every check goes through ``bridge.api`` (the
verdict's statistics: "states" is the number of product states the fair search stored,
system state x automaton state, the measure PAT reports). Times are wall-clock seconds
on a shared machine: compare the ratios within one run, not across runs.

- ``symmetry``: the ring and complete-network models under strong global fairness, with
  and without ``--symmetry`` (the group the detector proved, or why it refused);
- ``canonical``: the cost of one canonical representative (microseconds, measured on
  up to 20000 states of the full space) next to the cost of one successor computation,
  and the quotient's size against the full space's;
- ``por``: Milner's cyclic scheduler with annotations (000 Table 3), with and without
  ``--por``, and the size of a depth-first search that keeps the first ample candidate
  against one that tries every candidate under the stack proviso (what the product's
  C3 does now, and what PAT and SPIN do);
- ``counter``: LE (000/002), KV and the anonymous stack on the counter abstraction.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bridge import api  # noqa: E402
from bridge.ir import Fairness  # noqa: E402
from bridge.reductions.por import PartialOrderReduction  # noqa: E402
from bridge.reductions.symmetry import SymmetryReduction, detect_symmetry  # noqa: E402
from bridge.semantics.statespace import build_state_space  # noqa: E402

CASES = ROOT / "case_studies"

# paper 001 Table 1: (model, size) -> (states without, time without, states with, time with)
TABLE1 = {
    ("leader election (complete)", 3): (6946, 0.87, 2419, 0.51),
    ("leader election (complete)", 4): (65468, 11.6, 16758, 5.00),
    ("leader election (complete)", 5): (598969, 176.1, 120021, 45.9),
    ("leader election (odd)", 3): (55100, 6.27, 18561, 2.56),
    ("token circulation", 3): (728, 0.12, 244, 0.09),
    ("token circulation", 4): (4466, 0.35, 1118, 0.19),
    ("token circulation", 5): (24847, 1.86, 4971, 0.77),
    ("two-hop coloring", 3): (122856, 36.7, 42182, 16.7),
    ("orienting rings (prop 1)", 3): (19190, 2.27, 6398, 0.53),
    ("orienting rings (prop 2)", 3): (19445, 2.23, 6503, 0.97),
}
# paper 002 section 6 table: (model, size) -> (none, weak, strong) seconds
TABLE_002 = {("LE", 10): (0.04, 0.06, 0.06), ("LE", 100): (0.04, 0.27, 0.28),
             ("LE", 1000): (0.04, 2.26, 2.75), ("KV", 3): (0.05, 4.56, 4.59),
             ("KV", 4): (0.05, 29.2, 30.24), ("Stack", 5): (0.06, 0.78, 0.74),
             ("Stack", 7): (0.06, 11.3, 12.1)}
FAIRNESS3 = (Fairness.NONE, Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG)


def sized(path: Path, n: int | None) -> Path:
    """Return ``path`` with ``#define N <n>;`` (a copy in a temporary folder)."""
    if n is None:
        return path
    text = re.sub(r"#define N \d+;", f"#define N {n};", path.read_text())
    out = Path(tempfile.mkdtemp(prefix="bridge-bench-")) / f"{path.stem}_{n}.csp"
    out.write_text(text)
    return out


def run(path: Path, assertion: int, timeout: float, **options) -> tuple[str, int | None, float]:
    """Return (verdict, product states, seconds) of one check through ``bridge.api``."""
    model = api.load_model(str(path))
    start = time.monotonic()
    (verdict,) = api.check(model, assertion, api.CheckOptions(timeout=timeout, **options))
    seconds = time.monotonic() - start
    refused = [n for n in verdict.notes if "not applied" in n or "not used" in n]
    outcome = verdict.outcome.value + (" (reduction refused)" if refused else "")
    return outcome, verdict.statistics.states, seconds


def fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)


SYMMETRY_MODELS = [
    ("leader election (complete)", "le_c/le_c_{}.csp", 1, [3, 4], [3, 4, 5]),
    ("leader election (odd)", "le_or/le_or_fixed_{}.csp", 1, [3], [3]),
    ("leader election (ring)", "le_r/le_r_{}.csp", 1, [3, 4], [3, 4, 5]),
    ("token circulation", "tc_r/tc_r_{}.csp", 1, [3, 4], [3, 4, 5]),
    ("two-hop coloring", "two_hop_coloring/two_hop_coloring_{}.csp", 1, [3], [3]),
    ("orienting rings (prop 1)", "orienting_rings/orienting_rings_{}.csp", 1, [], [3]),
    ("orienting rings (prop 2)", "orienting_rings/orienting_rings_{}.csp", 2, [], [3]),
]


def symmetry_rows(quick: bool, timeout: float) -> list[list[str]]:
    rows = []
    for name, pattern, assertion, small, large in SYMMETRY_MODELS:
        for n in small if quick else large:
            path = CASES / pattern.format(n)
            v0, s0, t0 = run(path, assertion, timeout, fairness=Fairness.STRONG_GLOBAL)
            v1, s1, t1 = run(path, assertion, timeout, fairness=Fairness.STRONG_GLOBAL,
                             symmetry=True)
            paper = TABLE1.get((name, n), (None,) * 4)
            rows.append([name, str(n), v0, fmt(s0), fmt(t0), v1, fmt(s1), fmt(t1),
                         f"{fmt(paper[0])}/{fmt(paper[1])} -> {fmt(paper[2])}/{fmt(paper[3])}"])
    return rows


def canonical_rows(quick: bool) -> list[list[str]]:
    """Cost of a canonical representative against one successor computation."""
    rows = []
    cases = [("le_r/le_r_{}.csp", [4] if quick else [4, 5, 6]),
             ("le_c/le_c_{}.csp", [4] if quick else [4, 5]),
             ("orienting_rings/orienting_rings_{}.csp", [3]),
             ("two_hop_coloring/two_hop_coloring_{}.csp", [3])]
    for pattern, sizes in cases:
        for n in sizes:
            path = CASES / pattern.format(n)
            ((ts, prop),) = api.select_properties(api.load_model(str(path)), 1)
            spec = detect_symmetry(ts, prop.formula, Fairness.STRONG_GLOBAL)
            full = build_state_space(ts)
            red = SymmetryReduction(build_state_space(ts), ts, spec)
            states = _sample(full, 20000)
            start = time.perf_counter()
            reps = {red.representative(s) for s in states}
            per_rep = (time.perf_counter() - start) / len(states) * 1e6
            start = time.perf_counter()
            for s in states:
                full.successors(s)
            per_succ = (time.perf_counter() - start) / len(states) * 1e6
            group = spec.families[0].group
            rows.append([path.stem, group, str(len(states)), str(len(reps)),
                         f"{per_rep:.1f}", f"{per_succ:.1f}"])
    return rows


def _sample(space, limit: int) -> list:
    seen = set(space.initial_states())
    frontier = list(seen)
    while frontier and len(seen) < limit:
        state = frontier.pop()
        for _step, target in space.successors(state):
            if target not in seen:
                seen.add(target)
                frontier.append(target)
    return list(seen)


def por_rows(quick: bool, timeout: float) -> list[list[str]]:
    rows = []
    for n in ([4, 5] if quick else [4, 5, 6, 7, 10, 100, 200]):
        path = sized(CASES / "ms" / "ms_annotated.csp", n)
        v0, s0, t0 = run(path, 1, timeout) if n <= 7 else ("-", None, None)
        v1, s1, t1 = run(path, 1, timeout, por=True)
        first, every = (candidate_search(path, False), candidate_search(path, True)) \
            if n <= 10 else (None, candidate_search(path, True))
        rows.append([f"ms_annotated {n}", v0, fmt(s0), fmt(t0), v1, fmt(s1), fmt(t1),
                     fmt(first), fmt(every)])
    return rows


def candidate_search(path: Path, every: bool, limit: int = 200_000) -> int | None:
    """Return the system states a depth-first search stores on the reduced graph with
    the stack proviso when it keeps the first ample candidate (``every=False``) or the
    first candidate none of whose successors is on the stack (``every=True``); None
    past ``limit``."""
    ((ts, prop),) = api.select_properties(api.load_model(str(path)), 1)
    full = build_state_space(ts)
    por = PartialOrderReduction(build_state_space(ts), ts, prop.formula, Fairness.NONE)
    seen: set = set()
    on_stack: set = set()
    stack: list = []

    def push(state) -> None:
        seen.add(state)
        on_stack.add(state)
        succ = full.successors(state)
        chosen = succ
        candidates = por.ample_candidates(state, succ)
        for candidate in candidates if every else candidates[:1]:
            if not any(t in on_stack for _step, t in candidate):
                chosen = candidate
                break
        stack.append((state, iter([t for _step, t in chosen])))

    push(full.initial_states()[0])
    while stack:
        if len(seen) > limit:
            return None
        state, targets = stack[-1]
        target = next(targets, None)
        if target is None:
            stack.pop()
            on_stack.discard(state)
        elif target not in seen:
            push(target)
    return len(seen)


def counter_rows(quick: bool, timeout: float) -> list[list[str]]:
    rows = []
    cases = [("LE", CASES / "le_pl" / "le_pl.csp", [10, 100] if quick else [10, 100, 1000], 2),
             ("KV", CASES / "kv" / "kv.csp", [3] if quick else [3, 4], 2),
             ("Stack", CASES / "stack" / "stack_anon.csp", [5] if quick else [5, 7], None)]
    for name, path, sizes, cutoff in cases:
        for n in sizes:
            model = sized(path, n)
            for col, fairness in enumerate(FAIRNESS3):
                v, s, t = run(model, 1, timeout, fairness=fairness, counter_abstraction=True,
                              cutoff=cutoff)
                paper = TABLE_002.get((name, n), (None,) * 3)[col]
                rows.append([f"{name} {n}", fairness.value, v, fmt(s), fmt(t), fmt(paper)])
    return rows


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="small sizes only")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per check")
    ap.add_argument("--only", choices=["symmetry", "canonical", "por", "counter"], default=None)
    args = ap.parse_args(argv)
    if args.only in (None, "symmetry"):
        print("## Symmetry reduction, strong global fairness (paper 001 Table 1)\n")
        print(table(["model", "N", "verdict", "states", "s", "verdict (sym)", "states (sym)",
                     "s (sym)", "paper states/s -> with"],
                    symmetry_rows(args.quick, args.timeout)))
    if args.only in (None, "canonical"):
        print("\n## Cost of a canonical representative\n")
        print(table(["model", "group", "states sampled", "their orbits", "us per representative",
                     "us per successors()"], canonical_rows(args.quick)))
    if args.only in (None, "por"):
        print("\n## Partial order reduction, Milner's scheduler with annotations (000 Table 3)\n")
        print(table(["model", "verdict", "states", "s", "verdict (por)", "states (por)",
                     "s (por)", "DFS, first candidate", "DFS, every candidate"],
                    por_rows(args.quick, args.timeout)))
    if args.only in (None, "counter"):
        print("\n## Process counter abstraction (paper 002 section 6)\n")
        print(table(["model", "fairness", "verdict", "states", "s", "paper s"],
                    counter_rows(args.quick, args.timeout)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
