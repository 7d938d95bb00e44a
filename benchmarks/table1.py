"""Paper 000 Table 1 again: the Büchi automaton of fairness premises (formula F1).

For n = 1..5 conjuncts of three formula families, the time and size of the automaton
of the *negated* formula (what a model checker builds) with Spot (the generic
translation, ``remove_fin``, ``degeneralize``: ``bridge.automata.never``) and with
SPIN's own translator (``spin -f``, each run under a time limit; once a size times out
the larger ones are not tried), next to the native fair checker's time on a model with
n strongly-fair annotated actions (``check_ltl``; the fairness is in the search, not in
the formula, paper 000 sections 3-4).

Usage: ``python3 benchmarks/table1.py [--max-n 5] [--timeout 20]``; prints Markdown.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bridge.automata.never import NeverClaimError, buchi_automaton_for, parse_never_claim  # noqa: E402
from bridge.backends.spin.run import run_limited  # noqa: E402

FAMILIES = {
    "justice": ("(&& []<>p_i) -> []<>q", lambda n: " & ".join(f"GF p{i}" for i in range(n))
                + " -> GF q"),
    "compassion": ("(&& ([]<>p_i -> []<>q_i)) -> []<>s",
                   lambda n: " & ".join(f"(GF p{i} -> GF q{i})" for i in range(n)) + " -> GF s"),
    "weak": ("(&& (<>[]p_i -> []<>q_i)) -> []<>s",
             lambda n: " & ".join(f"(FG p{i} -> GF q{i})" for i in range(n)) + " -> GF s"),
}


def spot_row(formula: str) -> tuple[float, int, int]:
    """Return (seconds, states, edges) of Spot's Büchi automaton of !formula."""
    start = time.monotonic()
    aut = buchi_automaton_for(f"!({formula})")
    return time.monotonic() - start, aut.num_states(), aut.num_edges()


def spin_row(formula: str, timeout: float) -> tuple[float, int | None, int | None, bool]:
    """Return (seconds, states, edges, timed out) of ``spin -f '!(formula)'``."""
    import spot

    text = spot.formula(f"!({formula})").to_str("spin")
    start = time.monotonic()
    done = run_limited(["spin", "-f", text], ".", timeout, 4096)
    seconds = time.monotonic() - start
    if done.timed_out or done.returncode != 0:
        return seconds, None, None, done.timed_out
    try:
        claim = parse_never_claim(done.stdout)
    except NeverClaimError:
        return seconds, None, None, False
    return seconds, claim.automaton.num_states, claim.automaton.num_edges, False


def native_row(n: int, timeout: float) -> tuple[float, str]:
    """Return (seconds, verdict) of check_ltl on n toggling processes a_i and a process
    doing q, for []<>q under sf(a_i) for all i and sf(q)."""
    from bridge.fairness.check import LtlOptions, check_ltl
    from bridge.ir import (
        Edge,
        Event,
        FairnessMark,
        Instance,
        Location,
        LtlEvent,
        LtlUnary,
        Process,
        Property,
        PropertyKind,
        SourceLanguage,
        TransitionSystem,
    )

    def looping(name: str, event: str) -> Process:
        return Process(name, (), (), (Location(0), Location(1)),
                       (Edge(0, 1, event=Event(event)), Edge(1, 0, event=Event(event + "_back"))), 0)

    processes = tuple(looping(f"A{i}", f"a{i}") for i in range(n)) + (looping("Q", "q"),)
    formula = LtlUnary("G", LtlUnary("F", LtlEvent("q")))
    prop = Property("gfq", PropertyKind.LTL, "[]<> q", formula=formula, number=1)
    system = TransitionSystem("table1", SourceLanguage.IR, (), (), processes,
                              tuple(Instance(p.name, (), p.name) for p in processes),
                              properties=(prop,))
    marks = tuple((FairnessMark.SF, f"a{i}") for i in range(n)) + ((FairnessMark.SF, "q"),
                                                                   (FairnessMark.SF, "q_back"))
    start = time.monotonic()
    verdict = check_ltl(system, prop, LtlOptions(annotations=marks, timeout=timeout))
    return time.monotonic() - start, verdict.outcome.value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=20.0)
    args = parser.parse_args(argv)
    print("| family | n | Spot s | Spot states/edges | spin -f s | spin -f states/edges "
          "| native s (n sf actions) |")
    print("|---|---|---|---|---|---|---|")
    natives: dict[int, tuple[float, str]] = {}
    for family, (shape, build) in FAMILIES.items():
        gave_up = False
        for n in range(1, args.max_n + 1):
            formula = build(n)
            s_sec, s_states, s_edges = spot_row(formula)
            if gave_up:
                spin_cell, spin_size = "not run", "-"
            else:
                sec, states, edges, timed_out = spin_row(formula, args.timeout)
                if timed_out:
                    spin_cell, spin_size, gave_up = f"> {args.timeout:g}", "timeout", True
                elif states is None:
                    spin_cell, spin_size = f"{sec:.2f}", "error"
                else:
                    spin_cell, spin_size = f"{sec:.2f}", f"{states}/{edges}"
            if n not in natives:
                natives[n] = native_row(n, 10 * args.timeout)
            nat_sec, verdict = natives[n]
            print(f"| {family}: `{shape}` | {n} | {s_sec:.2f} | {s_states}/{s_edges} | "
                  f"{spin_cell} | {spin_size} | {nat_sec:.2f} ({verdict}) |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
