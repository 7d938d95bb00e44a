"""``bridge explore MODEL``: build the reachable state space and report its size.

Prints states, transitions, time and states/s for each system of the model (a CSP#
file has one per asserted process). Exit code 3 when a limit stopped the search.
"""

from __future__ import annotations

import argparse

from rich.console import Console

from bridge import api
from bridge.commands import _common
from bridge.diagnostics import ResourceLimitReached
from bridge.ir.verdict import Statistics


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``explore`` subcommand."""
    parser = subparsers.add_parser(
        "explore", help="count reachable states and transitions",
        description="Explore the full reachable state space and print its size.")
    _common.add_model_arguments(parser)
    parser.add_argument("--system", default=None, metavar="NAME",
                        help="explore only this system (CSP#: the asserted process)")
    _common.add_limit_arguments(parser)
    _common.add_engine_argument(parser)
    parser.add_argument("--ignore-end-states", action="store_true",
                        help="accepted for symmetry with check; counts are unaffected")
    parser.set_defaults(run=run)


def _print(out: Console, heading: str, statistics: Statistics) -> None:
    rate = api.statistics_rate(statistics)
    out.print(heading)
    out.print(f"  states       {statistics.states}")
    out.print(f"  transitions  {statistics.transitions}")
    out.print(f"  seconds      {_common.format_seconds(statistics.seconds)}")
    out.print(f"  states/s     {'-' if rate is None else f'{rate:.0f}'}")
    if statistics.depth:
        out.print(f"  depth        {statistics.depth}")
    extra = dict(statistics.extra)
    if "bytes_per_state" in extra:
        out.print(f"  bytes/state  {extra['bytes_per_state']}")
    if "engine" in extra:
        engine = str(extra["engine"])
        if extra.get("compile_seconds"):
            engine += f" (compiled in {_common.format_seconds(extra['compile_seconds'])} s)"
        out.print(f"  engine       {engine}")
    for key, value in statistics.extra:
        if key == "engine_note":
            out.print(f"  note: {value}")


def run(args: argparse.Namespace) -> int:
    """Explore; return 0, or 3 when a limit was reached."""
    model_file = _common.load(args)
    out = _common.console()
    with _common.ProgressLine("exploring") as progress:
        options = api.CheckOptions(max_states=args.max_states, timeout=args.timeout,
                                   ignore_end_states=args.ignore_end_states,
                                   progress=progress.update, engine=args.engine,
                                   max_memory=_common.max_memory_bytes(args))
        try:
            results = api.explore(model_file, args.system, options)
        except ResourceLimitReached as limit:
            out.print(f"limit reached before the whole state space was seen: {limit}")
            if isinstance(limit.statistics, Statistics):
                _print(out, "statistics so far", limit.statistics)
            return 3
    for system, statistics in results:
        _print(out, f"system {system.name}", statistics)
    return 0
