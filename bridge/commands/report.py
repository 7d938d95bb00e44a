"""``bridge report RESULTS... --html FILE``: draw saved results as one HTML page.

RESULTS are the output of ``bridge check --json`` (saved with ``> results.json``) or
the files of ``bridge compare --json FILE`` and ``bridge regress --json FILE``; several
files make one page. The page is the one ``--html`` writes directly (see
``bridge.report``). Exit code 0, or 2 for a file that is not bridge results.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bridge import api
from bridge.commands import _common


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``report`` subcommand."""
    parser = subparsers.add_parser(
        "report", help="draw saved results (check/compare/regress --json) as HTML",
        description="Write the results saved by 'bridge check --json', 'bridge compare "
                    "--json FILE' or 'bridge regress --json FILE' as one self-contained "
                    "HTML page: verdicts, counterexamples as message sequence charts and "
                    "graphs, fairness tables, processes, comparison and regression plots.")
    parser.add_argument("results", metavar="RESULTS", nargs="+",
                        help="JSON results file(s)")
    parser.add_argument("--html", metavar="FILE", required=True,
                        help="the HTML file to write")
    parser.add_argument("--title", default=None, help="the page's title "
                        "(default: 'bridge report' and the file names)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write the report; return 0."""
    results = api.read_results(args.results)
    title = args.title or "bridge report: " + ", ".join(Path(p).name for p in args.results)
    _common.write_report(args.html, title, results=results)
    return 0
