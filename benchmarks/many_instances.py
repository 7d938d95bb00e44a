"""Set-up time of thousands of identical CSP# processes (issue 13):
``python3 benchmarks/many_instances.py [N...] [--baseline]``.

Return nothing; print, per N, the CPU seconds of LE (``case_studies/le_pl/le_pl.csp``,
paper 002) spent in the front-end (``load_csp``), in building the engine's state space
(``build_state_space``), in the first expansion of the initial state (2N + 3
successors), and of the whole check with no fairness (violated after 2N + 3 states) and
with ``--counter-abstraction``. ``--baseline`` repeats the first three with the leaf
templates (``frontends/csp/template.py``) and the engine's shared family code
(``statespace._families``) turned off, in the same run, and prints the ratios. CPU time
(``time.process_time``) is less noisy than wall time on a shared machine; still, compare
ratios measured in one run.

``--c-engine`` prints instead, per N, what the compiled engine's code costs (issue 12
item 1): the seconds to generate the C unit, its bytes and location functions, and the
CPU seconds of the C compiler on it (``gcc -O2``, no cache; a compile longer than
``--compile-timeout`` is cut and shown as ``>``). With ``--baseline`` it repeats them
with the family code off (``gen_families.FAMILY_MIN_C``: every instance its own
functions, as before) and prints the ratios. ``--guarded`` measures the same on a
model whose parameter sits in guards, effects and array indices (``guarded_model``:
``W(j) = [x != j] ...``), where the instances differ in integer literals that the
family code reads per instance (``BR_PK``), not only in event names.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bridge import api
from bridge.engine_c import build, driver, gen_families
from bridge.frontends.csp import load_csp
from bridge.frontends.csp.template import TemplateCache
from bridge.semantics import statespace

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "case_studies" / "le_pl" / "le_pl.csp"


def guarded_model(n: int) -> str:
    """Return a CSP# model of ``n`` instances of ``W(j)`` whose parameter ``j`` the
    front-end writes into guards, assignments and computed array indices (each
    instance is lowered on its own, with its own literals)."""
    return f"""#define N {n};
var x = 0;
var bit[N];
W(j) = [x != j] a.j{{x = j; bit[j] = 1 - bit[j];}} -> W(j)
    [] [bit[(j + 1) % N] == 1 && x < N - 1] b.j{{x = (j * 2 + 1) % N;}} -> W(j);
Sys() = ||| j:{{0..N-1}}@W(j);
#define home (x == 0);
#assert Sys() deadlockfree;
#assert Sys() |= []<> home;
"""


@contextlib.contextmanager
def baseline() -> Iterator[None]:
    """Turn the templates and the family code off (every leaf lowered, every instance
    compiled on its own, as before issue 13)."""
    shape = TemplateCache._shape
    family_min = statespace.FAMILY_MIN_INSTANCES
    TemplateCache._shape = lambda self, leaf: None  # type: ignore[method-assign]
    statespace.FAMILY_MIN_INSTANCES = 10**12
    try:
        yield
    finally:
        TemplateCache._shape = shape  # type: ignore[method-assign]
        statespace.FAMILY_MIN_INSTANCES = family_min


def set_up(n: int) -> dict[str, float]:
    """Return the CPU seconds of loading, building and the first expansion at ``n``."""
    text = re.sub(r"#define N \d+;", f"#define N {n};", MODEL.read_text())
    out: dict[str, float] = {}
    start = time.process_time()
    system = load_csp(f"le_pl_{n}.csp", text).systems[0]
    out["load"] = time.process_time() - start
    start = time.process_time()
    space = statespace.build_state_space(system)
    out["build"] = time.process_time() - start
    start = time.process_time()
    (initial,) = space.initial_states()
    succ = space.successors(initial)
    out["expand"] = time.process_time() - start
    assert len(succ) == 2 * n + 3
    return out


def check(n: int, counter: bool) -> tuple[float, str, int]:
    """Return (CPU seconds, outcome, states) of the whole check at ``n``."""
    text = re.sub(r"#define N \d+;", f"#define N {n};", MODEL.read_text())
    start = time.process_time()
    system = load_csp(f"le_pl_{n}.csp", text).systems[0]
    verdict = api.check_property(system, system.properties[0], api.CheckOptions(
        engine="python", counter_abstraction=counter))
    return time.process_time() - start, verdict.outcome.name, verdict.statistics.states


@contextlib.contextmanager
def per_instance_code() -> Iterator[None]:
    """Turn the C engine's family code off (every static instance its own functions)."""
    least = gen_families.FAMILY_MIN_C
    gen_families.FAMILY_MIN_C = 10**12
    try:
        yield
    finally:
        gen_families.FAMILY_MIN_C = least


def c_code(n: int, timeout: float, guarded: bool = False) -> dict[str, float]:
    """Return what the C unit of LE (``guarded``: of ``guarded_model``) at ``n`` costs:
    generate (s), bytes, functions (location functions) and compile (compiler CPU s;
    ``timeout`` + 1 when cut)."""
    if guarded:
        system = load_csp(f"guarded_{n}.csp", guarded_model(n)).systems[0]
    else:
        text = re.sub(r"#define N \d+;", f"#define N {n};", MODEL.read_text())
        system = load_csp(f"le_pl_{n}.csp", text).systems[0]
    start = time.process_time()
    source = driver.generate_model(system).source
    out = {"generate": time.process_time() - start, "bytes": float(len(source)),
           "functions": float(len(re.findall(r"^static void [LET]\w+\(ctx_t \*c,", source,
                                             re.M)))}
    compiler = build.find_compiler()
    assert compiler is not None, "no C compiler"
    with tempfile.TemporaryDirectory(prefix="bridge-bench-") as work:
        c_file = Path(work) / "model.c"
        c_file.write_text(source, encoding="utf-8")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            subprocess.run([compiler, *build.FLAGS, "-o", str(Path(work) / "model.so"),
                            str(c_file)], check=True, timeout=timeout, capture_output=True)
        except subprocess.TimeoutExpired:
            out["compile"] = timeout + 1
            return out
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    out["compile"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out


def _c_line(got: dict[str, float], timeout: float) -> str:
    compile_s = (f">{timeout:.0f}s" if got["compile"] > timeout
                 else f"{got['compile']:.2f}s")
    return (f"generate={got['generate']:.2f}s bytes={got['bytes']:.0f} "
            f"functions={got['functions']:.0f} compile={compile_s} CPU")


def main(argv: list[str]) -> int:
    """Run the benchmark; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[1000, 3000, 10000])
    parser.add_argument("--baseline", action="store_true",
                        help="also measure with templates and family code off")
    parser.add_argument("--c-engine", action="store_true",
                        help="measure the C engine's generated code and its compile instead")
    parser.add_argument("--guarded", action="store_true",
                        help="with --c-engine: the model of guarded_model, not LE")
    parser.add_argument("--compile-timeout", type=float, default=300.0)
    args = parser.parse_args(argv)
    if args.c_engine:
        for n in args.sizes:
            now = c_code(n, args.compile_timeout, args.guarded)
            print(f"N={n:<6} C engine, family code: {_c_line(now, args.compile_timeout)}",
                  flush=True)
            if args.baseline:
                with per_instance_code():
                    before = c_code(n, args.compile_timeout, args.guarded)
                print(f"N={n:<6} C engine, per instance: {_c_line(before, args.compile_timeout)}"
                      f" (bytes x{before['bytes'] / now['bytes']:.1f}, compile "
                      f"x{before['compile'] / max(now['compile'], 1e-9):.1f})", flush=True)
        return 0
    for n in args.sizes:
        now = set_up(n)
        line = " ".join(f"{k}={v:.2f}s" for k, v in now.items())
        print(f"N={n:<6} set-up CPU: {line}")
        if args.baseline:
            with baseline():
                before = set_up(n)
            line = " ".join(f"{k}={v:.2f}s (x{v / max(now[k], 1e-9):.1f})"
                            for k, v in before.items())
            print(f"N={n:<6} baseline:     {line}")
        for counter in (False, True):
            seconds, outcome, states = check(n, counter)
            what = "counter abstraction" if counter else "no fairness"
            print(f"N={n:<6} check ({what}): {seconds:.2f}s CPU, {outcome}, {states} states")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
