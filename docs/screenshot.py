"""Regenerate the README's screenshot of an HTML report (issue 14).

    python3 docs/screenshot.py            # writes docs/report-screenshot.png

Checks MODEL (default: the channels-and-barrier test model) with ``bridge check
--html``, opens the report in headless Chromium (Debian's ``chromium``, driven as the
browser tests drive it: ``tests/chromium.py``), scrolls to the first counterexample and
saves the visible part as a PNG. Needs chromium and Graphviz.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.chromium import Browser  # noqa: E402

DEFAULT_MODEL = "tests/models/report/channels_and_barrier.csp"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--out", default=str(ROOT / "docs" / "report-screenshot.png"))
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=900)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        page = Path(scratch) / "report.html"
        done = subprocess.run([sys.executable, "-m", "bridge", "check", args.model, "--html",
                               str(page)], cwd=ROOT, capture_output=True, text=True,
                              check=False)
        if not page.exists():
            print(done.stderr, file=sys.stderr)
            return 1
        with Browser() as browser:
            visit = browser.open(page, width=args.width, height=args.height)
            errors = visit.errors()
            if errors:
                print(f"script errors: {errors}", file=sys.stderr)
                return 1
            visit.evaluate("document.querySelector('section.result.violated h3')"
                           ".scrollIntoView({block: 'start'})")
            visit.screenshot(args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
