"""Load a CSP# model in a child process with a deadline: a regression test of a
loader that ran without end fails (``subprocess.TimeoutExpired``) instead of hanging."""

from __future__ import annotations

import subprocess
import sys

_SCRIPT = ("import sys\nfrom bridge.frontends.csp import load_csp\n"
           "try:\n    load_csp('t.csp', sys.stdin.read())\n"
           "except Exception as e:\n    print(type(e).__name__, e, file=sys.stderr)\n")


def load_within(text: str, seconds: float = 60) -> str:
    """Load ``text`` within ``seconds``; return what it reported (an error's class
    and message, or "" when it loaded)."""
    done = subprocess.run([sys.executable, "-c", _SCRIPT], input=text, text=True,
                          capture_output=True, timeout=seconds)
    return done.stderr
