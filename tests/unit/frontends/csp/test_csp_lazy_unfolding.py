"""Leaves unfolded lazily (issue 15): a process that reaches '|||' inside its own body
repeatedly (fork and join in recursion) and whose static unfolding passes
``LAZY_AFTER`` locations keeps locations whose edges the search computes when it
reaches them (``LeafBuilder.resume``, ``semantics.unfolding``).

Counts and verdicts are derived by hand in the models' comments
(``tests/models/csp/pat35_fork_join_*.csp``, ``pat35_lazy_alphabet.csp``); a leaf
forced to be lazy (``LAZY_AFTER`` 1, nothing unfolded ahead) must give the static
unfolding's counts.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from bridge import api
from bridge.diagnostics import UnsupportedError
from bridge.engine_c.codegen import CUnsupported, check_known_fields
from bridge.frontends.csp import leaf as leaf_mod
from bridge.frontends.csp import load_csp
from bridge.frontends.csp.configurations import MAX_LOCATIONS
from bridge.ir import ModelFile, Outcome
from bridge.semantics import unfolding as unfolding_mod
from bridge.semantics.statespace import build_state_space
from bridge.semantics.unfolding import complete_unfolding

MODELS = Path(__file__).resolve().parents[3] / "models" / "csp"


def results(name: str | ModelFile, engine: str = "python"
            ) -> dict[int, tuple[Outcome, int, int]]:
    """Return assertion number -> (outcome, states, transitions)."""
    out = {}
    options = api.CheckOptions(engine=engine)
    model = api.load_model(str(MODELS / name)) if isinstance(name, str) else name
    for system, prop in model.properties():
        v = api.check_property(system, prop, options)
        out[prop.number] = (v.outcome, v.statistics.states, v.statistics.transitions)
    return out


@pytest.fixture(scope="module")
def lazy_model() -> ModelFile:
    """pat35_fork_join_lazy.csp as the front-end gives it (not completed)."""
    return load_csp(str(MODELS / "pat35_fork_join_lazy.csp"))


@pytest.fixture
def forced_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every leaf that can be is unfolded lazily, one reached location at a time."""
    monkeypatch.setattr(leaf_mod, "LAZY_AFTER", 1)
    monkeypatch.setattr(leaf_mod, "LAZY_AFTER_STATIC", 1)
    monkeypatch.setattr(leaf_mod, "LAZY_AHEAD", 0)


def test_fork_join_in_recursion_static() -> None:
    """4 states, 5 transitions (the model's comment); small enough to be static."""
    system = load_csp(str(MODELS / "pat35_fork_join_loop.csp")).systems[0]
    assert system.unfolding is None
    assert results("pat35_fork_join_loop.csp") == {
        1: (Outcome.HOLDS, 4, 5), 2: (Outcome.HOLDS, 4, 5)}


def test_fork_join_in_recursion_lazy_matches_static(forced_lazy: None) -> None:
    system = load_csp(str(MODELS / "pat35_fork_join_loop.csp")).systems[0]
    assert system.unfolding is not None
    assert any(p.pending for p in system.processes)
    assert results("pat35_fork_join_loop.csp") == {
        1: (Outcome.HOLDS, 4, 5), 2: (Outcome.HOLDS, 4, 5)}


@pytest.mark.slow
def test_static_unfolding_past_the_limit_is_lazy(lazy_model: ModelFile) -> None:
    """16 staff per round: 2^16 combinations statically (more than MAX_LOCATIONS),
    17 states as the data allow (the model's comment); 'overrun' is never reached,
    reset happens infinitely often. The C engine checks the completed system and
    gives the same answers."""
    (system,) = lazy_model.systems
    assert system.unfolding is not None
    (process,) = system.processes
    assert process.pending
    complete = complete_unfolding(system)
    assert complete.unfolding is None
    (done,) = complete.processes
    # far fewer locations than the 65536 combinations of the static product
    assert len(done.locations) - len(done.pending) < MAX_LOCATIONS
    completed = dataclasses.replace(lazy_model, systems=(complete,))
    expected = {
        1: (Outcome.HOLDS, 17, 17),
        2: (Outcome.HOLDS, 17, 17),
        3: (Outcome.VIOLATED, 17, 17),
        4: (Outcome.HOLDS, 34, 49),
    }
    assert results(completed) == expected
    if shutil.which("cc") or shutil.which("gcc"):
        c = results(completed, engine="c")
        assert {k: v[0] for k, v in c.items()} == {k: v[0] for k, v in expected.items()}
        assert c[1] == expected[1]


def test_reached_locations_are_all_unfolded(lazy_model: ModelFile) -> None:
    """After completion no reachable state occupies a pending location."""
    system = complete_unfolding(lazy_model.systems[0])
    space = build_state_space(system)
    (process,) = system.processes
    seen = set(space.initial_states())
    stack = list(seen)
    while stack:
        s = stack.pop()
        base = space.layout_of(s).bases[0]
        assert s[base] not in process.pending
        for _, t in space.successors(s):
            if t not in seen:
                seen.add(t)
                stack.append(t)
    assert len(seen) == 17


def test_incomplete_system_is_refused_by_the_engines(lazy_model: ModelFile) -> None:
    system = lazy_model.systems[0]
    with pytest.raises(UnsupportedError, match="unfolded lazily must be completed"):
        build_state_space(system)
    with pytest.raises(CUnsupported, match="TransitionSystem.unfolding"):
        check_known_fields(system)


def test_alphabet_static() -> None:
    """'halt' is in Round's alphabet although never reached: 3 states, 6 transitions."""
    assert results("pat35_lazy_alphabet.csp") == {1: (Outcome.HOLDS, 3, 6)}


def test_alphabet_unknown_when_lazy_is_refused(forced_lazy: None) -> None:
    with pytest.raises(UnsupportedError, match="alphabet in '[|][|]' is not known"):
        api.load_model(str(MODELS / "pat35_lazy_alphabet.csp"))


def test_lazy_interleave_alone_loads_lazily(forced_lazy: None) -> None:
    """The same lazy leaf outside '||' needs no alphabet: it loads."""
    assert results("pat35_fork_join_loop.csp")[1] == (Outcome.HOLDS, 4, 5)


def test_complete_leaves_are_built_once_across_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each round of a lazy unfolding builds the system again; its complete leaves
    (the two pingers beside the lazy round) are lowered once and kept
    (``Lowerer.built_leaves``). Counts and verdicts: pat35_lazy_siblings.csp's comment
    (17 * 2 * 2 = 68 states, 3 steps each: 204 transitions)."""
    built: dict[str, int] = {}
    rebuild = leaf_mod.LeafBuilder._rebuild

    def counting(self: leaf_mod.LeafBuilder, *args: object, **kw: object) -> None:
        built[self.leaf.name] = built.get(self.leaf.name, 0) + 1
        rebuild(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(leaf_mod.LeafBuilder, "_rebuild", counting)
    rounds: list[int] = []
    search = unfolding_mod.search_round

    def counting_rounds(*args: object) -> tuple[dict[str, frozenset[int]], object]:
        rounds.append(1)
        return search(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(unfolding_mod, "search_round", counting_rounds)
    model = api.load_model(str(MODELS / "pat35_lazy_siblings.csp"))
    assert len(rounds) >= 2  # the system was built again at least once
    assert built["Pinger(0)"] == 1 and built["Pinger(1)"] == 1
    assert results(model) == {1: (Outcome.HOLDS, 68, 204),
                              2: (Outcome.HOLDS, 64, 183),
                              3: (Outcome.VIOLATED, 68, 204)}


def test_rounds_go_on_from_the_states_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    """A round whose unfolding only added locations and edges keeps the previous
    round's states and expands again only the states parked at the locations unfolded
    since. pat35_lazy_siblings.csp: each round reaches one pending location of Round()
    (one value of turn), where 2 * 2 states of the pingers are parked; the 68 states
    are each expanded once, and the 4 parked ones once more per later round."""
    rounds: list[unfolding_mod.Round] = []
    search = unfolding_mod.search_round

    def recording(*args: object) -> tuple[dict[str, frozenset[int]], unfolding_mod.Round]:
        reached, state = search(*args)  # type: ignore[arg-type]
        rounds.append(state)
        return reached, state

    monkeypatch.setattr(unfolding_mod, "search_round", recording)
    api.load_model(str(MODELS / "pat35_lazy_siblings.csp"))
    assert len(rounds) >= 2
    assert len(rounds[-1].seen) == 68
    assert rounds[-1].expanded == 68 + 4 * (len(rounds) - 1)
