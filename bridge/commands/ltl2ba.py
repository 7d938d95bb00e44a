"""``bridge ltl2ba FORMULA``: the Büchi automaton of an LTL formula, by Spot or SPIN.

``--via spin`` runs ``spin -f`` and reads its never claim back into the same automaton
view as Spot's, so the two translators can be compared (``--format hoa|dot|never``).
"""

from __future__ import annotations

import argparse
import sys

from bridge import compare
from bridge.commands import _common


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``ltl2ba`` subcommand."""
    parser = subparsers.add_parser(
        "ltl2ba", help="translate an LTL formula to a Büchi automaton",
        description="Print the Büchi automaton of FORMULA (Spot syntax; [] and <> also "
                    "accepted), built by Spot or by spin -f.")
    parser.add_argument("formula", metavar="FORMULA")
    parser.add_argument("--via", choices=compare.TRANSLATORS, default="spot",
                        help="translator (default spot)")
    parser.add_argument("--format", dest="fmt", choices=compare.FORMATS, default="hoa",
                        help="output format (default hoa)")
    parser.add_argument("--timeout", type=_common.positive_float, default=60.0, metavar="S",
                        help="time limit for spin -f (default 60 s)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the automaton; return 0."""
    sys.stdout.write(compare.ltl_to_automaton(args.formula, args.via, args.fmt, args.timeout))
    return 0
