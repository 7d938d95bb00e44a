"""CSP# nested parallel compositions: IR -> Promela -> SPIN gives the native verdict.

A composition under a prefix or followed by ';' is lowered to dormant static instances
plus two kinds of bookkeeping globals (a start flag, a count-down of the operands still
running). ``bridge translate --to promela`` must carry them over: SPIN on the emitted
model agrees with the engine, for deadlock freedom (plain encoding) and for LTL with
no fairness and with weak fairness (premise and action-process encodings).
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest

from bridge.automata.never import never_claim_for
from bridge.backends.spin.emit import emit_promela
from bridge.backends.spin.run import run_spin
from bridge.frontends.csp import load_csp
from bridge.ir import Fairness, Outcome, PropertyKind, TransitionSystem

pytestmark = [
    pytest.mark.spin,
    pytest.mark.skipif(
        shutil.which("spin") is None or shutil.which("gcc") is None,
        reason="needs spin and a C compiler",
    ),
]

MODELS = {
    # a barrier between the dormant operands, then a continuation after ';'
    "barrier": "Sys = start -> (a -> b -> Skip || a -> c -> Skip); done -> Skip;\n"
               "#assert Sys deadlockfree;\n#assert Sys |= <> done;",
    # the operands block each other at once: a deadlock, 'done' never happens
    "blocked": "Sys = start -> (a -> b -> Skip || b -> a -> Skip); done -> Skip;\n"
               "#assert Sys deadlockfree;\n#assert Sys |= <> done;",
    # a looping operand: <> a needs weak fairness
    "loop": "Loop = l -> Loop;\nSys = start -> (a -> Skip ||| Loop);\n"
            "#assert Sys deadlockfree;\n#assert Sys |= <> a;",
    # nested operands synchronise with a top-level sibling
    "sibling": "Sys = X || Y;\nX = a -> (b -> Skip ||| c -> Skip);\nY = b -> c -> Skip;\n"
               "#assert Sys deadlockfree;\n#assert Sys |= <> c;",
}


def _system(name: str) -> TransitionSystem:
    return load_csp(f"{name}.csp", MODELS[name]).systems[0]


def _native(system: TransitionSystem, number: int, fairness: Fairness) -> Outcome:
    prop = system.properties[number - 1]
    if prop.kind is PropertyKind.LTL:
        from bridge.fairness.check import LtlOptions, check_ltl

        return check_ltl(system, prop, LtlOptions(fairness=fairness, timeout=60)).outcome
    from bridge.semantics.explore import ExploreOptions, check_property

    return check_property(system, prop, ExploreOptions(max_states=None, timeout=60)).outcome


def _spin(system: TransitionSystem, number: int, encoding: str, fairness: Fairness) -> Outcome:
    prop = system.properties[number - 1]
    model = emit_promela(system, encoding, fairness, prop, ltl_blocks=encoding != "premise")
    emitted = model.properties[0]
    options = model.spin_options(emitted, timeout=60)
    if emitted.premises:
        claim, _, _ = never_claim_for(emitted.spot_formula or "")
        options = dataclasses.replace(options, never_claim=claim, ltl=None)
    result = run_spin(model.text, options)
    assert not result.timed_out and (result.complete or result.errors), model.text
    violated = result.errors > 0
    if emitted.negated:
        violated = not violated
    return Outcome.VIOLATED if violated else Outcome.HOLDS


CASES = [
    # (model, property number, encoding, fairness, expected by hand)
    ("barrier", 1, "plain", Fairness.NONE, Outcome.HOLDS),
    ("barrier", 2, "plain", Fairness.NONE, Outcome.HOLDS),
    ("blocked", 1, "plain", Fairness.NONE, Outcome.VIOLATED),
    ("blocked", 2, "plain", Fairness.NONE, Outcome.VIOLATED),
    ("blocked", 2, "premise", Fairness.WEAK, Outcome.VIOLATED),
    ("loop", 1, "plain", Fairness.NONE, Outcome.HOLDS),
    ("loop", 2, "plain", Fairness.NONE, Outcome.VIOLATED),
    ("loop", 2, "premise", Fairness.WEAK, Outcome.HOLDS),
    ("loop", 2, "action-process", Fairness.WEAK, Outcome.HOLDS),
    ("sibling", 1, "plain", Fairness.NONE, Outcome.HOLDS),
    ("sibling", 2, "plain", Fairness.NONE, Outcome.HOLDS),
]


@pytest.mark.parametrize(("name", "number", "encoding", "fairness", "expected"), CASES)
def test_spin_agrees_on_nested_compositions(
    name: str, number: int, encoding: str, fairness: Fairness, expected: Outcome
) -> None:
    system = _system(name)
    assert _native(system, number, fairness) is expected
    assert _spin(system, number, encoding, fairness) is expected


@pytest.mark.parametrize(("name", "violated"), [("barrier", False), ("blocked", True)])
def test_translate_cli_on_a_nested_model(name: str, violated: bool, tmp_path: Path) -> None:
    """``bridge translate --to promela`` writes a model SPIN accepts, with the
    bookkeeping globals; pan -a on its ltl block (<> done) finds the blocked model's
    counterexample and none in the other."""
    from bridge.backends.spin.run import SpinOptions
    from bridge.cli import main

    path = tmp_path / f"{name}.csp"
    path.write_text(MODELS[name])
    out = tmp_path / f"{name}.pml"
    assert main(["translate", str(path), "--to", "promela", "-o", str(out)]) == 0
    text = out.read_text()
    assert "_started" in text and "_joined" in text
    found = re.search(r"^ltl (\w+)", text, re.MULTILINE)
    assert found is not None, text
    result = run_spin(text, SpinOptions(acceptance=True, ltl=found.group(1), timeout=60))
    assert result.complete or result.errors, text
    assert (result.errors > 0) is violated, text
