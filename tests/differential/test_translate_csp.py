"""``bridge translate --to csp`` against the native checker, on every Promela model of
``tests/models/promela``, ``tests/models/translate_csp`` and the case studies.

For each model: the translation either succeeds or refuses with ``file:line:col`` and
the construct's name; the output parses with bridge's CSP# front-end; and ``bridge
check`` of the output gives the verdict of ``bridge check`` of the source for every
property (Promela safety against ``#assert BridgeSystem(1) deadlockfree``, each LTL
formula and the never claim against their CSP# ``|=``), LTL under every fairness notion
too. A source verdict that is a model error met during an LTL search (an assertion
failing on the way) is the safety property's business and is not compared: the CSP#
LTL check ignores failed assertions, as ``pan -A`` does. Then ``BridgeSystem(0)``, the
system LTL is checked on, must have exactly the states and transitions of the source.

The models of ``tests/models/translate_csp`` are ours, one per idiom of public models
(issue 15): the start-up ``atomic { run ...; run ... }``, ``run`` in a counting loop,
process-local channels, channel variables and parameters, ``timeout``, ``else``,
Promela atomicity with rendezvous, conditional expressions, remote references, pids
that are reused, ``d_step`` channel errors, a never claim, ``xr``/``xs`` claims,
priorities. The ``spin`` test below checks their verdicts against pan, so the native
verdicts we compare with are SPIN's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bridge import api, compare
from bridge.diagnostics import ModelRuntimeError, ResourceLimitReached, UnsupportedError
from bridge.frontends.csp import load_csp
from bridge.ir import Fairness, Outcome, PropertyKind
from bridge.semantics.explore import ExploreOptions, explore

ROOT = Path(__file__).resolve().parents[2]
OURS = sorted((ROOT / "tests" / "models" / "translate_csp").glob("*.pml"))
# The case studies' Promela models up to size 4 (the larger ones only take longer).
CASES = sorted(p for p in (ROOT / "case_studies").rglob("*.pml")
               if not re.search(r"_([5-9]|\d\d+)\.pml$", p.name))
MODELS = sorted((ROOT / "tests" / "models" / "promela").glob("*.pml")) + OURS + CASES
MAX_STATES = 60_000
# Models whose translation is refused, with the construct the message must name.
REFUSED: dict[str, str] = {
    "m74_enabled_self": "enabled() of the process itself",
    "m65_trace": "trace/notrace",
    "m66_notrace": "trace/notrace",
    "m68_channel_reassigned": "process-local channel 'mine' assigned another channel",
    "m68b_channel_assigned_per_instance": "process-local channel 'other' assigned another channel",
    "m113_timeout_guard_holds_without_timeout": "'timeout' read in the effect of an option",
}


def _translate(path: Path) -> tuple[api.ModelFile, str | None]:
    model = api.load_model(str(path))
    try:
        return model, compare.translate(model, "csp")
    except UnsupportedError as error:
        message = str(error)
        assert path.stem in REFUSED, message
        assert REFUSED[path.stem] in message
        assert re.search(rf"{re.escape(path.name)}:\d+:\d+:", message), message
        return model, None


def _comparable(prop_kind: PropertyKind, reason: str) -> bool:
    if prop_kind is PropertyKind.SAFETY:
        return True
    return reason == "" or reason.startswith(("acceptance cycle", "never claim terminated",
                                              "non-progress cycle"))


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.stem)
def test_output_parses_and_verdicts_agree(path: Path) -> None:
    model, text = _translate(path)
    if text is None:
        return
    csp = load_csp(f"{path.stem}.csp", text)
    system = model.systems[0]
    pairs = csp.properties()
    assert len(pairs) == len(system.properties)
    for prop, (csp_system, csp_prop) in zip(system.properties, pairs, strict=True):
        # every notion on our small models; the case studies under their own notion
        notions: list[Fairness | None] = [None]
        if prop.kind is PropertyKind.LTL and path not in CASES:
            notions = list(Fairness)
        for fairness in notions:
            opts = api.CheckOptions(fairness=fairness, max_states=MAX_STATES, timeout=120)
            source = api.check_property(system, prop, opts)
            output = api.check_property(csp_system, csp_prop, opts)
            if Outcome.UNKNOWN in (source.outcome, output.outcome):
                continue
            if not _comparable(prop.kind, source.reason):
                continue
            assert output.outcome == source.outcome, (prop.text, fairness, source.reason,
                                                      output.reason)


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.stem)
def test_ltl_system_has_the_source_state_space(path: Path) -> None:
    """One Promela step is one PAT step: BridgeSystem(0) and the source have the same
    number of states and transitions (where both are explored completely)."""
    model, text = _translate(path)
    if text is None:
        return
    csp = load_csp(f"{path.stem}.csp", text + "\n#assert BridgeSystem(0) deadlockfree;\n")
    target = next(s for s in csp.systems if s.name.replace(" ", "") == "BridgeSystem(0)")
    try:
        source = explore(model.systems[0], ExploreOptions(max_states=MAX_STATES, timeout=120))
    except ModelRuntimeError:
        pytest.skip("the source meets a model error (explore stops there)")
    except ResourceLimitReached:
        pytest.skip("the source is larger than the test's state limit")
    output = explore(target, ExploreOptions(max_states=MAX_STATES, timeout=120))
    assert (output.states, output.transitions) == (source.states, source.transitions)


@pytest.mark.parametrize("path", sorted((ROOT / "case_studies").rglob("*.pml")),
                         ids=lambda p: p.stem)
def test_every_case_study_translates_and_parses(path: Path) -> None:
    """Every size of the case studies (the verdicts are compared up to size 4 above)."""
    _, text = _translate(path)
    assert text is not None
    assert load_csp(f"{path.stem}.csp", text).properties()


def test_every_idiom_model_translates() -> None:
    """The models written for the idioms of public models all translate."""
    for path in OURS:
        assert _translate(path)[1] is not None, path


# pan and bridge's native check differ on this LTL property for a reason outside the
# translation: pan computes np_ only in non-progress mode (-l).
SPIN_DIFFERS = {("t2c_expressions", "sometimes_progress")}


@pytest.mark.spin
@pytest.mark.parametrize("path", OURS, ids=lambda p: p.stem)
def test_idiom_models_agree_with_spin(path: Path) -> None:
    """The native verdicts the translation is compared with are SPIN's on our models."""
    import shutil

    from bridge.backends.spin.run import SpinOptions, run_spin

    if shutil.which("spin") is None:
        pytest.skip("spin is not installed")
    model = api.load_model(str(path))
    system = model.systems[0]
    text = path.read_text()
    for prop in system.properties:
        if (path.stem, prop.name) in SPIN_DIFFERS:
            continue
        native = api.check_property(system, prop, api.CheckOptions(timeout=120))
        if prop.kind is PropertyKind.SAFETY:
            # pan's default build: it checks xr/xs (a -DNOREDUCE build does not)
            options = SpinOptions(defines=("NOCLAIM",), timeout=120)
        elif prop.kind is PropertyKind.LTL:
            options = SpinOptions(defines=("NOREDUCE",), acceptance=True, ltl=prop.name,
                                  timeout=120)
        else:
            options = SpinOptions(defines=("NOREDUCE",), acceptance=True, timeout=120)
        result = run_spin(text, options)
        assert result.complete or result.errors
        spin = Outcome.VIOLATED if result.errors else Outcome.HOLDS
        assert native.outcome == spin, (prop.text, native.reason)
