"""``bridge compare MODEL``: one property through every engine and fairness encoding.

Prints one table per LTL assertion (engine, encoding, fairness, verdict, states,
transitions, Büchi states/edges, seconds, peak memory); see ``bridge/compare.py``.
The engines run concurrently (``--jobs``, default the number of cores) and each row is
shown on stderr as soon as it is known. ``--html FILE`` writes the tables and plots as
an HTML report. Exit code 0 when engines checking the same fairness agree, 1 when they
disagree (printed loudly), 2 for bad input.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from bridge import api, compare
from bridge.commands import _common
from bridge.diagnostics import ConfigurationError
from bridge.ir.property import Fairness, PropertyKind


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``compare`` subcommand."""
    parser = subparsers.add_parser(
        "compare", help="compare the native checker, SPIN encodings and Spot",
        description="Check LTL assertions with the native fair checker, SPIN with fairness "
                    "as LTL premises (its own translator and a Spot never claim), SPIN -a -f "
                    "on one process per action, SPIN without fairness and Spot's emptiness "
                    "check, and print one table.")
    _common.add_model_arguments(parser, several=True)
    parser.add_argument("--assert", dest="assertion", metavar="N|NAME", default=None,
                        help="compare only assertion N (default: every LTL assertion)")
    parser.add_argument("--fairness", type=_common.fairness_type, default=None,
                        metavar="NOTION",
                        help="fairness to compare (default: the assertion's, else weak)")
    parser.add_argument("--fair", dest="annotations", type=_common.annotation_type,
                        action="append", default=[], metavar="MARK:EVENT",
                        help="add a fairness annotation, e.g. sf:rule1.0.1 (repeatable)")
    parser.add_argument("--engines", default=",".join(compare.ENGINES), metavar="LIST",
                        help=f"comma-separated engines (default: {','.join(compare.ENGINES)})")
    parser.add_argument("--timeout", type=_common.positive_float, default=60.0, metavar="S",
                        help="seconds per engine run (default 60); a run that does not "
                             "finish is a timeout row")
    parser.add_argument("--memory", type=_common.positive_int, default=2048, metavar="MB",
                        help="memory limit per SPIN run in MB (default 2048)")
    parser.add_argument("--strong-global-form", choices=compare.STRONG_GLOBAL_FORMS,
                        default="per-step",
                        help="premise for strong global fairness: one conjunct per state "
                             "of the explicit graph (per-step, small graphs) or 'the run "
                             "ends in a bottom SCC taking all its steps' (bottom-scc)")
    parser.add_argument("--markdown", metavar="FILE", help="also write a Markdown table")
    parser.add_argument("--csv", metavar="FILE", help="also write CSV")
    parser.add_argument("--json", metavar="FILE", help="also write JSON")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="also plot seconds per engine (needs matplotlib: bridge[plot])")
    _common.add_html_argument(parser, "the tables and plots (time, states, Büchi size per "
                                      "encoding and per number of premises)")
    parser.add_argument("--jobs", "-j", type=_common.positive_int,
                        default=os.cpu_count() or 1, metavar="N",
                        help="engines run at the same time (default: the number of "
                             "cores, here %(default)s); 1 runs them one after the other")
    parser.set_defaults(run=run)


def _row_line(row: compare.CompareRow) -> str:
    """Return the one-line summary of a finished row (shown while the others run)."""
    parts = [f"{row.verdict}"]
    if row.states is not None:
        parts.append(f"{row.states} states")
    if row.buchi_states is not None:
        parts.append(f"Büchi {row.buchi_states}/{row.buchi_edges}")
    if row.seconds is not None:
        parts.append(f"{row.seconds:.2f} s")
    note = f"  # {row.note}" if row.note else ""
    return f"  done {row.engine} ({row.fairness}): {', '.join(parts)}{note}"


def run(args: argparse.Namespace) -> int:
    """Compare each chosen LTL assertion; return 1 if engines disagree, else 0."""
    engines = tuple(e.strip() for e in args.engines.split(",") if e.strip())
    work = []
    for path in args.models:
        model_file = _common.load_path(path, args.defines)
        pairs = [(s, p) for s, p in api.select_properties(model_file, args.assertion)
                 if p.kind in compare.COMPARABLE]
        if not pairs:
            raise ConfigurationError(f"{path}: no LTL assertion (or non-progress / "
                                     "acceptance cycles) to compare")
        work.extend((path, system, prop) for system, prop in pairs)
    comparisons, files = [], []
    for path, system, prop in work:
        # SPIN's only fairness is process-weak: the default for its label cycles
        default = Fairness.WEAK if prop.kind is PropertyKind.LTL else Fairness.PROCESS_WEAK
        fairness = args.fairness or prop.fairness or default
        options = compare.CompareOptions(
            fairness=fairness, annotations=tuple(args.annotations), timeout=args.timeout,
            memory_mb=args.memory, engines=engines,
            strong_global_form=args.strong_global_form, jobs=args.jobs)
        print(f"{path}: {prop.text or prop.name} (fairness {fairness.value}), "
              f"{len(engines)} engines, {min(args.jobs, len(engines))} at a time",
              file=sys.stderr, flush=True)
        result = compare.compare(
            system, prop, options,
            progress=lambda engine: print(f"  running {engine}...", file=sys.stderr,
                                          flush=True),
            on_row=lambda row: print(_row_line(row), file=sys.stderr, flush=True))
        comparisons.append(result)
        files.append(path)
        print(compare.format_table(result))
        print()
    if args.markdown:
        Path(args.markdown).write_text(compare.format_markdown(comparisons), encoding="utf-8")
    if args.csv:
        Path(args.csv).write_text(compare.format_csv(comparisons), encoding="utf-8")
    if args.json:
        Path(args.json).write_text(compare.format_json(comparisons, files), encoding="utf-8")
    if args.plot:
        compare.plot(comparisons, args.plot)
    if args.html:
        _common.write_report(args.html, f"bridge compare {' '.join(args.models)}",
                             comparisons=compare.comparisons_json(comparisons, files))
    return 1 if any(c.disagreement for c in comparisons) else 0
