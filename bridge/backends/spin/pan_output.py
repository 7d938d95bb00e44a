"""Parse what pan prints: error kind and depth, state and transition counts, memory.

Pan's report format (SPIN 6.5) is documented in promela-spin.md; the numbers are read
with one regular expression each so that a missing line leaves the field at zero
rather than failing (pan prints less when it is killed or runs out of memory).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

ERROR_KINDS = (
    "assertion violated",
    "invalid end state",
    "acceptance cycle",
    "non-progress cycle",
    "claim violated",
    "index out of range",
)


_ERROR_LINE = re.compile(r"^pan:\d+: (?P<msg>.*?)(?: \(at depth (?P<depth>\d+)\))?\s*$", re.M)
_PATTERNS: Mapping[str, re.Pattern[str]] = {
    "errors": re.compile(r"errors: (\d+)"),
    "depth": re.compile(r"depth reached (\d+)"),
    "stored": re.compile(r"^\s*(\d+) states, stored", re.M),
    "matched": re.compile(r"^\s*(\d+) states, matched", re.M),
    "transitions": re.compile(r"^\s*(\d+) transitions \(", re.M),
    "memory": re.compile(r"^\s*([\d.]+)\s+total actual memory usage", re.M),
    "elapsed": re.compile(r"pan: elapsed time ([\d.e+-]+) seconds"),
    "claim": re.compile(r"^\s*never claim\s+\+ \((.*)\)\s*$", re.M),
}


# pan refusing to run (not a verdict): the caller raises BackendError with the line
_FATAL = re.compile(
    r"^.*(?:p\.o\. reduction not compatible|too many processes|VECTORSZ too small|"
    r"cannot find claim|requires the use of -a or -l|has unconditional self-loop).*$",
    re.M,
)
_PROGRESS = re.compile(r"States=\s*([\d.e+]+)\s+Transitions=\s*([\d.e+]+)")


def classify_error(message: str) -> str:
    """Return the error kind (one of ``ERROR_KINDS``) for pan's error message."""
    low = message.lower()
    if "invalid array index" in low or "index out of range" in low:
        return "index out of range"
    for kind in ERROR_KINDS:
        if low.startswith(kind):
            return kind
    if "end state in claim reached" in low:
        return "claim violated"
    return message.strip()


def parse_pan_output(output: str) -> dict[str, object]:
    """Return the numbers pan printed (keys: errors, depth, stored, matched,
    transitions, memory, elapsed, claim, error, error_depth, summary, flags)."""
    found: dict[str, object] = {}
    for key, pattern in _PATTERNS.items():
        m = pattern.search(output)
        if m:
            value = m.group(1)
            found[key] = value if key == "claim" else float(value)
    m = _ERROR_LINE.search(output)
    if m:
        found["error"] = m.group("msg")
        if m.group("depth"):
            found["error_depth"] = int(m.group("depth"))
    if "stored" not in found:
        # killed before the summary: take the last progress line (States= 3e+06 ...)
        progress = _PROGRESS.findall(output)
        if progress:
            found["stored"] = float(progress[-1][0])
            found["transitions"] = float(progress[-1][1])
    found["summary"] = "errors" in found
    fatal = _FATAL.search(output)
    if fatal:
        found["fatal"] = fatal.group(0).strip()
    found["depth_limit_hit"] = "max search depth too small" in output
    found["out_of_memory"] = "out of memory" in output.lower() or "reached -DMEMLIM bound" in output
    return found
