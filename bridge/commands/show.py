"""``bridge show MODEL``: print the model's IR (text, or JSON with ``--json``)."""

from __future__ import annotations

import argparse
import sys

from bridge import api
from bridge.commands import _common


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``show`` subcommand."""
    parser = subparsers.add_parser(
        "show", help="print the intermediate representation",
        description="Print the transition system(s) the front-end built from the model.")
    _common.add_model_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the IR as tagged JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the IR; return 0."""
    text = api.show(_common.load(args), as_json=args.json)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
