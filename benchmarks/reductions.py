"""Benchmarks of the reductions: states and time with and without each reduction, next to
the papers' numbers (paper 001 Table 1 for symmetry, paper 002 section 6 table for
process counter abstraction; POR on the population protocols of paper 000 Table 2).

Run from the repository root: ``python3 benchmarks/reductions.py [--quick] [--timeout S]``.
"States" is the number of product states the fair SCC search built (system state x
automaton state), the measure PAT reports. Models of Table 1 that are not in
``case_studies/`` (two-hop coloring, orienting rings) are listed as not available.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bridge.automata.ltl import translate_formula  # noqa: E402
from bridge.diagnostics import ConfigurationError  # noqa: E402
from bridge.fairness.conditions import make_condition  # noqa: E402
from bridge.fairness.emptiness import find_fair_lasso  # noqa: E402
from bridge.fairness.product import LimitReached, Product  # noqa: E402
from bridge.frontends.csp import load_csp  # noqa: E402
from bridge.ir import Fairness, LtlEvent, LtlState  # noqa: E402
from bridge.reductions.counter import run_counter_abstraction  # noqa: E402
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
}
# paper 002 section 6 table, LE rows: size -> (none, weak, strong) seconds
TABLE_LE = {10: (0.04, 0.06, 0.06), 100: (0.04, 0.27, 0.28), 1000: (0.04, 2.26, 2.75),
            10000: (0.04, 23.89, 68.78), "inf": (0.06, 264.78, 463.9)}


def fair_check(space, formula, fairness, timeout, products=None):
    """Return (violated, product states, seconds) of the fair LTL check on ``space``
    (the product searched is appended to ``products`` when given)."""
    start = time.monotonic()
    aut = translate_formula(formula)
    preds = [(1 << i, space.predicate(a.expr)) for i, a in enumerate(aut.binding.atoms)
             if isinstance(a, LtlState)]
    events = {a.name: 1 << i for i, a in enumerate(aut.binding.atoms) if isinstance(a, LtlEvent)}
    product = Product(space, aut.buchi, lambda s: sum(b for b, p in preds if p(s)),
                      lambda e: events.get(e, 0) if e else 0, timeout=timeout)
    if products is not None:
        products.append(product)
    try:
        lasso = find_fair_lasso(product, make_condition(product, fairness))
    except LimitReached:
        return None, product.num_nodes, time.monotonic() - start
    return lasso is not None, product.num_nodes, time.monotonic() - start


def load(path: Path, size: int | None = None):
    text = path.read_text()
    if size is not None:
        text = re.sub(r"#define N \d+;", f"#define N {size};", text)
    ts = load_csp(str(path), text).systems[0]
    return ts, ts.properties[-1]


def fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)


def symmetry_rows(quick: bool, timeout: float) -> list[list[str]]:
    rows = []
    models = [("leader election (complete)", "le_c/le_c_{}.csp", [3, 4] if quick else [3, 4, 5]),
              ("leader election (odd)", "le_or/le_or_fixed_{}.csp", [3]),
              ("leader election (ring)", "le_r/le_r_{}.csp", [3] if quick else [3, 4]),
              ("token circulation", "tc_r/tc_r_{}.csp", [3, 4] if quick else [3, 4, 5])]
    for name, pattern, sizes in models:
        for n in sizes:
            path = CASES / pattern.format(n)
            if not path.exists():
                rows.append([name, str(n), "model not in case_studies/"] + [""] * 6)
                continue
            ts, prop = load(path)
            fairness = Fairness.STRONG_GLOBAL
            v0, s0, t0 = fair_check(build_state_space(ts), prop.formula, fairness, timeout)
            try:
                spec = detect_symmetry(ts, prop.formula, fairness)
                red = SymmetryReduction(build_state_space(ts), ts, spec)
                v1, s1, t1 = fair_check(red, prop.formula, fairness, timeout)
                group = spec.families[0].group
            except ConfigurationError as why:
                v1, s1, t1, group = None, None, None, f"refused: {str(why)[:60]}"
            paper = TABLE1.get((name, n), (None,) * 4)
            agree = "" if v0 is None or v1 is None else ("yes" if v0 == v1 else "NO")
            rows.append([name, str(n), fmt(s0), fmt(t0), fmt(s1), fmt(t1), group, agree,
                         f"{fmt(paper[0])}/{fmt(paper[1])} -> {fmt(paper[2])}/{fmt(paper[3])}"])
    for name in ("two-hop coloring", "orienting rings (prop 1)"):
        rows.append([name, "3", "model not in case_studies/", "", "", "", "", "",
                     f"{TABLE1[(name, 3)][0]}/{TABLE1[(name, 3)][1]} -> "
                     f"{TABLE1[(name, 3)][2]}/{TABLE1[(name, 3)][3]}"])
    return rows


WORKERS = """
// N workers counting on private cells, then stopping; only worker 0 is observed.
#define N {n};
var c[N];
W(i) = [c[i] < 4] step.i{{c[i] = c[i] + 1;}} -> W(i) [] [c[i] == 4] done.i -> Skip;
Sys() = ||| x:{{0..N - 1}}@W(x);
#define finished (c[0] == 4);
#assert Sys() |= []<> finished;
"""


def por_rows(quick: bool, timeout: float) -> list[list[str]]:
    rows = []
    for n in ([3, 4] if quick else [3, 4, 5, 6]):
        ts = load_csp("workers.csp", WORKERS.format(n=n)).systems[0]
        prop = ts.properties[-1]
        v0, s0, t0 = fair_check(build_state_space(ts), prop.formula, Fairness.NONE, timeout)
        por = PartialOrderReduction(build_state_space(ts), ts, prop.formula, Fairness.NONE)
        products: list = []
        v1, s1, t1 = fair_check(por, prop.formula, Fairness.NONE, timeout, products)
        agree = "" if v0 is None or v1 is None else ("yes" if v0 == v1 else "NO")
        rows.append(["workers", str(n), "none", fmt(s0), fmt(t0), fmt(s1), fmt(t1),
                     str(products[0].ample_nodes), agree])
    for name, pattern, n, fairness in [("LE_R", "le_r/le_r_{}.csp", 3, Fairness.NONE),
                                       ("TC_R", "tc_r/tc_r_{}.csp", 3, Fairness.NONE),
                                       ("LE_C", "le_c/le_c_{}.csp", 3, Fairness.NONE),
                                       ("RW", "rw/rw.csp", None, Fairness.NONE),
                                       # a violation found early: POR must not delay it
                                       ("LE_OR", "le_or/le_or_fixed_{}.csp", 5, Fairness.WEAK)]:
        path = CASES / (pattern.format(n) if n else pattern)
        ts, prop = load(path)
        v0, s0, t0 = fair_check(build_state_space(ts), prop.formula, fairness, timeout)
        por = PartialOrderReduction(build_state_space(ts), ts, prop.formula, fairness)
        products = []
        v1, s1, t1 = fair_check(por, prop.formula, fairness, timeout, products)
        agree = "" if v0 is None or v1 is None else ("yes" if v0 == v1 else "NO")
        rows.append([name, str(n or ""), fairness.value, fmt(s0), fmt(t0), fmt(s1), fmt(t1),
                     str(products[0].ample_nodes), agree])
    return rows


def counter_rows(quick: bool, timeout: float) -> list[list[str]]:
    rows = []
    path = CASES / "le_pl" / "le_pl.csp"
    sizes: list = [10, 100, 1000, "inf"]
    for n in sizes:
        ts, prop = load(path, 10 if n == "inf" else n)
        for col, fairness in enumerate((Fairness.NONE, Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG)):
            start = time.monotonic()
            r = run_counter_abstraction(ts, prop, fairness, 2, unbounded=n == "inf", timeout=timeout)
            secs = time.monotonic() - start
            rows.append([f"LE {n}", fairness.value, r.outcome.value, str(r.abstract_states),
                         fmt(secs), fmt(TABLE_LE[n][col]), r.reason[:70]])
    return rows


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="small sizes only")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per check")
    ap.add_argument("--only", choices=["symmetry", "por", "counter"], default=None)
    args = ap.parse_args(argv)
    if args.only in (None, "symmetry"):
        print("## Symmetry reduction, strong global fairness (paper 001 Table 1)\n")
        print(table(["model", "N", "states", "s", "states (sym)", "s (sym)", "group",
                     "same verdict", "paper states/s -> with"], symmetry_rows(args.quick, args.timeout)))
    if args.only in (None, "por"):
        print("\n## Partial order reduction\n")
        print(table(["model", "N", "fairness", "states", "s", "states (por)", "s (por)",
                     "reduced nodes", "same verdict"], por_rows(args.quick, args.timeout)))
    if args.only in (None, "counter"):
        print("\n## Process counter abstraction, cutoff 2 (paper 002 section 6, LE)\n")
        print(table(["model", "fairness", "verdict", "abstract states", "s", "paper s", "reason"],
                    counter_rows(args.quick, args.timeout)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
