"""Fair LTL checking throughput on the population protocols of paper 000 Table 2.

Run: ``python3 benchmarks/fairness.py [--quick] [--budget SECONDS]``. For LE_C, LE_R and
TC_R at the sizes of Table 2 and each fairness notion of the table (weak, strong local,
strong global), prints the verdict, product states, transitions, seconds, product
states/s, next to PAT's published time (Core 2 6600, 2009). A configuration whose
smaller size already needed more than ``--budget`` seconds (default 60) is not run at the
next size ("-" in the table).

Models: ``case_studies/<name>/<name>_<N>.csp`` through ``bridge.frontends.csp.load_csp``
when the CSP# front-end accepts them; otherwise the same protocol built directly in the
IR (language CSP, so actions are event names): an ``Init`` process chooses every bit
(events ``setup.i.k``) and then raises ``ready``, which every rule and the detector wait
for. The IR version has one extra variable (``ready``) and so its state counts differ
slightly from the CSP# model's.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bridge.diagnostics import BridgeError  # noqa: E402
from bridge.fairness.check import LtlOptions, check_ltl  # noqa: E402
from bridge.ir import (  # noqa: E402
    Binary,
    Event,
    LtlState,
    LtlUnary,
    Property,
    PropertyKind,
    SourceLanguage,
    Unary,
)
from bridge.ir.property import Fairness  # noqa: E402
from tests.irbuild import C, G, assign, edge, eq, int_var, ix, process, system  # noqa: E402

# PAT's published seconds (000 Table 2): (model, N) -> {fairness: (result, seconds)}
PAT = {
    ("LE_C", 3): {"weak": ("Yes", 0.1), "strong-local": ("Yes", 0.1), "strong-global": ("Yes", 0.2)},
    ("LE_C", 4): {"weak": ("Yes", 0.8), "strong-local": ("Yes", 0.9), "strong-global": ("Yes", 0.7)},
    ("LE_C", 5): {"weak": ("Yes", 5.2), "strong-local": ("Yes", 6.1), "strong-global": ("Yes", 4.9)},
    ("LE_C", 6): {"weak": ("Yes", 31.6), "strong-local": ("Yes", 38.2), "strong-global": ("Yes", 29.7)},
    ("LE_R", 3): {"weak": ("No", 0.2), "strong-local": ("No", 0.2), "strong-global": ("Yes", 3.2)},
    ("LE_R", 4): {"weak": ("No", 0.5), "strong-local": ("No", 1.1), "strong-global": ("Yes", 51.4)},
    ("LE_R", 5): {"weak": ("No", 1.3), "strong-local": ("No", 4.6), "strong-global": ("Yes", 1359.0)},
    ("LE_R", 6): {"weak": ("No", 0.5), "strong-local": ("No", 2.2)},
    ("TC_R", 3): {"weak": ("Yes", 0.1), "strong-local": ("Yes", 0.1), "strong-global": ("Yes", 0.1)},
    ("TC_R", 5): {"weak": ("No", 0.1), "strong-local": ("No", 0.1), "strong-global": ("Yes", 0.7)},
    ("TC_R", 7): {"weak": ("No", 0.2), "strong-local": ("No", 0.3), "strong-global": ("Yes", 18.9)},
    ("TC_R", 9): {"weak": ("No", 0.5), "strong-local": ("No", 0.5), "strong-global": ("Yes", 982.7)},
}
FAIRNESS = ("weak", "strong-local", "strong-global")


def _and(*parts):
    out = parts[0]
    for p in parts[1:]:
        out = Binary("&&", out, p)
    return out


def _sum(name: str, n: int):
    out = ix(name, 0)
    for i in range(1, n):
        out = Binary("+", out, ix(name, i))
    return out


def _init_process(n: int, arrays: tuple[str, ...]):
    """Init: location i chooses every combination of the bits of node i (setup.i.k)."""
    edges = []
    for i in range(n):
        for k in range(1 << len(arrays)):
            effect = [assign(ix(a, i), (k >> b) & 1) for b, a in enumerate(arrays)]
            if i == n - 1:
                effect.append(assign("ready", 1))
            edges.append(edge(i, i + 1, effect=effect, event=Event("setup", (C(i), C(k)))))
    return process("Init", edges, n_locations=n + 1, terminal=[n])


def _detector():
    ready = eq(G("ready"), 1)
    return process(
        "Detector",
        [
            edge(0, 0, ready, [assign("correct", 1)], "oracle"),
            edge(0, 0, ready, [assign("guess", 0)], "guess1"),
            edge(0, 0, ready, [assign("guess", 1)], "guess2"),
        ],
    )


def _exist(n: int):
    return Binary(
        "||",
        _and(eq(G("correct"), 0), eq(G("guess"), 1)),
        _and(Unary("!", eq(G("correct"), 0)), Binary(">", _sum("leader", n), C(0))),
    )


def _prop(name: str, array: str, n: int) -> Property:
    formula = LtlUnary("F", LtlUnary("G", LtlState(eq(_sum(array, n), 1), name)))
    return Property(name, PropertyKind.LTL, f"<>[]{name}", formula=formula)


def le_c(n: int):
    """LE_C of case_studies/le_c (rules 1 and 2 for every ordered pair i != j)."""
    ready = eq(G("ready"), 1)
    exist = _exist(n)
    nodes = []
    for i in range(n):
        edges = []
        for j in range(n):
            if i == j:
                continue
            edges.append(edge(0, 0, _and(ready, eq(ix("leader", i), 1), eq(ix("leader", j), 1)),
                              [assign(ix("leader", j), 0)], Event("rule1", (C(i), C(j)))))
            edges.append(edge(0, 0, _and(ready, eq(ix("leader", i), 0), Unary("!", exist), eq(ix("leader", j), 0)),
                              [assign(ix("leader", i), 1)], Event("rule2", (C(i), C(j)))))
        nodes.append(process(f"Node{i}", edges))
    ts = system(
        [_init_process(n, ("leader",)), _detector(), *nodes],
        globals_=[int_var("correct", 0), int_var("guess", 0), int_var("ready", 0), int_var("leader", 0, length=n)],
        language=SourceLanguage.CSP,
        name=f"le_c_{n}",
    )
    return ts, _prop("oneLeader", "leader", n)


def le_r(n: int):
    """LE_R of 000 Fig. 1 (five rules of node i with responder j = (i + 1) % N)."""
    ready = eq(G("ready"), 1)
    exist = _exist(n)
    nodes = []
    for i in range(n):
        j = (i + 1) % n
        x = ix

        rules = [
            (Unary("!", exist), [("bullet", i, 1), ("leader", i, 1), ("shield", i, 1)]),
            (_and(eq(x("leader", i), 0), eq(x("shield", i), 1), exist),
             [("leader", i, 0), ("shield", i, 0), ("bullet", j, 0), ("shield", j, 1)]),
            (_and(eq(x("leader", i), 1), eq(x("shield", i), 1), exist),
             [("bullet", i, 1), ("leader", i, 1), ("shield", i, 0), ("bullet", j, 0), ("shield", j, 1)]),
            (_and(eq(x("leader", i), 1), eq(x("shield", i), 0), eq(x("bullet", j), 0), exist),
             [("bullet", i, 1), ("leader", i, 1), ("shield", i, 0), ("bullet", j, 0)]),
            (_and(eq(x("shield", i), 0), eq(x("bullet", j), 1), exist),
             [("bullet", i, 1), ("leader", i, 0), ("shield", i, 0), ("bullet", j, 0)]),
        ]
        edges = [
            edge(0, 0, _and(ready, guard), [assign(ix(a, k), v) for a, k, v in eff],
                 Event(f"rule{r + 1}", (C(i), C(j))))
            for r, (guard, eff) in enumerate(rules)
        ]
        nodes.append(process(f"Node{i}", edges))
    ts = system(
        [_init_process(n, ("leader", "bullet", "shield")), _detector(), *nodes],
        globals_=[int_var("correct", 0), int_var("guess", 0), int_var("ready", 0),
                  int_var("leader", 0, length=n), int_var("bullet", 0, length=n),
                  int_var("shield", 0, length=n)],
        language=SourceLanguage.CSP,
        name=f"le_r_{n}",
    )
    return ts, _prop("oneLeader", "leader", n)


def tc_r(n: int):
    """TC_R of case_studies/tc_r (node 0 is the leader; directed ring)."""
    ready = eq(G("ready"), 1)
    nodes = []
    for i in range(n):
        j = (i + 1) % n
        if j == 0:
            e = edge(0, 0, _and(ready, eq(ix("label", i), ix("label", 0))),
                     [assign(ix("token", i), 0), assign(ix("token", 0), 1),
                      assign(ix("label", 0), Binary("-", C(1), ix("label", i)))],
                     Event("rule1", (C(i), C(j))))
        else:
            e = edge(0, 0, _and(ready, Unary("!", eq(ix("label", i), ix("label", j)))),
                     [assign(ix("token", i), 0), assign(ix("token", j), 1),
                      assign(ix("label", j), ix("label", i))],
                     Event("rule2", (C(i), C(j))))
        nodes.append(process(f"Node{i}", [e]))
    ts = system(
        [_init_process(n, ("token", "label")), *nodes],
        globals_=[int_var("ready", 0), int_var("token", 0, length=n), int_var("label", 0, length=n)],
        language=SourceLanguage.CSP,
        name=f"tc_r_{n}",
    )
    return ts, _prop("oneToken", "token", n)


BUILDERS = {"LE_C": (le_c, "le_c"), "LE_R": (le_r, "le_r"), "TC_R": (tc_r, "tc_r")}


def load(model: str, n: int):
    """Return (system, property, origin): the CSP# case study if it loads, else IR."""
    builder, stem = BUILDERS[model]
    path = ROOT / "case_studies" / stem / f"{stem}_{n}.csp"
    if path.exists():
        try:
            from bridge.frontends.csp import load_csp

            mf = load_csp(str(path))
            for ts, prop in mf.properties():
                if prop.kind is PropertyKind.LTL:
                    return ts, prop, "csp"
        except (BridgeError, ImportError):
            pass
    ts, prop = builder(n)
    return ts, prop, "ir"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only the smallest size of each model")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds per run (default 60)")
    args = ap.parse_args(argv)
    print(f"{'model':6} {'N':>2} {'fairness':14} {'src':4} {'verdict':8} {'states':>9} "
          f"{'trans':>10} {'sec':>8} {'states/s':>9}   PAT (result, s)")
    too_slow: set[tuple[str, str]] = set()
    for (model, n), pat in PAT.items():
        if args.quick and n != 3:
            continue
        for fairness in FAIRNESS:
            if fairness not in pat:
                continue
            if (model, fairness) in too_slow:
                print(f"{model:6} {n:>2} {fairness:14} {'':4} {'-':8}")
                continue
            ts, prop, origin = load(model, n)
            start = time.perf_counter()
            v = check_ltl(ts, prop, LtlOptions(fairness=Fairness(fairness), timeout=args.budget))
            secs = time.perf_counter() - start
            st = v.statistics
            rate = st.states / secs if secs > 0 else 0.0
            result, pat_s = pat[fairness]
            print(f"{model:6} {n:>2} {fairness:14} {origin:4} {v.outcome.value:8} {st.states:>9} "
                  f"{st.transitions:>10} {secs:>8.2f} {rate:>9.0f}   ({result}, {pat_s})", flush=True)
            if secs > args.budget or v.outcome.value == "unknown":
                too_slow.add((model, fairness))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
