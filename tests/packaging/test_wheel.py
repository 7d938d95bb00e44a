"""A built wheel gives a working ``bridge``: grammars and templates ship inside it.

Builds the sdist and, from it, the wheel (``python -m build``) out of a copy of the
source tree, installs the wheel (without dependencies) into a fresh virtual environment
whose dependencies come from the running interpreter's site-packages through a ``.pth``
file (no re-download), and runs the installed ``bridge`` from a directory outside the
repository. The test proves the
package itself comes from the wheel, not from the repository.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "tests" / "cli" / "models" / "holds.csp"

pytestmark = pytest.mark.slow

_SKIP = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info",
                               "__pycache__", ".pytest_cache", ".ruff_cache",
                               ".hypothesis", "_data", "out")


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 600
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """Return (venv bin dir, work dir outside the repo, environment)."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=_SKIP)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env["BRIDGE_PROGRESS"] = "0"
    wheels = base / "wheels"
    # python -m build makes the sdist, then the wheel from the sdist: the path on which
    # grammars/ and templates/ are easiest to lose (MANIFEST.in keeps them).
    if importlib.util.find_spec("build") is not None:
        argv = [sys.executable, "-m", "build", "--outdir", str(wheels), str(source)]
    else:
        argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels),
                str(source)]
    built = _run(argv, base, env)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    [wheel] = list(wheels.glob("bridge-*.whl"))

    venv = base / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], base, env)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    purelib = Path(_run([str(python), "-c", "import sysconfig; "
                         "print(sysconfig.get_paths()['purelib'])"], base, env).stdout.strip())
    # Dependencies from the running interpreter, appended after the venv's own
    # site-packages, so the wheel's bridge is found first.
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (purelib / "_bridge_test_deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    installed = _run([sys.executable, "-m", "pip", "--python", str(python), "install",
                      "--no-deps", "-q", str(wheel)], base, env)
    if installed.returncode != 0 and "no such option: --python" in installed.stderr:
        installed = _run([sys.executable, "-m", "pip", "install", "--no-deps", "-q",
                          "--target", str(purelib), str(wheel)], base, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    if not (venv / "bin" / "bridge").exists():  # --target installs no scripts
        (venv / "bin" / "bridge").write_text(
            f"#!{python}\nimport sys\nfrom bridge.cli import main\nsys.exit(main())\n")
        (venv / "bin" / "bridge").chmod(0o755)
    work = base / "elsewhere"
    work.mkdir()
    shutil.copy(MODEL, work / MODEL.name)
    return venv / "bin", work, env


def test_the_package_comes_from_the_wheel(installed) -> None:
    bin_dir, work, env = installed
    probe = _run([str(bin_dir / "python"), "-c",
                  "import bridge, bridge._resources as r; print(bridge.__file__); "
                  "print(r.resource_dir('templates') if (r._PACKAGE / '_data' / "
                  "'templates').is_dir() else 'none'); "
                  "print(r.resource_dir('grammars'))"], work, env)
    assert probe.returncode == 0, probe.stderr
    package, templates, grammars = probe.stdout.split()
    venv = bin_dir.parent
    assert Path(package).is_relative_to(venv), package
    assert not Path(package).is_relative_to(ROOT)
    assert Path(grammars).is_relative_to(venv) and Path(grammars).name == "grammars"
    assert any(Path(grammars).iterdir())
    if (ROOT / "templates").is_dir() and any((ROOT / "templates").iterdir()):
        assert Path(templates).is_relative_to(venv)


def test_installed_bridge_checks_a_model(installed) -> None:
    bin_dir, work, env = installed
    result = _run([str(bin_dir / "bridge"), "check", MODEL.name], work, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "HOLDS" in result.stdout
    assert "Traceback" not in result.stderr


def test_installed_bridge_reports_bad_input(installed) -> None:
    bin_dir, work, env = installed
    result = _run([str(bin_dir / "bridge"), "check", "missing.csp"], work, env)
    assert result.returncode == 2
    assert "no such file" in result.stderr


def test_installed_bridge_finds_its_templates(installed) -> None:
    bin_dir, work, env = installed
    result = _run([str(bin_dir / "bridge"), "translate", "--to", "promela", MODEL.name],
                  work, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "proctype" in result.stdout and "generated by bridge" in result.stdout


def test_installed_bridge_compiles_with_its_c_templates(installed, tmp_path: Path) -> None:
    """templates/c/ ships in the wheel: the compiled engine builds a model from it."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler")
    bin_dir, work, env = installed
    env = dict(env, BRIDGE_CACHE_DIR=str(tmp_path / "cache"))
    result = _run([str(bin_dir / "bridge"), "explore", "--engine", "c", MODEL.name], work, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "engine       c (compiled in" in result.stdout
