"""The compiled C engine against the Python engine (issue 12, item 4).

On every test model, every case-study model and random systems (hypothesis), both
engines must give the same state and transition counts and the same verdicts for the
non-LTL checks (outcome, reason, counts at the stop, notes, value), and the same trace
and lasso (divergencefree): the C engine's traces are replayed on the Python semantics
by the driver, so an equal trace is a real run of the reference semantics. Case studies run under a state limit:
the engines visit states in the same order, so even a search cut at the limit stops at
the same counts.

Every model needs a C compiler (``gcc``, installed by ``.ci/run``); compiled libraries
are cached by source hash, so a second run does not compile again.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge import api
from bridge.diagnostics import ModelRuntimeError, ResourceLimitReached
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.ir import (
    ArrayType,
    AssertStmt,
    Channel,
    Const,
    If,
    Index,
    IntType,
    Overflow,
    PropertyKind,
    Receive,
    RecvBind,
    Send,
    SourceLanguage,
    TransitionSystem,
    Var,
    Variable,
)
from bridge.semantics import explore as python_engine
from bridge.semantics.statespace import build_state_space
from bridge.semantics.successors import StateVector
from tests.conftest import in_ci
from tests.irbuild import G, add, assign, edge, eq, int_var, op, parallel, process, prop, system

ROOT = Path(__file__).resolve().parents[2]
TEST_MODELS = sorted((ROOT / "tests" / "models").glob("*/*.pml")) + sorted(
    (ROOT / "tests" / "models").glob("*/*.csp"))
# The largest sizes of two families compile for 10-30 s each (their generated units are
# 200 KB); their smaller sizes run, and so does everything else.
HEAVY = {"orienting_rings_4.csp", "orienting_rings_5.csp", "le_or_buggy_7.csp",
         "le_or_fixed_7.csp"}
CASE_STUDIES = [p for p in sorted((ROOT / "case_studies").glob("*/*.csp")) + sorted(
    (ROOT / "case_studies").glob("*/*.pml")) if p.name not in HEAVY]
CASE_STUDY_LIMIT = 6000

# Under CI a missing compiler is a failure, not a skip (.ci/run installs gcc).
pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")

# Models the C engine refuses today, with the reason's key phrase: a refusal must stay
# explained, and a model that becomes supported must be taken off this list.
EXPECTED_REFUSALS: dict[str, str] = {}


def _explore(system: TransitionSystem, engine: str, limit: int | None) -> tuple:
    try:
        if engine == "c":
            s = driver.explore_c(system, driver.SearchOptions(max_states=limit))
        else:
            s = python_engine.explore(system, python_engine.ExploreOptions(max_states=limit))
        return ("done", s.states, s.transitions, s.depth)
    except ResourceLimitReached as limit_reached:
        s = limit_reached.statistics
        return ("limit", str(limit_reached), s.states, s.transitions, s.depth)
    except ModelRuntimeError as error:
        return ("error", error.kind, str(error))


def _fingerprint(verdict) -> tuple:
    s = verdict.statistics
    return (verdict.outcome, verdict.reason, s.states, s.transitions, s.depth, verdict.notes,
            verdict.value, verdict.trace, verdict.lasso)


def _needs_unbounded_integers(system: TransitionSystem, limit: int) -> bool:
    """Return True when a state the Python engine reaches (breadth first, about
    ``limit`` states) holds a value no 32-bit slot of the C engine can: the one
    legitimate reason for the C engine to fall back."""
    space = build_state_space(system)
    seen = set(space.initial_states())
    frontier = list(seen)

    def too_wide(state: StateVector) -> bool:
        # only ints count: a library value or a whole array in a slot is a tuple
        return any(isinstance(v, int) and not -(2**31) <= v < 2**31 for v in state)

    while frontier and len(seen) < 4 * limit:
        state = frontier.pop(0)
        if too_wide(state):
            return True
        try:
            steps = space.successors(state)
        except ModelRuntimeError:
            continue
        for _, n in steps:
            if n not in seen:
                seen.add(n)
                frontier.append(n)
    return any(too_wide(s) for s in seen)


def assert_engines_agree(system: TransitionSystem, limit: int | None = None) -> int:
    """Assert both engines agree on ``system``; return how many checks were compared
    (0 when the C engine fell back to Python, which is allowed only for a model whose
    values leave 32 bits)."""
    ok, why = driver.supports(system)
    assert ok, why
    try:
        return _compare(system, limit)
    except driver.CFallback:
        assert _needs_unbounded_integers(system, limit or 10000), "a fallback without cause"
        return 0


def _compare(system: TransitionSystem, limit: int | None) -> int:
    assert _explore(system, "c", limit) == _explore(system, "python", limit)
    compared = 1
    for p in system.properties:
        if p.kind not in driver.SUPPORTED_KINDS:
            continue
        expected = python_engine.check_property(
            system, p, python_engine.ExploreOptions(max_states=limit))
        got = driver.check_property_c(system, p, driver.SearchOptions(max_states=limit))
        assert _fingerprint(got) == _fingerprint(expected), p.text
        compared += 1
    return compared


def _systems(path: Path) -> list[TransitionSystem]:
    return list(api.load_model(str(path)).systems)


# Test models whose constructs the C generator does not translate yet, with the reason
# ``supports`` must give: refused by name, never a crash or a different answer. A model
# that is supported today must not move here.
_NOT_YET_IN_C: dict[str, str] = {}


@pytest.mark.parametrize("path", TEST_MODELS, ids=lambda p: p.name)
def test_test_models_agree(path: Path) -> None:
    for ts in _systems(path):
        if path.name in _NOT_YET_IN_C:
            ok, why = driver.supports(ts, None)
            assert not ok and _NOT_YET_IN_C[path.name] in why, why
            continue
        assert_engines_agree(ts, limit=200000)


@pytest.mark.parametrize("path", CASE_STUDIES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case_studies_agree(path: Path) -> None:
    for ts in _systems(path):
        assert_engines_agree(ts, limit=CASE_STUDY_LIMIT)


# --------------------------------------------------------------------------------------
# Random systems: bounded and unbounded integers, arrays indexed at run time (out of
# range is a model error), division and modulo (by zero is a model error), asserts,
# CSP barriers, atomic locations, buffered channels, hidden variables.

VARS = ("x", "y", "z")
BYTE = IntType(0, 255, Overflow.WRAP, "byte")
RANGED = IntType(0, 4, Overflow.ERROR, "int")


@st.composite
def values(draw, depth: int = 0):
    choice = draw(st.integers(0, 7 if depth < 2 else 1))
    if choice == 0:
        return Const(draw(st.integers(-2, 5)))
    if choice == 1:
        return G(draw(st.sampled_from(VARS)))
    if choice == 2:
        return Index(G("a"), draw(values(depth + 1)))
    if choice == 3:
        return op(draw(st.sampled_from(["/", "%", "mod"])), draw(values(depth + 1)),
                  draw(values(depth + 1)))
    if choice == 4:
        return op(draw(st.sampled_from(["&&", "||", "<", "==", "!="])),
                  draw(values(depth + 1)), draw(values(depth + 1)))
    if choice == 5:
        return op("*", draw(values(depth + 1)), draw(values(depth + 1)))
    return add(draw(values(depth + 1)), draw(st.integers(-1, 2)))


@st.composite
def statements(draw):
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return AssertStmt(draw(values()))
    target = G(draw(st.sampled_from(VARS))) if kind != 1 else Index(G("a"), draw(values()))
    stmt = assign(target, draw(values()))
    if kind == 5:
        return If(((draw(values()), (stmt,)),), (assign(G("x"), 0),))
    return stmt


@st.composite
def random_edges(draw, n_locations: int, k: int, events: bool):
    out = []
    for _ in range(draw(st.integers(1, 3))):
        src = draw(st.integers(0, n_locations - 1))
        dst = draw(st.integers(0, n_locations - 1))
        guard = draw(st.none() | values())
        effect = [draw(statements()) for _ in range(draw(st.integers(0, 2)))]
        event = None
        if events and draw(st.booleans()):
            event = draw(st.sampled_from(["tick", "tock", f"own{k}"]))
            if draw(st.booleans()):
                effect = []  # a plain event: a barrier when shared
        comm = None
        if not events and not effect and draw(st.integers(0, 3)) == 0:
            if draw(st.booleans()):
                comm = Send(Var("q"), (draw(values()),))
            else:
                comm = Receive(Var("q"), (RecvBind(G(draw(st.sampled_from(VARS)))),))
        out.append(edge(src, dst, guard=guard, effect=effect, event=event, comm=comm,
                        data_operation=bool(event and effect)))
    return out


@st.composite
def random_systems(draw):
    csp = draw(st.booleans())
    n = draw(st.integers(2, 3))
    procs = []
    for k in range(n):
        locs = draw(st.integers(1, 3))
        atomic = [0] if draw(st.integers(0, 4)) == 0 else []
        procs.append(process(f"P{k}", draw(random_edges(locs, k, csp)), n_locations=locs,
                             atomic=atomic))
    kinds = [draw(st.sampled_from(["byte", "ranged", "plain"])) for _ in VARS]
    types = {"byte": BYTE, "ranged": RANGED, "plain": IntType(None, None, Overflow.NONE, "var")}
    globals_ = [Variable(v, types[t], Const(draw(st.integers(0, 3)))) for v, t in
                zip(VARS, kinds, strict=True)]
    globals_.append(int_var("a", 0, length=3, hidden=csp and draw(st.booleans())))
    composition = None
    language = SourceLanguage.IR
    if csp:
        alphabets = [{"tick", "tock", f"own{k}"} if draw(st.booleans()) else {f"own{k}"}
                     for k in range(n)]
        composition = parallel(list(range(n)), alphabets)
    channels = [] if csp else [Channel("q", draw(st.integers(1, 2)), (types[kinds[0]],))]
    properties = [prop(PropertyKind.DEADLOCK_FREE, name="dl"),
                  prop(PropertyKind.INVARIANT, draw(values()), name="inv"),
                  prop(PropertyKind.REACHES, eq(G("x"), draw(st.integers(0, 3))), name="r"),
                  prop(PropertyKind.DETERMINISTIC, name="det"),
                  prop(PropertyKind.DIVERGENCE_FREE, name="div")]
    return system(procs, globals_=globals_, channels=channels, composition=composition,
                  language=language, properties=properties)


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(random_systems())
def test_random_systems_agree(ts: TransitionSystem) -> None:
    ok, why = driver.supports(ts)
    if not ok:
        # a refusal is allowed only for the documented reasons, never for a crash
        assert "does not translate" in why or "rejects the model" in why, why
        return
    assert_engines_agree(ts, limit=3000)


def test_a_disagreement_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: a Python engine that counts one transition more."""
    ts = system([process("P", [edge(0, 0, guard=op("<", G("x"), 3),
                                     effect=[assign("x", add(G("x"), 1))])])],
                globals_=[int_var("x", 0)])
    real = python_engine.explore

    def off_by_one(space, options=None):
        s = real(space, options or python_engine.ExploreOptions())
        return type(s)(s.states, s.transitions + 1, s.seconds, s.peak_memory_bytes, s.depth)

    monkeypatch.setattr(python_engine, "explore", off_by_one)
    with pytest.raises(AssertionError):
        assert_engines_agree(ts)


def test_array_type_is_not_a_scalar_store() -> None:
    """Sanity of the random generator's array: three cells, one packed kind."""
    ts = system([process("P", [edge(0, 0, effect=[assign(Index(G("a"), Const(1)), 7)])])],
                globals_=[int_var("a", 0, length=3)])
    assert isinstance(ts.globals[0].type, ArrayType)
    assert assert_engines_agree(ts) == 1
