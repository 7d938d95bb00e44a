"""``bridge regress [PATH...]``: run the case studies' expected verdicts and compare.

Reads ``expected.toml`` under each PATH (default ``case_studies``), checks every row
(or, with ``--fast``, the rows marked fast; with ``--max-seconds``, those that fit the
budget), prints one table (model, size, property, fairness, reduction, expected, got,
states, seconds, status) and exits 1 on any mismatch or error, else 0. A row's
``reduction`` key (``counter-abstraction``, ``symmetry``, ``por``; see
``bridge.regress``) is asked of the engine, and a reduction the engine refuses makes the
row an error. ``--junit``, ``--markdown``, ``--json`` and ``--html`` write the same
results as JUnit XML, a Markdown table, JSON (for ``bridge report``) and an HTML page
(the table coloured by status, our time against the paper's).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bridge import regress, results_doc
from bridge.commands import _common
from bridge.diagnostics import ConfigurationError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``regress`` subcommand."""
    parser = subparsers.add_parser(
        "regress", help="check the case studies against the papers' verdicts",
        description="Run the rows of case_studies/*/expected.toml and compare each "
                    "verdict with the paper's. Exit 1 on a mismatch or error.")
    parser.add_argument("paths", nargs="*", default=["case_studies"], metavar="PATH",
                        help="case-study folders, expected.toml files or model files "
                             "(default: case_studies)")
    parser.add_argument("--fast", action="store_true",
                        help="only the rows marked fast = true (the CI set)")
    parser.add_argument("--max-seconds", type=float, default=None, metavar="S",
                        help="total time budget; rows that do not fit are skipped")
    parser.add_argument("--timeout", type=float, default=None, metavar="S",
                        help="time limit per check (seconds)")
    parser.add_argument("--max-states", type=int, default=None, metavar="N",
                        help="state limit per check")
    parser.add_argument("--memory", type=int, default=None, metavar="MB",
                        help="memory limit per check (default: 80%% of the physical "
                             "memory shared among the jobs); a check that needs more "
                             "is a 'limit' row")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                        help="checks run in parallel (default 1)")
    parser.add_argument("--fairness", default=None, metavar="NAME",
                        help="only rows with this fairness (none, weak, strong-local, "
                             "strong-global, process-weak, process-strong, annotated)")
    parser.add_argument("--case", action="append", default=None, metavar="NAME",
                        help="only this case study (repeatable)")
    parser.add_argument("--size", action="append", default=None, metavar="N=V",
                        help="only rows of this size, as the table prints it (N=1000; "
                             "repeatable)")
    parser.add_argument("--reduction", default=None, metavar="NAME",
                        choices=("none", *regress.REDUCTION_NAMES),
                        help="only rows with this reduction (none: the unreduced rows)")
    parser.add_argument("--expected", default=None, choices=("holds", "violated", "unknown"),
                        help="only rows whose expected verdict is this one")
    parser.add_argument("--show-missing", action="store_true",
                        help="also list the rows of case studies without a model")
    parser.add_argument("--show-traces", action="store_true",
                        help="print the counterexample of every violated row")
    parser.add_argument("--junit", default=None, metavar="FILE",
                        help="write JUnit XML (one testcase per row)")
    parser.add_argument("--markdown", default=None, metavar="FILE",
                        help="write the results as a Markdown table")
    parser.add_argument("--json", default=None, metavar="FILE",
                        help="write the results as JSON (bridge report draws them)")
    _common.add_html_argument(parser, "the results table coloured by status and a plot "
                                      "of our time against the paper's")
    parser.add_argument("--results", default=None, metavar="FILE",
                        help="write the results document (case_studies/RESULTS.md); "
                             "keeps the FILE's '## Notes' section if it has one")
    parser.add_argument("--update", action="store_true",
                        help="with --results: run only the selected rows and keep the "
                             "other rows of FILE (every row of the case studies in FILE's "
                             "folder) as its last run printed them")
    parser.add_argument("--readme", default=None, metavar="FILE",
                        help="with --results: copy the document's tables (summary per "
                             "case study, all rows) into FILE's '### Summary per case "
                             "study' section")
    parser.set_defaults(run=run)


def _write_results(args: argparse.Namespace, results: list[regress.RowResult]) -> None:
    """Write ``--results`` (with ``--update``: merged into the FILE's other rows, every
    row of the case studies beside it) and ``--readme``."""
    target = Path(args.results)
    old = target.read_text(encoding="utf-8") if target.is_file() else ""
    notes = ""
    start = old.find("## Notes")
    if start >= 0:
        ends = [i for i in (old.find("## Summary per case study", start),
                            old.find("## All rows", start)) if i >= 0]
        notes = old[start:min(ends) if ends else None]
    document = results
    if args.update:
        every = regress.load_rows([target.parent])
        if not args.show_missing:
            every = [r for r in every if not r.missing]
        try:
            kept = results_doc.previous_results(old, every)
        except ValueError as error:
            raise ConfigurationError(f"--update {target}: {error}; the document's rows "
                                     f"are those of {target.parent}/*/expected.toml") from None
        document = results_doc.merge(kept, results)
    target.write_text(regress.format_results_document(document, notes), encoding="utf-8")
    if args.readme:
        readme = Path(args.readme)
        try:
            text = results_doc.update_readme(readme.read_text(encoding="utf-8"), document)
        except (OSError, ValueError) as error:
            raise ConfigurationError(f"--readme {readme}: {error}") from None
        readme.write_text(text, encoding="utf-8")


def _select(args: argparse.Namespace) -> list[regress.Row]:
    rows: list[regress.Row] = []
    for given in args.paths:
        path = Path(given)
        if path.is_file() and path.name != "expected.toml":
            rows.extend(regress.load_rows([path], only_file=str(path)))
        else:
            rows.extend(regress.load_rows([path]))
    if args.fast:
        rows = [r for r in rows if r.fast]
    if args.fairness:
        if args.fairness not in regress.FAIRNESS_NAMES:
            raise ConfigurationError(f"unknown fairness {args.fairness!r}; allowed: "
                                     f"{', '.join(regress.FAIRNESS_NAMES)}")
        rows = [r for r in rows if r.fairness == args.fairness]
    if args.case:
        rows = [r for r in rows if r.case in set(args.case)]
    if args.size:
        rows = [r for r in rows if r.size_text in set(args.size)]
    if args.reduction:
        wanted = "" if args.reduction == "none" else args.reduction
        rows = [r for r in rows if r.reduction == wanted]
    if args.expected:
        rows = [r for r in rows if r.expected == args.expected]
    if not args.show_missing:
        rows = [r for r in rows if not r.missing]
    return rows


def run(args: argparse.Namespace) -> int:
    """Run the selected rows; return 1 on any mismatch or error, 0 otherwise."""
    if (args.update or args.readme) and not args.results:
        raise ConfigurationError("--update and --readme need --results FILE")
    rows = _select(args)
    if not rows:
        print("regress: no rows selected", file=sys.stderr)
        return 2
    done = [0]

    def progress(result: regress.RowResult) -> None:
        done[0] += 1
        took = "" if result.seconds is None else f" {result.seconds:.1f} s"
        print(f"[{done[0]}/{len(rows)}] {result.row.name}: {result.status} "
              f"({result.got}{took})", file=sys.stderr, flush=True)

    options = regress.RunOptions(max_seconds=args.max_seconds, timeout=args.timeout,
                                 max_states=args.max_states, jobs=max(1, args.jobs),
                                 keep_traces=args.show_traces, on_result=progress,
                                 memory_mb=args.memory)
    results = regress.run_rows(rows, options)
    print(regress.format_table(results))
    if args.show_traces:
        for result in results:
            if result.lasso_text:
                print(f"\ncounterexample for {result.row.name}:")
                print(result.lasso_text)
    if args.junit:
        Path(args.junit).write_text(regress.format_junit(results), encoding="utf-8")
    if args.markdown:
        Path(args.markdown).write_text(regress.format_markdown(results), encoding="utf-8")
    if args.json:
        Path(args.json).write_text(regress.format_json(results), encoding="utf-8")
    if args.html:
        _common.write_report(args.html, "bridge regress " + " ".join(args.paths),
                             regression=regress.results_json(results))
    if args.results:
        _write_results(args, results)
    failing = [r for r in results if r.status in regress.Status.FAILING]
    return 1 if failing else 0
