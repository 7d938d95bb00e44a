"""CSP#'s ``refines`` (traces, stable failures, failures-divergence) on the C engine
against the Python engine (issue 12): the same verdict, reason, pair count,
transitions, depth, notes, trace (so the same shortest length), refusal and lasso, on
every refines assertion of the test models (refines_choice.csp; refines_cases.csp:
trace and failure violations, a divergence after a visible prefix, a specification
with internal choice whose normal form merges states, hidden events, a divergent
specification, event names computed from data, termination, a library value in the
state; refines_abp.csp: a protocol with hiding and lossy media) and on random small
implementation/specification pairs. Then the engine choice: limits stop both engines
alike, a normal form past the table's bound and a C answer its replay refutes go to
the Python engine with a note, ``--engine auto`` leaves a small check to the Python
engine."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge import api
from bridge.engine_c import build
from bridge.frontends.csp import load_csp
from bridge.ir import Outcome, PropertyKind
from bridge.refinement import table as spec_table

pytestmark = pytest.mark.skipif(build.find_compiler() is None, reason="no C compiler")

MODELS = Path(__file__).resolve().parents[1] / "models" / "csp"
CASE_STUDIES = Path(__file__).resolve().parents[2] / "case_studies"


def _refines_files() -> list[Path]:
    found = sorted(MODELS.glob("*.csp")) + sorted(CASE_STUDIES.rglob("*.csp"))
    return [p for p in found if "refines" in p.read_text(encoding="utf-8")]


def _assertions() -> list[tuple[str, int]]:
    out = []
    for path in _refines_files():
        model = api.load_model(str(path))
        for _, prop in model.properties():
            if prop.kind is PropertyKind.REFINES:
                out.append((str(path.relative_to(MODELS.parents[1])), prop.number))
    return out


def _fingerprint(verdict: api.Verdict) -> tuple:
    s = verdict.statistics
    return (verdict.outcome, verdict.reason, s.states, s.transitions, s.depth, verdict.notes,
            verdict.trace, verdict.lasso, verdict.refusal)


def _both(model: api.ModelFile, number: int, **options: object
          ) -> tuple[api.Verdict, api.Verdict]:
    (python,) = api.check(model, number, api.CheckOptions(engine="python", **options))
    (c,) = api.check(model, number, api.CheckOptions(engine="c", **options))
    return python, c


def _engine(verdict: api.Verdict) -> str:
    return dict(verdict.statistics.extra).get("engine", "python")


def test_the_models_have_every_kind_of_refinement_verdict() -> None:
    """The models cover what the C search must get right (else the differential test
    below proves little): each model, each verdict, each kind of counterexample."""
    assertions = _assertions()
    assert len(assertions) >= 25
    seen = set()
    for path, number in assertions:
        (v,) = api.check(api.load_model(str(Path(MODELS.parents[1]) / path)), number,
                         api.CheckOptions(engine="python"))
        prop = v.notes[0].split(" refinement")[0]
        kind = "lasso" if v.lasso else "refusal" if v.refusal is not None else \
            "trace" if v.trace else "none"
        seen.add((prop, v.outcome, kind))
    assert {("traces", Outcome.VIOLATED, "trace"), ("traces", Outcome.HOLDS, "none"),
            ("stable failures", Outcome.VIOLATED, "refusal"),
            ("stable failures", Outcome.VIOLATED, "trace"),
            ("stable failures", Outcome.HOLDS, "none"),
            ("failures-divergence", Outcome.VIOLATED, "lasso"),
            ("failures-divergence", Outcome.HOLDS, "none")} <= seen


@pytest.mark.parametrize(("path", "number"), _assertions())
def test_the_c_engine_gives_the_python_verdict(path: str, number: int) -> None:
    model = api.load_model(str(Path(MODELS.parents[1]) / path))
    python, c = _both(model, number)
    assert _engine(c) == "c", c.notes
    assert _engine(python) == "python"
    assert _fingerprint(c) == _fingerprint(python)
    extra_c, extra_py = dict(c.statistics.extra), dict(python.statistics.extra)
    assert extra_c["normalised_specification_nodes"] >= extra_py[
        "normalised_specification_nodes"]  # C normalises the whole specification


def test_a_state_limit_stops_both_engines_alike() -> None:
    model = api.load_model(str(MODELS / "refines_abp.csp"))
    python, c = _both(model, 1, max_states=500)
    assert python.outcome is c.outcome is Outcome.UNKNOWN
    assert python.reason == c.reason == "state limit 500 reached"
    assert python.statistics.states == c.statistics.states


@pytest.mark.parametrize(("bound", "why"), [
    ("C_TABLE_MAX_NODES", "the specification's normal form has more than 1 nodes "
                          "(refinement.table.C_TABLE_MAX_NODES)"),
    ("C_TABLE_MAX_STATES", "the specification has more than 1 states "
                           "(refinement.table.C_TABLE_MAX_STATES)"),
    ("C_TABLE_MAX_ENTRIES", "the specification's normal form table (2 nodes x 3 events) "
                            "has more than 1 entries (refinement.table.C_TABLE_MAX_ENTRIES)"),
])
def test_a_normal_form_past_the_bound_goes_to_the_python_engine_with_a_note(
        monkeypatch: pytest.MonkeyPatch, bound: str, why: str) -> None:
    model = api.load_model(str(MODELS / "refines_choice.csp"))
    (expected,) = api.check(model, 2, api.CheckOptions(engine="python"))
    monkeypatch.setattr(spec_table, bound, 1)
    for engine in ("c", "auto"):
        (v,) = api.check(model, 2, api.CheckOptions(engine=engine))
        assert _engine(v) == "python"
        assert v.outcome is expected.outcome and v.trace == expected.trace
        assert (f"checked by the Python engine: {why}; the Python engine normalises it "
                "lazily") in v.notes


def test_a_c_counterexample_the_replay_refutes_is_never_reported(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A C answer is checked on the Python semantics: a made-up trace violation at the
    initial pair (Int does 'a', which Ext can do) must give the Python verdict."""
    from bridge import engine_c

    model = api.load_model(str(MODELS / "refines_choice.csp"))
    real = engine_c.refine_c

    def lying(*args: object, **kw: object) -> engine_c.RefineRun:
        run = real(*args, **kw)
        return dataclasses.replace(run, found="trace", event="a", path=[], nodes=[0])

    monkeypatch.setattr(engine_c, "refine_c", lying)
    (v,) = api.check(model, 1, api.CheckOptions(engine="c"))
    assert v.outcome is Outcome.HOLDS
    assert _engine(v) == "python"
    assert any("refuted by its replay" in n for n in v.notes)


def test_engine_auto_leaves_a_small_check_to_the_python_engine() -> None:
    """Under ``--engine auto`` a refinement check runs as the other checks do: a
    library not built yet means the Python engine first (``AUTO_PYTHON_STATES``)."""
    from bridge import engine_c

    model = load_csp("t.csp", "P() = a -> P() [] b -> P();\nQ() = a -> Q();\n"
                              "#assert P() refines Q();\n")
    compiled = engine_c.is_compiled(model.systems[0])  # the cache is shared: maybe
    (v,) = api.check(model, options=api.CheckOptions(engine="auto"))
    assert v.outcome is Outcome.VIOLATED
    assert _engine(v) == ("c" if compiled else "python")
    assert not any("checked by the Python engine" in n for n in v.notes)
    (c,) = api.check(model, options=api.CheckOptions(engine="c"))
    assert _engine(c) == "c" and _fingerprint(c) == _fingerprint(v)


def test_cli_engine_c_limit_exits_3_with_statistics() -> None:
    from tests.cli.conftest import run_bridge

    result = run_bridge("check", "--engine", "c", "--max-states", "300", "--assert", "1",
                        str(MODELS / "refines_abp.csp"))
    assert result.code == 3, result.err
    assert "state limit 300 reached" in result.out
    assert "states 301," in result.out  # the pairs stored when the limit stopped it


# Random small processes: each a few states over events a, b, c, with external and
# internal choice, hiding and Stop; the implementation and the specification are drawn
# alike, so each verdict comes up.
_EVENTS = ("a", "b", "c")


@st.composite
def _process(draw: st.DrawFn, name: str) -> str:
    states = draw(st.integers(1, 3))

    def body(i: int) -> str:
        choices = []
        for _ in range(draw(st.integers(0, 2))):
            event = draw(st.sampled_from(_EVENTS))
            choices.append(f"{event} -> {name}{draw(st.integers(0, states - 1))}()")
        if not choices:
            return "Stop"
        op = draw(st.sampled_from([" [] ", " <> "]))
        return op.join(choices)

    lines = [f"{name}{i}() = {body(i)};" for i in range(states)]
    hidden = draw(st.sampled_from(["", "a", "b"]))
    top = f"{name}() = {name}0()" + (f" \\ {{{hidden}}};" if hidden else ";")
    return "\n".join([*lines, top])


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(impl=_process("I"), spec=_process("S"), kind=st.sampled_from(["", " <F>", " <FD>"]))
def test_random_pairs_get_the_python_verdict_on_the_c_engine(impl: str, spec: str,
                                                             kind: str) -> None:
    text = f"{impl}\n{spec}\n#assert I(){' refines' + kind} S();\n"
    model = load_csp("random.csp", text)
    python, c = _both(model, 1)
    if _engine(c) != "c":  # the C engine may refuse a model: then it says why
        assert any(n.startswith("checked by the Python engine") for n in c.notes)
        return
    assert _fingerprint(c) == _fingerprint(python), text
