"""``bridge simulate MODEL``: print one random run as a step table.

The seed is printed so that a run can be repeated with ``--seed``.
"""

from __future__ import annotations

import argparse
import random

from bridge import api
from bridge.commands import _common


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``simulate`` subcommand."""
    parser = subparsers.add_parser(
        "simulate", help="print a random run",
        description="Run the model with random choices and print the steps.")
    _common.add_model_arguments(parser)
    parser.add_argument("--steps", type=_common.non_negative_int, default=30, metavar="N",
                        help="at most N steps (default 30)")
    parser.add_argument("--seed", type=int, default=None, metavar="S",
                        help="random seed (default: a fresh one, printed)")
    parser.add_argument("--system", default=None, metavar="NAME",
                        help="simulate this system (CSP#: the asserted process)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Simulate; return 0."""
    model_file = _common.load(args)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    trace = api.simulate(model_file, args.steps, seed, args.system)
    out = _common.console()
    out.print(f"random run of {args.model} (seed {seed}, {len(trace.steps)} steps)")
    _common.print_trace(out, trace)
    return 0
