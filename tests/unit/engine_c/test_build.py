"""The compiled engine's build: cached by source hash, no shell, clean failures."""

from __future__ import annotations

import dataclasses
import subprocess
import threading
import time
from pathlib import Path

import pytest

from bridge.diagnostics import BackendError
from bridge.engine_c import build, driver
from bridge.engine_c.codegen import generate
from bridge.ir import PropertyKind
from bridge.semantics.statespace import build_state_space
from tests.irbuild import G, add, assign, edge, int_var, op, process, prop, system

pytestmark = pytest.mark.skipif(build.find_compiler() is None, reason="no C compiler")


def _counter(modulus: int):
    return system([process("P", [edge(0, 0, effect=[assign("x", op("mod", add(G("x"), 1),
                                                                      modulus))])])],
                  globals_=[int_var("x", 0)])


def test_a_second_build_of_the_same_source_does_not_compile(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("BRIDGE_CACHE_DIR", str(tmp_path))
    source, _, _, _ = generate(build_state_space(_counter(7)), [])
    calls: list[list[str]] = []
    real = subprocess.Popen

    def spy(argv, *args, **kwargs):
        if "-shared" in argv:  # the build, not the compiler's --version
            calls.append(list(argv))
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", spy)
    build._LOADED.clear()
    first = build.build_library(source)
    assert not first.cached and first.compile_seconds > 0
    assert len(calls) == 1
    # the compiler ran from an argument list, the model only through the file
    assert isinstance(calls[0], list) and not any("proctype" in a for a in calls[0])
    build._LOADED.clear()  # a new process: only the disk cache remains
    second = build.build_library(source)
    assert second.cached and second.compile_seconds == 0.0
    assert len(calls) == 1
    assert [p.name for p in tmp_path.glob("model-*.so")] == [first.path.name]


def test_a_compiler_error_is_a_backend_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("BRIDGE_CACHE_DIR", str(tmp_path))
    with pytest.raises(BackendError, match="C compiler failed"):
        build.build_library("this is not C;\n")


def test_no_compiler_means_not_supported(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(driver, "find_compiler", lambda: None)
    ts = _counter(5)
    ok, why = driver.supports(ts)
    assert not ok and "no C compiler" in why
    assert not driver.is_compiled(ts)


def test_cache_dir_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.delenv("BRIDGE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert build.cache_dir() == tmp_path / "bridge"


def test_a_library_pruned_after_the_cache_check_is_built_again(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch):
    """Regression (CI with two workers and a full cache): another process's prune deleted
    a cached library between ``exists()`` and the load; ``touch`` then created an empty
    file in its place and the load failed ("cannot load the compiled model")."""
    monkeypatch.setenv("BRIDGE_CACHE_DIR", str(tmp_path))
    source, _, _, _ = generate(build_state_space(_counter(5)), [])
    build._LOADED.clear()
    first = build.build_library(source)
    build._LOADED.clear()  # a new process
    real_exists = Path.exists

    def pruned_after_the_check(self: Path) -> bool:
        present = real_exists(self)
        if self == first.path and present:
            self.unlink()  # the concurrent prune, right after this check
        return present

    monkeypatch.setattr(Path, "exists", pruned_after_the_check)
    again = build.build_library(source)
    monkeypatch.setattr(Path, "exists", real_exists)
    assert again.path == first.path and again.path.stat().st_size > 0
    assert not again.cached  # rebuilt


def test_a_system_without_fair_properties_gets_a_lean_library(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch):
    """A library for the breadth-first searches alone leaves the fair search's code out
    (``codegen.lean_source``: a quarter of the compile time); a fair search asked for
    later builds the whole library, and a later process reuses the whole one."""
    monkeypatch.setenv("BRIDGE_CACHE_DIR", str(tmp_path))
    build._LOADED.clear()
    ts = _counter(9)
    lean = driver.compile_model(ts)
    assert not lean.ltl and not hasattr(lean.library, "bridge_ltl_search")
    assert driver.explore_c(ts).states == 9  # the lean library searches
    assert driver.is_compiled(ts)
    whole = driver.compile_model(ts, ltl=True)
    assert whole.ltl and hasattr(whole.library, "bridge_ltl_search")
    assert driver.compile_model(ts) is whole  # remembered: never lean again
    assert len(list(tmp_path.glob("model-*.so"))) == 2
    build._LOADED.clear()  # a new process: the whole library is on disk, use it
    driver._COMPILED.clear()
    again = driver.compile_model(ts)
    assert again.ltl and again.cached and again.library._name == str(whole.library._name)
    assert len(list(tmp_path.glob("model-*.so"))) == 2


def test_a_system_with_a_fair_property_gets_the_whole_library_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("BRIDGE_CACHE_DIR", str(tmp_path))
    build._LOADED.clear()
    ts = dataclasses.replace(_counter(4), properties=(prop(PropertyKind.NON_PROGRESS),))
    assert driver.needs_fair_search(ts)
    model = driver.compile_model(ts)
    assert model.ltl and hasattr(model.library, "bridge_ltl_search")
    assert len(list(tmp_path.glob("model-*.so"))) == 1


def test_two_builds_of_one_source_at_once_compile_it_once(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch):
    """Two processes (pytest-xdist workers) that need the same library at the same time:
    the second waits on the build lock and loads what the first compiled."""
    monkeypatch.setenv("BRIDGE_CACHE_DIR", str(tmp_path))
    source, _, _, _ = generate(build_state_space(_counter(11)), [])
    calls: list[list[str]] = []
    real = subprocess.Popen

    def slow_spy(argv, *args, **kwargs):
        if "-shared" in argv:
            calls.append(list(argv))
            time.sleep(1.0)  # both builders are inside the build window
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", slow_spy)
    results: list[build.Library] = []
    monkeypatch.setattr(build, "_LOADED", _NoMemory())  # each thread: a process of its own
    threads = [threading.Thread(target=lambda: results.append(build.build_library(source)))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2 and len(calls) == 1
    assert sorted(r.cached for r in results) == [False, True]
    assert len({r.path for r in results}) == 1


class _NoMemory(dict):
    """A ``build._LOADED`` that remembers nothing (every build goes to the disk cache)."""

    def __setitem__(self, key, value) -> None:
        pass
