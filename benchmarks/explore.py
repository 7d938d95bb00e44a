"""Exploration throughput of the compiled engine on hand-built IR models.

Run: ``python3 benchmarks/explore.py [--quick]``. Prints, per model: states,
transitions, seconds, states/s, transitions/s and approximate bytes per stored state
(tuple + share of the visited map and state list, see ``explore._bytes_per_state``).
The models are built directly in the IR so the benchmark does not depend on the
front-ends:

* ``population``: a population-protocol-shaped CSP# model (paper 000 section 5, LE_R
  style): N agents on a ring with global arrays ``leader``, ``bullet``, ``shield``
  initialised nondeterministically by an init process; each rule is a guarded event
  ``ruleK.i.j`` with a program updating two cells of neighbours i and j = (i+1) mod N;
* ``dining``: N dining philosophers and N forks composed with CSP barriers;
* ``counters``: k independent counters mod m, interleaved (m^k states).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bridge.ir import Binary, Event, SourceLanguage  # noqa: E402
from bridge.semantics.explore import ExploreOptions, explore  # noqa: E402
from tests.irbuild import (  # noqa: E402
    C,
    G,
    assign,
    counter,
    edge,
    eq,
    int_var,
    interleave,
    ix,
    parallel,
    process,
    system,
)


def _and(*parts):
    result = parts[0]
    for p in parts[1:]:
        result = Binary("&&", result, p)
    return result


def population(n: int):
    """Return the population-protocol-shaped model with ``n`` agents."""
    arrays = ("leader", "bullet", "shield")
    init_edges = []
    loc = 0
    for k in range(n):
        for name in arrays:
            for value in (0, 1):
                init_edges.append(edge(loc, loc + 1, effect=[assign(ix(name, k), value)],
                                       text=f"{name}[{k}] = {value}"))
            loc += 1
    init_edges.append(edge(loc, loc + 1, effect=[assign("ready", 1)], event="start"))
    init = process("Init", init_edges, n_locations=loc + 2, terminal=[loc + 1])
    nodes = []
    for i in range(n):
        j = (i + 1) % n
        L, B, S = (lambda a, x=x: ix(x, a) for x in arrays)  # noqa: E731
        ready = eq(G("ready"), 1)
        rules = [
            # two leaders meet: the right one steps down
            (_and(ready, eq(L(i), 1), eq(L(j), 1)), [assign(L(j), 0), assign(S(j), 0)]),
            # a bullet moves right
            (_and(ready, eq(B(i), 1), eq(B(j), 0)), [assign(B(i), 0), assign(B(j), 1)]),
            # a bullet hits an unshielded leader
            (_and(ready, eq(B(i), 1), eq(L(j), 1), eq(S(j), 0)), [assign(B(i), 0), assign(L(j), 0)]),
            # a shield moves right
            (_and(ready, eq(S(i), 1), eq(S(j), 0)), [assign(S(i), 0), assign(S(j), 1)]),
            # a leader fires a bullet
            (_and(ready, eq(L(i), 1), eq(B(j), 0), eq(S(i), 1)), [assign(B(j), 1), assign(S(i), 0)]),
        ]
        edges = [
            edge(0, 0, guard=g, effect=eff, event=Event(f"rule{r}", (C(i), C(j))))
            for r, (g, eff) in enumerate(rules, start=1)
        ]
        nodes.append(process(f"Node{i}", edges))
    globals_ = [int_var(a, length=n) for a in arrays] + [int_var("ready")]
    return system([init, *nodes], globals_, language=SourceLanguage.CSP, name=f"population{n}")


def dining(n: int):
    """Return N philosophers and N forks synchronised on get/put events (CSP barriers)."""
    procs = []
    alphabets = []
    for i in range(n):
        r = (i + 1) % n
        names = [f"get.{i}.{i}", f"get.{i}.{r}", f"eat.{i}", f"put.{i}.{i}", f"put.{i}.{r}"]
        procs.append(process(f"Phil{i}", [edge(k, (k + 1) % 5, event=Event(nm))
                                          for k, nm in enumerate(names)]))
        alphabets.append(set(names))
    for j in range(n):
        left = (j - 1) % n
        procs.append(process(f"Fork{j}", [
            edge(0, 1, event=Event(f"get.{j}.{j}")), edge(1, 0, event=Event(f"put.{j}.{j}")),
            edge(0, 2, event=Event(f"get.{left}.{j}")), edge(2, 0, event=Event(f"put.{left}.{j}")),
        ]))
        alphabets.append({f"get.{j}.{j}", f"put.{j}.{j}", f"get.{left}.{j}", f"put.{left}.{j}"})
    comp = parallel(list(range(2 * n)), alphabets)
    return system(procs, composition=comp, language=SourceLanguage.CSP, name=f"dining{n}")


def counters(k: int, m: int):
    procs = [counter(f"C{i}", f"x{i}", m, event=f"tick{i}") for i in range(k)]
    return system(procs, [int_var(f"x{i}") for i in range(k)],
                  composition=interleave(*range(k)), name=f"counters{k}x{m}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller models (CI smoke run)")
    args = parser.parse_args(argv)
    if args.quick:
        models = [population(4), dining(4), counters(4, 6)]
    else:
        models = [population(5), population(6), dining(6), dining(8), counters(6, 8)]
    # Rates are per CPU second of this process (time.process_time), so that a loaded
    # machine does not distort them; wall seconds are shown too.
    print(f"{'model':<16}{'states':>10}{'transitions':>13}{'wall s':>8}{'cpu s':>8}"
          f"{'states/s':>11}{'trans/s':>11}{'B/state':>9}")
    for ts in models:
        cpu = time.process_time()
        stats = explore(ts, ExploreOptions())
        cpu = time.process_time() - cpu
        extra = dict(stats.extra)
        sps = stats.states / cpu
        tps = stats.transitions / cpu
        print(f"{ts.name:<16}{stats.states:>10}{stats.transitions:>13}{stats.seconds:>8.2f}"
              f"{cpu:>8.2f}{sps:>11,.0f}{tps:>11,.0f}{extra['bytes_per_state']:>9}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
