"""``bridge check MODEL...``: check every assertion (or one) and print one result each.

Exit code 0 when every checked assertion holds, 1 when one is violated (its
counterexample is printed), 3 when a resource limit left one without a verdict
(DESIGN.md section 8). ``--json`` prints one JSON object per assertion, one per line
(the first of each system also carries its ``outline``: processes and source, for
``bridge report``); ``--html FILE`` writes the same results as an HTML report.
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.text import Text

from bridge import api
from bridge.commands import _common
from bridge.diagnostics import ConfigurationError, SourceError
from bridge.ir.verdict import Verdict


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``check`` subcommand."""
    parser = subparsers.add_parser(
        "check", help="check the model's assertions",
        description="Check every assertion of the model (or the one chosen with "
                    "--assert) and print one result per assertion.")
    _common.add_model_arguments(parser, several=True)
    parser.add_argument("--assert", dest="assertion", metavar="N|NAME", default=None,
                        help="check only assertion N (1-based, in file order) or the one "
                             "with this name or text")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object per assertion (one per line)")
    _common.add_html_argument(parser, "the verdicts, counterexamples (message sequence "
                                      "chart, lasso graph, fairness table) and processes")
    _common.add_limit_arguments(parser)
    _common.add_engine_argument(parser)
    parser.add_argument("--fairness", type=_common.fairness_type, default=None,
                        metavar="NOTION",
                        help="fairness for LTL assertions: none, weak, strong-local, "
                             "strong-global, process-weak, process-strong (also PAT's "
                             "names, e.g. 'Event-level Weak Fair Only', and wf/sf/gf/pwf/psf)")
    parser.add_argument("--fair", dest="annotations", type=_common.annotation_type,
                        action="append", default=[], metavar="MARK:EVENT",
                        help="add a fairness annotation to an event, e.g. sf:rule1.0.1 "
                             "(MARK: wf, sf, wl, sl, f); repeatable")
    parser.add_argument("--ignore-end-states", action="store_true",
                        help="do not report deadlocks at invalid end states (SPIN -E)")
    parser.add_argument("--por", action="store_true",
                        help="use partial order reduction where it is sound")
    parser.add_argument("--symmetry", action="store_true",
                        help="use symmetry reduction where it is sound")
    parser.add_argument("--counter-abstraction", action="store_true",
                        help="check LTL on the process counter abstraction (identical "
                             "processes; fairness none, process-weak or process-strong)")
    parser.add_argument("--cutoff", type=_common.positive_int, default=None, metavar="K",
                        help="with --counter-abstraction: counts above K become omega")
    parser.add_argument("--unbounded", action="store_true",
                        help="with --counter-abstraction and --cutoff: any number of "
                             "processes in each family")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check the assertions of each model; return the exit code.

    With several models, a model that cannot be loaded is reported and skipped, and the
    exit code is 2 at the end; otherwise 1 if a property is violated, 3 if one is left
    unknown by a limit, else 0.
    """
    out = _common.console()
    several = len(args.models) > 1
    results: list[tuple[str, int, str, Verdict]] = []
    records: list[dict] = []  # the JSON objects, for --json and --html
    bad_input = False
    with _common.ProgressLine() as progress:
        options = api.CheckOptions(
            fairness=args.fairness, annotations=tuple(args.annotations),
            max_states=args.max_states, timeout=args.timeout,
            ignore_end_states=args.ignore_end_states, por=args.por,
            symmetry=args.symmetry, counter_abstraction=args.counter_abstraction,
            cutoff=args.cutoff, unbounded=args.unbounded, progress=progress.update,
            engine=args.engine, max_memory=_common.max_memory_bytes(args))
        for path in args.models:
            progress.restart(f"loading {path}")
            try:
                model_file = _common.load_path(path, args.defines, args.timeout)
                pairs = api.select_properties(model_file, args.assertion)
                refused = api.select_refused(model_file, args.assertion)
            except (SourceError, ConfigurationError) as error:
                if not several:
                    raise
                print(_common.describe_error(error), file=sys.stderr)
                bad_input = True
                continue
            if not pairs and not refused:
                print(f"{path}: the model has no assertions to check", file=sys.stderr)
            # checked and unchecked assertions, in file order
            items = sorted([(p.number, s, p) for s, p in pairs]
                           + [(r.number, None, r) for r in refused], key=lambda i: i[0])
            for index, (number, system, prop) in enumerate(items, 1):
                progress.restart(f"{path} assertion {index}/{len(items)} ({prop.text})")
                if system is None:
                    verdict = api.refused_verdict(prop)
                    results.append((path, number, prop.text, verdict))
                    if args.json or args.html:
                        records.append(api.verdict_json(path, None, prop, verdict))
                else:
                    verdict = api.check_property(system, prop, options)
                    results.append((path, number, prop.text, verdict))
                    if args.json or args.html:
                        first = all(r["model"] != path or r["system"] != system.name
                                    for r in records)
                        records.append(api.verdict_json(path, system, prop, verdict,
                                                        outline=first))
                if args.json:
                    print(json.dumps(records[-1]), flush=True)
                    continue
                if len(results) > 1:
                    out.print()
                if several:
                    out.print(Text(f"{path}", style="bold"))
                _common.print_verdict(out, number, verdict, prop.text)
    if not args.json and len(results) > 1:
        out.print()
        out.print(_common.summary_table(results, show_model=several))
    if args.html and records:
        _common.write_report(args.html, f"bridge check {' '.join(args.models)}",
                             checks=records)
    if bad_input:
        return 2
    return api.outcome_exit_code([verdict for *_, verdict in results])
