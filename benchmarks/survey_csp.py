"""Load every public CSP# model of a survey directory with bridge and tabulate the result.

Usage::

    python benchmarks/survey_csp.py /work/survey/csp [--check SECONDS] [--markdown OUT.md]

The directory holds the models (one directory per repository, ``owner+name/path``) and a
``MANIFEST.tsv`` (repo, path, commit, role, kind): ``role`` is ``model`` (a file no other
file of the repository ``#include``s and that has an ``#assert``) or ``include``;
``kind`` is ``pat``, or ``cspm``/``other`` for files of other CSP dialects that share
the ``.csp`` suffix (FDR's CSPM: ``--`` comments, ``channel a : T``, ``assert P :[...]``,
``[| |]``; Hoare's original notation): they are listed but not in the denominator.
An optional ``PAT_NOTES.tsv`` (repo, path, pat, reason) records models PAT itself
rejects (``pat`` = ``rejects``, with the line and the reason): they are listed and not
in the denominator either. Without a manifest every ``.csp`` file is a model.

Each model is loaded in a fresh process (``bridge show``, which parses and lowers it), so
one model cannot disturb the next and a Python traceback (exit code 4) is caught as
such. ``--check S`` also runs ``bridge check --timeout S --max-states 200000`` and
records the verdicts. The models stay outside the repository: this script and its table
(``benchmarks/survey_csp.md``) are what is kept.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

BRIDGE = [sys.executable, "-m", "bridge"]
NOTES_MARK = "<!-- notes: kept when the table is regenerated -->"


@dataclass
class Row:
    repo: str
    path: str
    commit: str = ""
    kind: str = "pat"
    pat_rejects: str = ""  # why PAT itself rejects the model (PAT_NOTES.tsv), or ""
    loads: bool = False
    message: str = ""  # first line of the refusal (file:line:col: error: ...)
    traceback: bool = False
    verdicts: list[str] = field(default_factory=list)


def read_manifest(root: Path) -> list[Row]:
    """Return one row per model of the survey directory ``root``."""
    manifest = root / "MANIFEST.tsv"
    if not manifest.exists():
        return [
            Row(repo=p.parent.relative_to(root).as_posix(), path=p.name)
            for p in sorted(root.rglob("*.csp"))
        ]
    notes: dict[tuple[str, str], str] = {}
    if (root / "PAT_NOTES.tsv").exists():
        with (root / "PAT_NOTES.tsv").open(newline="", encoding="utf-8") as f:
            for rec in csv.DictReader(f, delimiter="\t"):
                if rec["pat"] == "rejects":
                    notes[(rec["repo"], rec["path"])] = rec["reason"]
    rows = []
    with manifest.open(newline="", encoding="utf-8") as f:
        for rec in csv.DictReader(f, delimiter="\t"):
            if rec["role"] == "model":
                rows.append(Row(rec["repo"], rec["path"], rec["commit"], rec["kind"],
                                notes.get((rec["repo"], rec["path"]), "")))
    return rows


def model_file(root: Path, row: Row) -> Path:
    direct = root / row.repo.replace("/", "+") / row.path
    return direct if direct.exists() else root / row.repo / row.path


def load(path: Path, timeout: float) -> tuple[bool, str, bool]:
    """Return (loads, first line of the error or the assertions left unchecked,
    traceback?) for one model."""
    try:
        proc = subprocess.run(
            [*BRIDGE, "show", str(path)], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return False, f"(loading took more than {timeout:.0f} s)", False
    if proc.returncode == 0:
        # A model that loads may leave assertions unchecked that PAT cannot check
        # either (a process whose unfolding does not end): say which.
        unchecked = [x.strip() for x in proc.stdout.splitlines()
                     if x.startswith("unchecked assertion")]
        return True, "; ".join(unchecked), False
    err = proc.stderr.strip()
    traceback = "Traceback (most recent call last)" in err or proc.returncode == 4
    line = next((x for x in err.splitlines() if "error:" in x), err.splitlines()[-1] if err
                else f"exit code {proc.returncode}")
    return False, line.strip(), traceback


def check(path: Path, seconds: float, load_timeout: float = 0.0) -> list[str]:
    """Return one ``N:VERDICT`` per assertion (``bridge check --json``); the check
    loads the model again (``load_timeout`` for that)."""
    try:
        proc = subprocess.run(
            [*BRIDGE, "check", "--json", "--timeout", str(seconds), "--max-states", "200000",
             str(path)],
            capture_output=True, text=True, timeout=load_timeout + seconds * 4 + 60,
        )
    except subprocess.TimeoutExpired:
        return ["(check did not stop)"]
    out = []
    for line in proc.stdout.splitlines():
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        out.append(f"{obj.get('number', '?')}:{obj.get('verdict', obj.get('result', '?'))}")
    if not out and proc.returncode not in (0, 1):
        out.append(f"exit {proc.returncode}")
    return out


def _short(message: str, root: Path) -> str:
    message = message.replace(str(root) + "/", "")
    message = re.sub(r"\s+", " ", message)
    return message if len(message) <= 160 else message[:157] + "..."


def markdown(rows: list[Row], root: Path, checked: bool) -> str:
    pat = [r for r in rows if r.kind == "pat" and not r.pat_rejects]
    loaded = [r for r in pat if r.loads]
    tracebacks = [r for r in rows if r.traceback]
    rejected = [r for r in rows if r.kind == "pat" and r.pat_rejects]
    # A user's own C# library (#import of a DLL the model's authors wrote): PAT runs it
    # only with that DLL; the issue asks bridge to refuse it with a clear error.
    library = [r for r in pat if not r.loads and "#import of the C# library" in r.message]
    rest = len(pat) - len(library)
    out = [
        "# Public CSP# models: what loads",
        "",
        "Produced by `benchmarks/survey_csp.py` (see its docstring for how the models were "
        "chosen and kept outside the repository).",
        "",
        f"- files surveyed: {len(rows)}; other CSP dialects (not in the denominator): "
        f"{sum(r.kind != 'pat' for r in rows)}; CSP# models PAT itself rejects (not in the "
        f"denominator): {len(rejected)}",
        f"- CSP# models PAT accepts that load here: **{len(loaded)} of {len(pat)}** "
        f"({100.0 * len(loaded) / max(1, len(pat)):.1f}%)",
        f"- of these, refused for a user's own C# library (the refusal the issue asks "
        f"for; marked *C# library* below): {len(library)}; without them: **{len(loaded)} "
        f"of {rest}** ({100.0 * len(loaded) / max(1, rest):.1f}%)",
        f"- Python tracebacks: {len(tracebacks)}",
        "",
        "| model (repo/path) | kind | loads? | refusal (or assertions left unchecked)"
        + (" | verdicts |" if checked else " |"),
        "|---|---|---|---" + ("|---|" if checked else "|"),
    ]
    for r in rows:
        kind = r.kind if not r.pat_rejects else f"pat (PAT rejects: {r.pat_rejects})"
        verdict = "yes" if r.loads else ("no (C# library)" if r in library else "**no**")
        cells = [f"{r.repo}/{r.path}", kind, verdict,
                 _short(r.message, root).replace("|", "\\|")]
        if checked:
            cells.append(" ".join(r.verdicts))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("directory", type=Path)
    ap.add_argument("--check", type=float, metavar="SECONDS", default=None,
                    help="also run 'bridge check' on each model that loads")
    ap.add_argument("--load-timeout", type=float, default=120.0)
    ap.add_argument("--markdown", type=Path, default=None, help="write the table here")
    ap.add_argument("--only", default=None, help="only models whose repo/path contains this")
    args = ap.parse_args(argv)
    root = args.directory.resolve()
    rows = read_manifest(root)
    if args.only:
        rows = [r for r in rows if args.only in f"{r.repo}/{r.path}"]
    for r in rows:
        path = model_file(root, r)
        r.loads, r.message, r.traceback = load(path, args.load_timeout)
        if r.loads and args.check is not None:
            r.verdicts = check(path, args.check, args.load_timeout)
        status = "ok" if r.loads else ("TRACEBACK" if r.traceback else "refused")
        print(f"{status:9} {r.repo}/{r.path} {_short(r.message, root)} {' '.join(r.verdicts)}",
              flush=True)
    text = markdown(rows, root, args.check is not None)
    if args.markdown:
        # Hand-written notes below the marker survive a regeneration of the table.
        if args.markdown.exists():
            old = args.markdown.read_text(encoding="utf-8")
            if NOTES_MARK in old:
                text += "\n" + old[old.index(NOTES_MARK):]
        args.markdown.write_text(text, encoding="utf-8")
    pat = [r for r in rows if r.kind == "pat" and not r.pat_rejects]
    print(f"\n{sum(r.loads for r in pat)} of {len(pat)} PAT-accepted models load; "
          f"{sum(r.traceback for r in rows)} tracebacks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
