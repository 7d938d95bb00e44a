"""Compile a generated translation unit into a cached shared library (issue 12).

The system C compiler (``$CC``, else ``cc``, else ``gcc``: the one SPIN already needs)
builds ``-O2 -shared -fPIC``. The library is cached under ``$BRIDGE_CACHE_DIR``, else
``$XDG_CACHE_HOME/bridge``, else ``~/.cache/bridge``, named by a hash of the source, the
flags and the compiler's version line, so a second check of the same model loads the
library without compiling; processes that need the same library at once compile it
once (a lock file per digest prefix, the others wait and load it). The compiler runs from an argument list in a fresh process
group (no shell, no model text on any command line: the source goes through a file),
with a time limit; a failed build raises ``BackendError`` with the compiler's output.
Libraries are loaded with ctypes (stdlib).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bridge.diagnostics import BackendError, ResourceLimitReached

FLAGS = ("-O2", "-shared", "-fPIC", "-std=gnu11", "-w", "-fvisibility=hidden")
COMPILE_TIMEOUT = 300.0
# Libraries kept in the cache; the least recently used go first. The whole test suite
# builds more than 512 (about 68 KB each): with 512, a run pruned libraries its other
# tests had just built, and tests that rely on a built library found none.
MAX_CACHED = 4096


@dataclass(frozen=True, slots=True)
class Library:
    """A loaded model library: the ctypes handle, its cache path, and how long the
    build took (0.0 when it came from the cache)."""

    handle: ctypes.CDLL
    path: Path
    compile_seconds: float
    cached: bool


@cache
def find_compiler() -> str | None:
    """Return the path of the C compiler, or None when there is none."""
    for name in (os.environ.get("CC"), "cc", "gcc"):
        if name:
            found = shutil.which(name)
            if found:
                return found
    return None


@cache
def _compiler_version(compiler: str) -> str:
    try:
        done = subprocess.run([compiler, "--version"], capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return compiler
    return (done.stdout.splitlines() or [compiler])[0]


def cache_dir() -> Path:
    """Return the directory of cached libraries (created on demand)."""
    explicit = os.environ.get("BRIDGE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    root = Path(xdg) if xdg else Path.home() / ".cache"
    return root / "bridge"


_LOADED: dict[str, Library] = {}


def _digest(source: str, compiler: str) -> str:
    return hashlib.sha256("\0".join(
        (source, " ".join(FLAGS), _compiler_version(compiler))).encode()).hexdigest()[:32]


def library_cached(source: str) -> bool:
    """Return True when the library of ``source`` is loaded or in the disk cache."""
    compiler = find_compiler()
    if compiler is None:
        return False
    digest = _digest(source, compiler)
    return digest in _LOADED or (cache_dir() / f"model-{digest}.so").exists()


def build_library(source: str, timeout: float | None = None) -> Library:
    """Return the loaded library of ``source``, compiling it unless it is cached; a
    compilation still running after ``timeout`` seconds (the run's time limit) is
    stopped with ``ResourceLimitReached`` (``COMPILE_TIMEOUT`` bounds it otherwise)."""
    compiler = find_compiler()
    if compiler is None:
        raise BackendError((), None, message="no C compiler found (looked for $CC, cc, gcc)")
    digest = _digest(source, compiler)
    loaded = _LOADED.get(digest)
    if loaded is not None:
        return Library(loaded.handle, loaded.path, 0.0, True)
    directory = cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    library = directory / f"model-{digest}.so"
    seconds = 0.0
    handle: ctypes.CDLL | None = None
    for attempt in range(2):
        cached = library.exists()
        if cached:
            try:
                os.utime(library)  # recently used (never ``touch``: it would create it)
            except FileNotFoundError:
                cached = False  # pruned by a concurrent build since the check
        if not cached:
            with _build_lock(directory, digest):
                if library.exists():  # another process built it while this one waited
                    cached = True
                else:
                    started = time.perf_counter()
                    _compile(compiler, source, directory, library, timeout)
                    seconds = time.perf_counter() - started
                    _prune(directory, keep=library)
        try:
            handle = ctypes.CDLL(str(library))
            break
        except OSError as error:
            if attempt == 0 and not library.exists():
                continue  # pruned between the check and the load: build it again
            library.unlink(missing_ok=True)  # a damaged cache entry: rebuilt next time
            raise BackendError((), None, message=f"cannot load the compiled model {library}: "
                                                 f"{error}") from None
    assert handle is not None
    result = Library(handle, library, seconds, cached)
    _LOADED[digest] = result
    return result


@contextmanager
def _build_lock(directory: Path, digest: str) -> Iterator[None]:
    """Hold the lock of the builds of ``digest`` (one of 256 lock files, by the digest's
    first two hex digits): two processes that need the same library (pytest-xdist
    workers, two checks at once) compile it once, the second waits and loads it. Where
    ``fcntl`` is missing (not POSIX) each builds its own copy, as before."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(directory / f"lock-{digest[:2]}", "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _compile(compiler: str, source: str, directory: Path, library: Path,
             timeout: float | None = None) -> None:
    """Compile ``source`` into ``library`` (through a private build directory; the result
    is moved into place atomically, so a concurrent build finds a whole file)."""
    with tempfile.TemporaryDirectory(dir=directory, prefix="build-") as work:
        c_file = Path(work) / "model.c"
        c_file.write_text(source, encoding="utf-8")
        out = Path(work) / "model.so"
        argv = [compiler, *FLAGS, "-o", str(out), str(c_file)]
        _run_compiler(argv, work, timeout)
        os.replace(out, library)


def _prune(directory: Path, keep: Path) -> None:
    """Delete the least recently used libraries beyond ``MAX_CACHED``."""
    try:
        libraries = sorted(directory.glob("model-*.so"), key=lambda p: p.stat().st_mtime)
    except OSError:
        return
    for old in libraries[: max(0, len(libraries) - MAX_CACHED)]:
        if old != keep:
            old.unlink(missing_ok=True)


def _run_compiler(argv: list[str], cwd: str, timeout: float | None = None) -> None:
    limit = COMPILE_TIMEOUT if timeout is None else min(COMPILE_TIMEOUT, max(0.0, timeout))
    started = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        if limit < COMPILE_TIMEOUT:
            raise ResourceLimitReached(
                f"time limit reached compiling the model in C (the compiler stopped after "
                f"{time.perf_counter() - started:.1f} s)") from None
        raise BackendError(argv, None, timed_out=True,
                           message=f"the C compiler did not finish in {COMPILE_TIMEOUT:.0f} s"
                           ) from None
    if process.returncode != 0:
        tail = (stderr or stdout)[-4000:]
        raise BackendError(argv, process.returncode, tail,
                           message="the C compiler failed on the generated model: "
                                   + tail[-1000:])
