"""``bridge translate MODEL --to promela|csp``: write the model in another language.

``--to promela`` emits Promela SPIN accepts (``emit_promela``; encodings ``plain``,
``premise``, ``action-process``); ``--to csp`` emits CSP# for PAT from a Promela model
and refuses constructs CSP# lacks with a message naming the construct.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bridge import compare
from bridge.commands import _common
from bridge.ir.property import Fairness


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``translate`` subcommand."""
    parser = subparsers.add_parser(
        "translate", help="write the model as Promela or CSP#",
        description="Translate the model: to Promela (for SPIN; with fairness encoded "
                    "as LTL premises or one process per action) or to CSP# (for PAT).")
    _common.add_model_arguments(parser)
    parser.add_argument("--to", choices=compare.TARGETS, default="promela",
                        help="target language (default promela)")
    parser.add_argument("--encoding", choices=("plain", "premise", "action-process"),
                        default="plain", help="fairness encoding for Promela (default plain)")
    parser.add_argument("--fairness", type=_common.fairness_type, default=Fairness.NONE,
                        metavar="NOTION", help="fairness the encoding builds in")
    parser.add_argument("--fair", dest="annotations", type=_common.annotation_type,
                        action="append", default=[], metavar="MARK:EVENT",
                        help="a fairness annotation as an extra premise (repeatable)")
    parser.add_argument("--style", choices=("auto", "structured", "explicit-pc"),
                        default="auto", help="Promela layout (default: auto)")
    parser.add_argument("--assert", dest="assertion", metavar="N|NAME", default=None,
                        help="keep only assertion N")
    parser.add_argument("-o", dest="output", metavar="FILE", default=None,
                        help="write to FILE (default: standard output)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Translate the model; return 0."""
    model_file = _common.load(args)
    text = compare.translate(model_file, args.to, args.encoding, args.fairness,
                             args.assertion, tuple(args.annotations), args.style)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
