"""How fast a big HTML report opens in headless Chromium (issue 14).

Run: ``python3 benchmarks/report_open.py [--repeat 3]``. Needs chromium and Graphviz.
For each case, writes the report with the ``bridge`` command, then opens it ``repeat``
times in one headless Chromium (``tests/chromium.py``) and prints the median of: the
time from navigation to the load event (measured by the driver), the time from
navigation start until the page's script finished (``data-ready-ms``, measured by the
page), the live DOM elements, and the HTML size. Cases:

* ``ring-100``: ``bridge check`` of a CSP# ring of 100 processes passing a token: a
  lasso of 100 steps through 100 columns, 100 control-flow graphs (folded);
* ``ring-300``: the same with 300 processes;
* ``lasso-10000``: ``bridge report`` of a saved result whose lasso has 10,000 steps
  (a prefix of 4,000, a loop of 6,000, 5 processes, 6,000 actions in the fairness
  table): 50 chart pages, a folded graph.

Timings on a shared machine are noisy: compare cases measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.chromium import Browser  # noqa: E402
from tests.unit.report.synthetic import long_lasso  # noqa: E402

RING = """\
var x = 0;
P(i) = [x == i] go.i{{x = (x + 1) % {n};}} -> P(i);
Ring() = ||| i:{{0..{last}}}@P(i);
#define done x == {n};
#assert Ring() |= <> done;
"""


def _bridge(*args: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "bridge", *args], cwd=ROOT, check=False,
                   capture_output=True, text=True, timeout=1800)
    return time.perf_counter() - started


def _cases(scratch: Path) -> list[tuple[str, Path, float]]:
    cases = []
    for n in (100, 300):
        model = scratch / f"ring{n}.csp"
        model.write_text(RING.format(n=n, last=n - 1))
        page = scratch / f"ring{n}.html"
        cases.append((f"ring-{n}", page, _bridge("check", str(model), "--html", str(page))))
    saved = scratch / "lasso.json"
    saved.write_text(json.dumps(long_lasso(4000, 6000, processes=5)) + "\n")
    page = scratch / "lasso.html"
    cases.append(("lasso-10000", page, _bridge("report", str(saved), "--html", str(page))))
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description="Open big reports in headless Chromium.")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        cases = _cases(Path(scratch))
        print("| case | written in s | HTML MB | load s (median) | script done s (median) "
              "| live elements | script errors |")
        print("|---|---|---|---|---|---|---|")
        with Browser() as browser:
            for name, page, written in cases:
                loads, ready, elements, errors = [], [], 0, []
                for _ in range(args.repeat):
                    visit = browser.open(page)
                    loads.append(visit.load_seconds)
                    ready.append(int(visit.evaluate(
                        "document.documentElement.dataset.readyMs || -1000")) / 1000)
                    elements = visit.evaluate("document.getElementsByTagName('*').length")
                    errors = visit.errors()
                size = page.stat().st_size / 2**20
                print(f"| {name} | {written:.1f} | {size:.1f} | {statistics.median(loads):.2f} "
                      f"| {statistics.median(ready):.2f} | {elements} | {len(errors)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
