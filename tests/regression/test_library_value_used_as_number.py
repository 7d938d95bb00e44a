"""Regression: a value of PAT's library classes (or a whole array received from a
channel) used as a number crashed the Python engine with an internal TypeError
(``bridge: internal error``, exit code 4). PAT aborts the verification with a runtime
error there (reference/cspsharp.md section 7); bridge reports it as it reports a
division by zero: VIOLATED, with the step that got there and the expression's place.
The C engine used to refuse such a model by name; it now meets the same error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from tests.conftest import in_ci

ROOT = Path(__file__).resolve().parents[2]

HEADER = '#import "PAT.Lib.Set";\nvar<Set> s;\nvar x = 0;\nvar a[3];\n'
STARTS = "M() = b{s.Add(1);} -> P(s);\n#assert M() deadlockfree;\n"
MISUSES = {
    "plus": ("P(t) = c{x = t + 1;} -> Stop;\n", "5:14"),
    "order": ("P(t) = [t < 2] c -> Stop;\n", "5:9"),
    "minus": ("P(t) = c{x = -t;} -> Stop;\n", "5:14"),
    "index": ("P(t) = c{x = a[t];} -> Stop;\n", "5:14"),
    "not": ("P(t) = [!t] c -> Stop;\n", "5:9"),
}


def _write(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.csp"
    path.write_text(HEADER + body + STARTS)
    return path


@pytest.mark.parametrize("name", sorted(MISUSES))
@pytest.mark.parametrize("engine", ["python", "auto"])
def test_library_value_used_as_number_is_a_model_error(tmp_path: Path, name: str,
                                                       engine: str) -> None:
    body, where = MISUSES[name]
    path = _write(tmp_path, name, body)
    verdict, = api.check(api.load_model(str(path)), None, api.CheckOptions(engine=engine))
    assert verdict.outcome.name == "VIOLATED", verdict
    assert verdict.reason == "value of the wrong kind"
    assert any(f"{path}:{where}" in n and "used as" in n for n in verdict.notes), verdict.notes
    assert [s.event for s in verdict.trace.steps] == ["b"]


@pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")
@pytest.mark.parametrize("name", sorted(MISUSES))
def test_library_value_used_as_number_in_c(tmp_path: Path, name: str) -> None:
    """The C engine meets the error in the same state (``mix_num``/``lib_num`` of
    templates/c/library.c) and the Python engine re-raises it there: same reason, note
    and trace, and ``--engine auto`` stays in C with no fallback note."""
    body, where = MISUSES[name]
    path = _write(tmp_path, name, body)
    ts, = api.load_model(str(path)).systems
    driver.compile_model(ts)  # else auto may run so small a model in Python anyway
    for engine in ("c", "auto"):
        verdict = api.check_property(ts, ts.properties[0], api.CheckOptions(engine=engine))
        assert ("engine", "c") in verdict.statistics.extra, (engine, verdict.notes)
        assert not any("Python engine" in n for n in verdict.notes), verdict.notes
        assert verdict.reason == "value of the wrong kind"
        assert any(f"{path}:{where}" in n and "used as" in n for n in verdict.notes)
        assert [s.event for s in verdict.trace.steps] == ["b"]


def test_library_value_used_as_number_cli_exit_code(tmp_path: Path) -> None:
    path = _write(tmp_path, "plus", MISUSES["plus"][0])
    out = subprocess.run([sys.executable, "-m", "bridge", "check", str(path)],
                         capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 1, out.stderr
    assert "internal error" not in out.stderr
    assert "VIOLATED (value of the wrong kind)" in out.stdout


def test_library_value_compared_is_no_error(tmp_path: Path) -> None:
    """Equality is defined on every kind of value: no error, the model holds."""
    path = _write(tmp_path, "equal", "P(t) = [t == s && t != 1] c -> P(t);\n")
    verdict, = api.check(api.load_model(str(path)), None, api.CheckOptions(engine="python"))
    assert verdict.outcome.name == "HOLDS", verdict
