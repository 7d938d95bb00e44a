"""The ``bridge`` command: parse arguments, run a subcommand, map errors to exit codes.

Exit codes (DESIGN.md section 8): 0 every checked property holds; 1 a property is
violated (counterexample printed); 2 bad input or usage (``file:line:col: error: ...``
with the source line and a caret, or a message naming the allowed values); 3 a resource
limit (states, time, memory) was reached before a verdict (statistics so far printed,
when there are some); 4 an internal error of bridge (a bug: the message asks for a
report; ``BRIDGE_DEBUG=1`` shows the traceback); 130 interrupted.

Subcommands are the modules of ``bridge/commands/`` (``discover_commands``). This
module imports only ``bridge.api`` (through the commands), ``bridge.diagnostics`` and
``bridge.commands``.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Sequence

from bridge import __version__
from bridge.commands import _common, discover_commands
from bridge.diagnostics import (
    BackendError,
    BridgeError,
    ConfigurationError,
    ResourceLimitReached,
    SourceError,
)

EXIT_OK, EXIT_VIOLATED, EXIT_USAGE, EXIT_LIMIT, EXIT_INTERNAL = 0, 1, 2, 3, 4


def _unavailable(name: str, error: Exception) -> Callable[[argparse.Namespace], int]:
    """Return a command body that says why command ``name`` is unavailable."""

    def run(args: argparse.Namespace) -> int:
        print(f"bridge {name}: this command is unavailable: {type(error).__name__}: {error}",
              file=sys.stderr)
        return EXIT_USAGE

    return run


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with one subparser per command module."""
    parser = argparse.ArgumentParser(
        prog="bridge",
        description="Check Promela and CSP# models under fairness, beside SPIN.",
        epilog="exit codes: 0 holds, 1 violated, 2 bad input or usage, "
               "3 resource limit before a verdict, 4 internal error")
    parser.add_argument("--version", action="version", version=f"bridge {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name, module in discover_commands():
        if isinstance(module, Exception):
            sub = subparsers.add_parser(name, help="(unavailable: see 'bridge "
                                                   f"{name}')", add_help=False)
            sub.add_argument("rest", nargs=argparse.REMAINDER)
            sub.set_defaults(run=_unavailable(name, module))
        else:
            module.register(subparsers)
    return parser


def _print_statistics(statistics: object) -> None:
    states = getattr(statistics, "states", None)
    if states is None:
        return
    print(f"statistics so far: states {states}, transitions "
          f"{getattr(statistics, 'transitions', 0)}, "
          f"{getattr(statistics, 'seconds', 0.0):.3f} s", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``bridge`` with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse: --help/--version (0) or usage errors (2)
        return int(exit_.code or 0)
    run = getattr(args, "run", None)
    if run is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(run(args))
    except SourceError as error:
        print(_common.describe_error(error), file=sys.stderr)
        return EXIT_USAGE
    except ResourceLimitReached as error:
        print(f"bridge: resource limit reached: {error}", file=sys.stderr)
        _print_statistics(error.statistics)
        return EXIT_LIMIT
    except ConfigurationError as error:
        print(f"bridge: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except BackendError as error:
        print(f"bridge: error: {error}", file=sys.stderr)
        if error.stderr_tail:
            print(error.stderr_tail.rstrip(), file=sys.stderr)
        return EXIT_USAGE
    except BridgeError as error:
        print(f"bridge: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError:
        print("bridge: resource limit reached: out of memory before a verdict",
              file=sys.stderr)
        return EXIT_LIMIT
    except KeyboardInterrupt:
        print("bridge: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # stdout closed early (``bridge show m.pml | head``): not an error of bridge.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as error:  # a bug of bridge: say so instead of a traceback
        if os.environ.get("BRIDGE_DEBUG"):
            traceback.print_exc()
        print(f"bridge: internal error: {type(error).__name__}: {error}\n"
              "This is a bug in bridge; please report it with the model. "
              "Run with BRIDGE_DEBUG=1 to see the traceback.", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
