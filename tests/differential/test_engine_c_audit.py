"""Constructs a CSP# or Promela source reaches that the C engine refused until the
audit of its refusals (issue 12): each against the Python engine (the reference), every
state and transition count, verdict and trace alike, and the C engine takes the model
(``driver.supports``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.engine_c import driver
from bridge.engine_c.build import find_compiler
from bridge.engine_c.gen_base import MAX_LOCAL_ARRAY
from bridge.ir import FairnessMark, Outcome
from bridge.semantics import explore as python_engine
from tests.conftest import in_ci
from tests.differential.test_engine_c import assert_engines_agree
from tests.differential.test_engine_c_constructs import _agree
from tests.differential.test_engine_c_constructs import _systems as _systems_of
from tests.differential.test_engine_c_ltl import compare
from tests.unit.engine_c.test_event_names import _python_names, _table

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")


def test_large_block_array_agrees(tmp_path: Path) -> None:
    """A block array of more cells than the C stack keeps (``var a[5000];`` in an
    event's block: static storage): zeroed each time the block runs, written and read
    at indices computed from the state, by two interleaved processes; ``g`` grows by
    one a step only if every cell read is the block's own (a cell left from an earlier
    run would add more), so the goal and the deadlock trace are the Python engine's."""
    n = MAX_LOCAL_ARRAY + 904
    text = (f"var g = 0;\nvar h = 0;\n"
            f"P() = e{{var a[{n}]; a[g % {n}] = a[g % {n}] + 1; a[{n - 1}] = a[{n - 1}] + 1; "
            f"g = g + a[g % {n}] * a[{n - 1}] + a[(g + 1) % {n}];}} -> ([g < 4] P());\n"
            f"Q() = f{{var b[{n}] = 7; h = h + b[h % {n}] - 6;}} -> ([h < 3] Q());\n"
            "S() = P() ||| Q();\n"
            "#define goal g == 4 && h == 3;\n#assert S() reaches goal;\n#assert S() deadlockfree;\n")
    (ts,) = _agree(tmp_path, "big_block.csp", text)
    assert python_engine.check_property(ts, ts.properties[0]).outcome is Outcome.HOLDS
    assert python_engine.check_property(ts, ts.properties[1]).outcome is Outcome.VIOLATED


def test_large_array_copy_agrees(tmp_path: Path) -> None:
    """``a = b`` on whole arrays of more cells than the C stack keeps (a loop through a
    static buffer): every cell copied, a copy between arrays of different lengths a
    model error on both engines (the second system)."""
    n = MAX_LOCAL_ARRAY + 904
    text = (f"var a[{n}];\nvar b[{n}];\nvar d[{n + 1}];\n"
            f"P() = e{{b[0] = 1; b[{n - 1}] = 2; b[{n // 2}] = 3; a = b;}} -> "
            f"([a[0] + a[{n - 1}] * 10 + a[{n // 2}] * 100 == 321] f{{b = a; b[1] = 4;}} -> "
            f"g{{a = b;}} -> ([a[1] == 4] h -> Stop));\n"
            "Q() = e{d = a;} -> Stop;\n"
            "#define goal a[1] == 4;\n#assert P() reaches goal;\n#assert P() deadlockfree;\n"
            "#assert Q() deadlockfree;\n")
    p, q = _agree(tmp_path, "big_copy.csp", text)
    assert python_engine.check_property(p, p.properties[0]).outcome is Outcome.HOLDS
    error = python_engine.check_property(q, q.properties[0])
    assert error.outcome is Outcome.VIOLATED and error.reason != "deadlock"


def test_large_array_in_a_message_agrees(tmp_path: Path) -> None:
    """A whole array of more cells than the C stack keeps sent on a channel (``c!a``:
    the tuple of its cells, interned from a static buffer): the two messages differ in
    one cell, and only the receiver's comparisons tell them apart."""
    n = MAX_LOCAL_ARRAY + 904
    text = (f"var a[{n}];\nchannel c 1;\nvar r = 0;\n"
            f"P() = e{{a[{n - 1}] = 5;}} -> c!a -> f{{a[{n - 1}] = 0;}} -> c!a -> Stop;\n"
            "Q() = c?x -> c?y -> ([x == y] same -> Stop [] [x != y] differ{r = 1;} -> Stop);\n"
            "S() = P() ||| Q();\n#define goal r == 1;\n#assert S() reaches goal;\n"
            "#assert S() deadlockfree;\n")
    (ts,) = _agree(tmp_path, "big_message.csp", text)
    assert python_engine.check_property(ts, ts.properties[0]).outcome is Outcome.HOLDS


@pytest.mark.parametrize("value", ["99999999999999999999", "9223372036854775807 + 1",
                                   "-9223372036854775807 - 2"])
def test_constant_beyond_64_bits_falls_back_where_evaluated(tmp_path: Path, value: str) -> None:
    """A folded constant beyond 64 bits (CSP#'s ints are unbounded in the Python
    engine) no longer refuses the model: the C engine takes it; where the constant is
    never evaluated (``d``) the C engine answers alone, and evaluating it (``b``) hands
    the run to the Python engine (``CFallback``, under ``--engine auto`` the note of an
    overflow): the same verdict and trace."""
    def model(name: str, guard: str) -> Path:
        path = tmp_path / name
        path.write_text(f"var x = 0;\nP() = a{{x = 1;}} -> ([x > {guard}] b{{x = {value};}} -> "
                        f"f.x -> Stop [] [x > 5] d{{x = {value};}} -> Stop [] c -> Stop);\n"
                        "#assert P() deadlockfree;\n")
        return path

    (never,) = _agree(tmp_path, "never.csp", model("never.csp", "5").read_text())
    assert driver.explore_c(never).states == 3  # the start, after a, after c (b, d never)
    path = model("reached.csp", "0")
    (ts,) = api.load_model(str(path)).systems
    ok, why = driver.supports(ts)
    assert ok, why
    with pytest.raises(driver.CFallback):
        driver.explore_c(ts)
    (verdict,) = api.check(api.load_model(str(path)), options=api.CheckOptions(engine="auto"))
    expected = python_engine.check_property(ts, ts.properties[0])
    assert (verdict.outcome, verdict.reason) == (expected.outcome, expected.reason)
    assert [s.event for s in verdict.trace.steps] == [s.event for s in expected.trace.steps]
    assert any("a value left" in n for n in verdict.notes), verdict.notes


def test_initial_value_outside_its_slot_is_named(tmp_path: Path) -> None:
    """An initial value a packed slot cannot hold (CSP# ints are 32-bit slots) stays a
    refusal, naming the variable, the cell, its declaration and the value; ``--engine
    auto`` answers with the Python engine and says why."""
    path = tmp_path / "big_initial.csp"
    path.write_text("var x = 1;\nvar a[3] = [1, 5000000000, 2];\nP() = e{a[0] = x;} -> Stop;\n"
                    "#assert P() deadlockfree;\n")
    model = api.load_model(str(path))
    (ts,) = model.systems
    ok, why = driver.supports(ts)
    assert not ok
    assert f"the initial value 5000000000 of 'a[1]' (declared at {path}:2:1)" in why, why
    (verdict,) = api.check(model, options=api.CheckOptions(engine="auto"))
    assert verdict.outcome is Outcome.VIOLATED
    assert any("'a[1]'" in n for n in verdict.notes), verdict.notes


def test_barriers_combined_at_run_time_agree() -> None:
    """More synchronisation vectors than the Python engine precomputes
    (``MAX_SYNC_VECTORS``): both engines combine the enabled barrier offers at run
    time (``gen_tables.runtime_barriers_code``), flat and nested with hiding and an
    interleaving; counts, verdicts, traces and LTL lassos under every notion agree."""
    path = Path(__file__).resolve().parents[1] / "models" / "csp" / "barriers_at_run_time.csp"
    for ts in api.load_model(str(path)).systems:
        assert "br_barriers(c, s, slen)" in driver.generate_model(ts).source  # at run time
        assert assert_engines_agree(ts) > 0
        assert compare(ts, limit=100000) == 2 * len(driver.LTL_FAIRNESS)  # all in C


def test_barriers_combined_at_run_time_with_annotations_agree(tmp_path: Path) -> None:
    """Barriers combined at run time whose edges carry the model's ``wl``/``sl``/``wf``
    marks, and command-line annotations: the fair search finds a joint step's edges
    (its units) from the offers kept for its label (``c->rv``)."""
    alts = " [] ".join(f"[x == {k}] a -> R(i)" for k in range(3, 14))
    text = ("var x = 0;\n"
            f"R(i) = wl(a) -> R(i) [] [x == 1] sl(a) -> R(i) [] [x == 2] wf(a) -> R(i) [] {alts}\n"
            "  [] t.i{x = (x + 1) % 3;} -> R(i) [] [x == 2] s.i -> Stop;\n"
            "Sys = R(0) || R(1) || R(2) || R(3) || R(4);\n"
            "#assert Sys |= []<> a;\n#assert Sys |= []<> t.0;\n")
    (ts,) = _systems_of(tmp_path, "marked.csp", text)
    assert "br_barriers(c, s, slen)" in driver.generate_model(ts).source
    assert assert_engines_agree(ts) > 0
    assert compare(ts, limit=100000) == 2 * len(driver.LTL_FAIRNESS)
    fair = (api.parse_annotation("sf:a"), api.parse_annotation("wf:t.1"))
    assert compare(ts, limit=100000, annotations=fair) == 2 * len(driver.LTL_FAIRNESS)



def test_library_values_on_channel_arrays_agree(tmp_path: Path) -> None:
    """Sets sent on elements of CSP# channel arrays chosen at run time (``c[i]!s``,
    buffered, and ``r[i]!s`` rendezvous): every element a library value may reach is
    kept as a mixed channel, received values compared with sets and ints, event names
    ``c[0]!(1,)`` as the Python engine names them."""
    text = ('#import "PAT.Lib.Set";\nvar<Set> s;\nvar i = 0;\nvar n = 0;\n'
            "channel c[2] 1;\nchannel r[2] 0;\n"
            "P() = add{s.Add(n); n = (n + 1) % 2;} -> P() [] flip{i = 1 - i;} -> P()\n"
            "  [] c[i]!s -> P() [] r[1 - i]!s -> P() [] c[i]!n -> P();\n"
            "Q() = c[0]?x -> ([x == s] same -> Q() [] [x != s] differ.x -> Q())\n"
            "  [] c[1]?y -> ([y == 1] one -> Q() [] [y != 1] other -> Q())\n"
            "  [] r[0]?z -> got.z -> Q() [] r[1]?w -> ([w == s] Q() [] [w != s] Q());\n"
            "Sys() = P() ||| Q();\n#assert Sys() deadlockfree;\n"
            "#assert Sys() |= []<> same;\n#assert Sys() |= []<> add;\n")
    (ts,) = _agree(tmp_path, "chan_array_sets.csp", text)
    assert compare(ts, limit=100000) == 2 * len(driver.LTL_FAIRNESS)  # every pair in C


def test_library_value_on_one_element_ints_on_the_others_agree(tmp_path: Path) -> None:
    """A set sent on ``c[0]`` only and ints on ``c[i]`` (``i`` chosen at run time; was
    refused: one encoding must serve every element ``c[i]`` may be): every element of
    such a group is kept as a mixed channel (``mixed_variables``), so the ints sent on
    ``c[1]`` are named, received, compared and added as the Python engine does;
    buffered and rendezvous; counts, verdicts, traces, lassos under every notion."""
    text = (Path(__file__).resolve().parents[1] / "models" / "csp"
            / "library_channel_array_ints.csp").read_text(encoding="utf-8")
    (ts,) = _agree(tmp_path, "two_encodings.csp", text)
    assert compare(ts, limit=100000) == 2 * len(driver.LTL_FAIRNESS)  # every pair in C
    lib = driver._type_library(driver.compile_model(ts).library)
    before = set(_table(lib))
    for prop in ts.properties:
        got = api.check_property(ts, prop, api.CheckOptions(engine="c"))
        assert not any("Python engine" in note for note in got.notes), got.notes
    names = _python_names(ts)  # every step's name is the one C interns
    assert {"c[1]!0", "c[1]?2", "one.1", "other.2", "c[0]!(0, 1)", "sum.3"} <= names
    table = set(_table(lib))
    assert names <= table and table - before <= names
    (minimal,) = _agree(tmp_path, "two_encodings_minimal.csp",
                        '#import "PAT.Lib.Set";\nvar<Set> s;\nvar i = 0;\nchannel c[2] 1;\n'
                        "P() = c[0]!s -> c[i]!1 -> Stop;\nQ() = c[0]?x -> c[1]?y -> Stop;\n"
                        "Sys() = P() ||| Q();\n#assert Sys() deadlockfree;\n")
    assert driver.supports(minimal)[0]


def test_whole_array_in_an_event_name_agrees(tmp_path: Path) -> None:
    """``e.a`` on a whole array of the state (was refused: "a whole array used as a
    value"): named by the tuple of its cells, as the Python engine names it (``e.(1,
    2)``; interned as a sequence and rendered like a library value), in the explorer
    (``deterministic``: the two processes' ``e.a`` meet on one name) and the fair
    search (weak fairness over the names, an annotation on one of them)."""
    text = ("var a = [1, 2];\nvar n = 0;\n"
            "P() = e.a -> {a[0] = (a[0] + 1) % 3} -> g.a.n -> {n = (n + 1) % 2} -> P()"
            " [] h.n.a -> P();\n"
            "Q() = e.a -> Q();\nS() = P() ||| Q();\n#define one n == 1;\n"
            "#assert S() deadlockfree;\n#assert S() deterministic;\n"
            "#assert S() |= []<> one;\n")
    (ts,) = _agree(tmp_path, "array_name.csp", text)
    for engine in ("c", "python"):
        got = api.check_property(ts, ts.properties[1], api.CheckOptions(engine=engine))
        assert got.reason == "nondeterministic on event 'e.(1, 2)'", (engine, got.reason)
        assert not any("Python engine" in note for note in got.notes), got.notes
    assert compare(ts, limit=100000, annotations=((FairnessMark.SF, "g.(2, 2).0"),)) > 0
