"""CSP# as PAT 3.5 accepts it (issue 15): each construct on a model of our own, with
the verdict PAT gives (cspsharp.md section 10) or one derived by hand in the docstring.

The models are ``tests/models/csp/pat35_*.csp``; counts are states and transitions of
the native engine, which keeps one state per PAT state.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from bridge import api
from bridge.diagnostics import SemanticError, UnsupportedError
from bridge.frontends.csp import load_csp
from bridge.ir import ModelFile, Outcome

explore_mod = importlib.import_module("bridge.semantics.explore")

MODELS = Path(__file__).resolve().parents[3] / "models" / "csp"


def model(name: str) -> ModelFile:
    return load_csp(str(MODELS / name))


def results(name: str) -> dict[int, tuple[Outcome, int, int]]:
    """Return assertion number -> (outcome, states, transitions)."""
    out = {}
    for system, prop in model(name).properties():
        v = api.check_property(system, prop, api.CheckOptions())
        out[prop.number] = (v.outcome, v.statistics.states, v.statistics.transitions)
    return out


def test_byte_order_mark_includes_and_assertion_numbers() -> None:
    """The main file and one include start with a UTF-8 byte-order mark; ``lib_a`` is
    included twice and ``LIMIT`` is defined identically in both libraries (PAT reads the
    file once and accepts the repeated constant). PAT numbers the main file's assertions
    first (1, 2), then those of the included files in the order they are read (3 from
    lib_a, 4 from lib_b). Switch cycles lamps 0 -> 1 -> 2 -> 0: 3 states, 3 steps;
    deadlock-free (VALID), reaches full (VALID), []<> reset (VALID: the only run takes
    reset every third step), reaches overfull (NOT VALID)."""
    texts = {p.number: p.text for _, p in model("pat35_bom_includes.csp").properties()}
    assert texts == {
        1: "Switch() deadlockfree",
        2: "Switch() reaches full",
        3: "Switch() |= []<> reset",
        4: "Switch() reaches overfull",
    }
    r = results("pat35_bom_includes.csp")
    assert r[1] == (Outcome.HOLDS, 3, 3)
    assert r[2][0] is Outcome.HOLDS and r[3][0] is Outcome.HOLDS
    assert r[4] == (Outcome.VIOLATED, 3, 3)


def test_byte_order_mark_does_not_shift_columns() -> None:
    """Columns of the first line do not count the mark (editors do not show it)."""
    with pytest.raises(SemanticError) as info:
        load_csp("t.csp", "\ufeffvar x = y;\nP = Skip;\n#assert P deadlockfree;")
    span = info.value.diagnostics[0].span
    assert (span.line, span.col) == (1, 9)


def test_different_constants_are_still_declared_twice() -> None:
    with pytest.raises(SemanticError, match="'N' is declared twice"):
        load_csp("t.csp", "#define N 2;\n#define N 3;\nP = Skip;\n#assert P deadlockfree;")


def test_channel_array_elements_are_independent_channels() -> None:
    """PAT (cspsharp.md 10.2): ``c[0]!3 -> c[0]?x -> c[1]!x -> c[1]?y{got = y;} -> Stop``
    reaches got == 3: VALID, 5 states, 4 transitions; it then deadlocks."""
    r = results("pat35_channel_array.csp")
    assert r[1] == (Outcome.HOLDS, 5, 4)
    assert r[2] == (Outcome.VIOLATED, 5, 4)


def test_channel_array_indices_from_parameters_and_variables() -> None:
    """Four Sender/Receiver pairs meet on ``peer[i * N + j]`` (a handshake each, in any
    order: 2^4 combinations) while Mail sends on ``post[slot]`` with ``slot`` a
    variable (1, then 0 after the receive): 4 locations. 16 * 4 = 64 states; 32
    handshakes per Mail location (4 * 128) and 3 Mail steps per combination (16 * 3):
    176 transitions. All 4 pairs and Mail done: seen == 0+1+1+2, slot == 0 (VALID);
    everything ends in Stop: deadlock (NOT VALID)."""
    r = results("pat35_channel_grid.csp")
    assert r[1][0] is Outcome.HOLDS
    assert r[2] == (Outcome.VIOLATED, 64, 176)


def test_channel_of_several_arities() -> None:
    """PAT (cspsharp.md 10.3): ``c!1.2 -> c!5 -> c?x -> c?y -> Stop`` on a buffered
    channel deadlocks after the two sends (3 states, 2 transitions): the head message
    has 2 fields and ``c?x`` takes only a 1-field message."""
    assert results("pat35_channel_arities.csp")[1] == (Outcome.VIOLATED, 3, 2)


def test_synchronous_channel_of_several_arities() -> None:
    """Rx offers ``link?a.b`` and ``link?v``; the pair 1.2 meets the first (sum 3), the
    single 5 the second (sum 53): 3 states, 2 transitions, then deadlock."""
    r = results("pat35_channel_arities_sync.csp")
    assert r[1][0] is Outcome.HOLDS
    assert r[2] == (Outcome.VIOLATED, 3, 2)


def test_channel_events_show_only_the_message() -> None:
    """The arity PAT does not show is not in the event names (``c!1.2``, ``c!5``)."""
    system, prop = model("pat35_channel_arities.csp").properties()[0]
    v = explore_mod.check_property(system, prop)
    assert [s.event for s in v.trace.steps] == ["c!1.2", "c!5"]


def test_define_with_parenthesised_condition_is_a_proposition() -> None:
    """PAT (cspsharp.md 10.4): ``#define isone(x == 1);`` with ``var x = 1`` makes
    ``reaches isone`` VALID (at the initial state); ``istwo`` after one bump: VALID."""
    r = results("pat35_proposition_parens.csp")
    assert r[1][0] is Outcome.HOLDS and r[1][1] == 1
    assert r[2][0] is Outcome.HOLDS


def test_macros_are_called_with_call() -> None:
    """PAT 3.4.2's macros: ``call(multi, 3, 4)`` is 12, not > 12, so Pick does
    ``small`` (``<> small`` VALID); ``reset1`` zeroes x and y, ``call(reset, 1)`` sets
    both to 1, ``call(bump, z)`` makes z 3: reaches goal VALID. ``unused(k)`` is
    defined and never called (PAT accepts it)."""
    r = results("pat35_macros.csp")
    assert r[1][0] is Outcome.HOLDS
    assert r[2][0] is Outcome.HOLDS


@pytest.mark.parametrize(
    "text",
    [
        # cspsharp.md 10.5: a macro used by its name like a function is an error in PAT.
        "#define f(i) (i + 1);\nvar x = 0;\nP = a{x = f(x)} -> Skip;\n#assert P deadlockfree;",
        "#define g(i) (x == i);\nvar x = 0;\nP = [g(1)] a -> Skip;\n#assert P deadlockfree;",
    ],
)
def test_macros_called_like_functions_are_refused(text: str) -> None:
    with pytest.raises(Exception, match="unexpected"):
        load_csp("t.csp", text)


def test_indexed_boolean_operators_without_parentheses() -> None:
    """PAT (cspsharp.md 10.6): ``[&& j:{0..1}@(a[j] == 0)] ok -> Stop`` with
    a = [0, 0, 1]: the guard holds, so deadlockfree is NOT VALID after 1 transition.
    Q: ``[|| j:{0..2}@(a[j] == 1)]`` holds, ``[&& j:{0..2}@(a[j] == 0)]`` does not, so
    ``<> some`` is VALID."""
    r = results("pat35_indexed_guard.csp")
    assert r[1] == (Outcome.VIOLATED, 2, 1)
    assert r[2][0] is Outcome.HOLDS


def test_math_library() -> None:
    """``call(Pow, 2, 10)`` is 1024; ``Max(Abs(-3), Min(7, 5))`` is 5: VALID."""
    assert results("pat35_math.csp")[1][0] is Outcome.HOLDS


def test_set_library_has_value_semantics() -> None:
    """Add(2) ||| Add(1) interleave; both orders give the set {1, 2}, one state (PAT's
    Set is sorted, so its ID is the same): 4 states before ``fill``, 5 with it, and 5
    transitions; Count 2, Get(0) 1, Contains(2), overlapping {1, 3}: VALID; Stop
    deadlocks (NOT VALID)."""
    r = results("pat35_library_set.csp")
    assert r[1][0] is Outcome.HOLDS
    assert r[2] == (Outcome.VIOLATED, 5, 5)


def test_queue_and_stack_libraries() -> None:
    """Queue 4, 9: Dequeue gives 4 and First is then 9; Stack 4, 9: Pop gives 9 and
    Peek is then 4; one element left in each (size 2): VALID; 4 states, then Stop."""
    r = results("pat35_library_queue_stack.csp")
    assert r[1][0] is Outcome.HOLDS
    assert r[2] == (Outcome.VIOLATED, 4, 3)


def test_list_and_hashtable_libraries() -> None:
    """List [4, 5, 6] after Add 5, Add 6, Insert(0, 4): Get(1) is 5, IndexOf(6) is 2;
    table {1: 10, 2: 20}: GetValue(2) is 20: VALID."""
    assert results("pat35_library_list_table.csp")[1][0] is Outcome.HOLDS


def test_library_runtime_error_is_a_violation_with_a_trace() -> None:
    """PAT's Queue throws "Access an empty queue!" on Dequeue of an empty queue; the
    verification stops there. bridge reports it at the call, after the step ``a``."""
    system, prop = model("pat35_library_error.csp").properties()[0]
    v = explore_mod.check_property(system, prop)
    assert v.outcome is Outcome.VIOLATED
    assert "empty queue" in " ".join(v.notes)
    assert [s.event for s in v.trace.steps] == ["a"]


def test_guarded_cycle_of_process_references() -> None:
    """Visit(0) skips to Visit(1) while cap[0] == 0, Visit(1) buys while cap[1] > 0
    (it stays 1) and would skip on to Visit(2) and back to Visit(0): the guards decide
    in each state, so the unfolding ends. States (Visit(0), 0), (Visit(1), 1),
    (Visit(1), 0): 3 states, 3 transitions, deadlock-free (VALID); served == 1 VALID."""
    r = results("pat35_guarded_cycle.csp")
    assert r[1][0] is Outcome.HOLDS
    assert r[2] == (Outcome.HOLDS, 3, 3)


@pytest.mark.parametrize("text, column", [("P = P [] a -> P;", 5), ("P = P;", 5)])
def test_unguarded_recursion_leaves_its_assertions_unchecked(text: str, column: int) -> None:
    """PAT parses the model and cannot check an assertion about P (its unfolding of P
    does not end); the model loads and the assertion is refused with its position."""
    model = load_csp("t.csp", text + "\n#assert P deadlockfree;")
    assert model.systems == ()
    (refused,) = model.refused
    assert refused.number == 1 and "unfolds without end" in refused.message
    assert (refused.span.line, refused.span.col) == (1, column)


DEEP = 3000


@pytest.mark.parametrize(
    "text, states",
    [
        ("P = " + " [] ".join(f"a.{i} -> Skip" for i in range(DEEP)) + ";", 3),
        ("P = " + "; ".join(f"a.{i} -> Skip" for i in range(DEEP)) + ";", DEEP + 2),
        ("P = " + " -> ".join(f"a.{i}" for i in range(DEEP)) + " -> Skip;", DEEP + 2),
        ("P = " + "".join(f"(a.{i} -> Skip [] " for i in range(DEEP)) + "Skip"
         + ")" * DEEP + ";", 3),
        ("var x = 3;\nP = " + " else ".join(f"if (x == {i}) {{ a.{i} -> Skip }}"
                                         for i in range(DEEP)) + ";", 7),
        ("var x = 3;\nP = [" + " || ".join(f"x == {i}" for i in range(DEEP))
         + "] a -> Skip;", 3),
    ],
    ids=["choices", "sequence", "prefixes", "nested-choices", "else-if", "guard"],
)
def test_deep_models_load_and_check(text: str, states: int) -> None:
    """Thousands-long chains of choices, sequential compositions, prefixes, nested
    choices, else-ifs and a thousands-long guard (machine-written models): PAT parses
    them; they must load and be explored (deadlock-free: every run ends in Skip). The
    else-if chain with x == 3: four tau steps (the conditions x == 0..3), a.3, the
    terminate: 7 states."""
    system = load_csp("deep.csp", text + "\n#assert P deadlockfree;").systems[0]
    v = explore_mod.check_property(system, system.properties[0])
    assert v.outcome is Outcome.HOLDS
    assert v.statistics.states == states


# ---------------------------------------------------------------------------------
# Constructs the public-model survey found beyond the list
# (benchmarks/survey_csp.md); each on a small model of our own.


def outcomes(text: str, path: str = "t.csp") -> list[Outcome]:
    return [api.check_property(s, p, api.CheckOptions()).outcome
            for s, p in load_csp(path, text).properties()]


def test_initialiser_reads_a_variable_declared_before() -> None:
    """``var size = 100; var cap = size;``: PAT initialises variables in order, so cap
    starts at 100 and ``reaches full`` (cap == 100) is VALID at once."""
    text = "var size = 100;\nvar cap = size;\nP = a -> P;\n#define full cap == 100;\n" \
           "#assert P reaches full;"
    assert outcomes(text) == [Outcome.HOLDS]


def test_block_array_literal_of_variables() -> None:
    """``var m = [x, y, x + y];`` in an event block takes the current values: with
    x = 2, y = 3, m[2] is 5 and ``reaches five`` is VALID."""
    text = ("var x = 2;\nvar y = 3;\nvar r = 0;\n"
            "P = go{var m = [x, y, x + y]; r = m[2];} -> Stop;\n"
            "#define five r == 5;\n#assert P reaches five;")
    assert outcomes(text) == [Outcome.HOLDS]


def test_if_macro_used_as_a_value() -> None:
    """``#define dist if (x > t) {x - t} else {t - x};`` (PAT 3.4.1: macros with if)
    is the distance to t = 4; x runs 1..6 and ``with min(dist)`` over the states where
    x > 4 is 1 (at x == 5; 2 at x == 6)."""
    text = ("var x = 1;\nvar t = 4;\n#define dist if (x > t) {x - t} else {t - x};\n"
            "P = [x < 6] r{x++} -> P;\n#define far x > 4;\n"
            "#assert P reaches far with min(dist);")
    system, prop = load_csp("t.csp", text).properties()[0]
    v = api.check_property(system, prop, api.CheckOptions())
    assert v.outcome is Outcome.HOLDS and v.value == 1


def test_windows_include_path_falls_back_to_the_file_beside(tmp_path: Path) -> None:
    """``#include "C:\\Users\\me\\lib.csp";`` (written on the author's machine) reads
    ``lib.csp`` beside the including file; files including each other circularly are
    read once each (PAT reads a file once)."""
    (tmp_path / "lib.csp").write_text('#include "main.csp";\n#define N 2;\n')
    main = tmp_path / "main.csp"
    main.write_text('#include "C:\\Users\\me\\lib.csp";\nvar x = N;\nP = a -> P;\n'
                    "#define two x == 2;\n#assert P reaches two;\n")
    assert [api.check_property(s, p, api.CheckOptions()).outcome
            for s, p in load_csp(str(main)).properties()] == [Outcome.HOLDS]


def test_shipped_demo_library_may_be_imported_unused() -> None:
    """``#import "PAT.Lib.Example";`` is a library PAT ships: importing it is fine; a
    call of one of its functions is refused by name (bridge does not implement it)."""
    assert outcomes('#import "PAT.Lib.Example";\nP = a -> P;\n#assert P deadlockfree;') \
        == [Outcome.HOLDS]
    with pytest.raises(Exception, match=r"call\(max, \.\.\.\)"):
        load_csp("t.csp", '#import "PAT.Lib.Example";\nvar x;\n'
                 "P = a{x = call(max, 1, 2)} -> P;\n#assert P deadlockfree;")


def test_parameter_growing_without_bound_is_kept_in_a_local() -> None:
    """``P(n) = [n < 2000] a -> P(n + 1)``: 2000 values of n, each a PAT state (2001
    with the final one, where the guard blocks: deadlock). The lowering keeps n in a
    local instead of specialising 2000 locations."""
    system = load_csp("t.csp", "P(n) = [n < 2000] a -> P(n + 1);\n"
                               "#assert P(0) deadlockfree;").systems[0]
    assert len(system.processes[0].locations) < 10
    v = api.check_property(system, system.properties[0], api.CheckOptions())
    assert v.outcome is Outcome.VIOLATED and v.statistics.states == 2001


def test_state_dependent_event_that_no_other_operand_names_interleaves() -> None:
    """``Recv() = c?x -> seen.x -> Stop`` in ``Recv() || Send()`` with ``Send() = c!1 ->
    ack -> Stop`` (c buffered, capacity 1): no other operand has an event called
    ``seen``, so ``seen.x`` cannot be a barrier whatever ``x`` is. By hand: Recv has 3
    positions (before c?, before seen, Stop), Send 3; the buffer is full exactly when
    Send has sent and Recv not yet received: 7 states, 8 transitions, one deadlock
    (both at Stop): deadlockfree NOT VALID; the graph has no cycle and every maximal
    run ends at that deadlock after seen.1: ``<> seen.1`` VALID."""
    r = results("pat35_dynamic_event_alphabet.csp")
    assert r[1] == (Outcome.VIOLATED, 7, 8)
    assert r[2][0] is Outcome.HOLDS
    alphabets = model("pat35_dynamic_event_alphabet.csp").systems[0].composition.alphabets
    assert alphabets == (frozenset(), frozenset({"ack"}))


def test_hiding_above_a_parallel_composition() -> None:
    """``Pair() = (Giver() || Taker()) \\ {hand, give}`` with ``Giver() = hand -> give
    -> Stop`` and ``Taker() = hand -> take{got = 1;} -> Stop`` (cspsharp.md 7: hiding
    relabels the steps as tau; the operands still synchronise on ``hand`` first). By
    hand: the joint hand (tau), then give (tau) and take interleave: 5 states, 5
    transitions, a deadlock at the end (1: NOT VALID); every run takes take (2: VALID);
    hand is never seen (3: NOT VALID); no tau cycle (6: divergence-free VALID).
    ``Sys() = Pair() || Other()`` with ``Other() = hand -> Stop``: the hidden hand is
    not in Pair's alphabet, so Other's hand is free: reaches taken (4: VALID), every
    run ends after Other's hand (5: VALID), 5 x 2 = 10 states and 5 x 2 + 5 = 15
    transitions with a deadlock (7). ``Mixed() = ((Giver() || Taker()) ||| Other()) \\
    {hand}``: hiding goes down through '|||' to Other and stays on the '||' node: give
    is visible and always taken (8: VALID), hand never (9: NOT VALID), 10 states, 15
    transitions (10)."""
    r = results("pat35_hiding_parallel.csp")
    assert r[1] == (Outcome.VIOLATED, 5, 5)
    assert r[2][0] is Outcome.HOLDS and r[3][0] is Outcome.VIOLATED
    assert r[4][0] is Outcome.HOLDS and r[5][0] is Outcome.HOLDS
    assert r[6][0] is Outcome.HOLDS
    assert r[7] == (Outcome.VIOLATED, 10, 15)
    assert r[8][0] is Outcome.HOLDS and r[9][0] is Outcome.VIOLATED
    assert r[10] == (Outcome.VIOLATED, 10, 15)
    systems = {s.name: s for s in model("pat35_hiding_parallel.csp").systems}
    outer = systems["Sys"].composition
    assert outer.alphabets[0] == frozenset() and outer.children[0].hidden == {"hand", "give"}


def test_hiding_a_state_dependent_event_above_parallel_is_refused() -> None:
    text = ("channel c 1;\nA() = c?x -> e.x -> Stop;\nB() = c!1 -> Stop;\n"
            "S() = (A() || B()) \\ {e.1};\n#assert S() deadlockfree;")
    with pytest.raises(UnsupportedError, match="hiding event 'e' whose components") as info:
        load_csp("t.csp", text)
    assert info.value.diagnostics[0].span.line == 2


def test_interleaving_reached_while_the_process_runs() -> None:
    """'|||' that static instances cannot give, lowered inside its process (PAT's
    interleaving within the process term, cspsharp.md section 7).

    ``Round() = start -> (a -> Skip ||| b -> Skip); done{n = (n + 1) % 2;} -> Round()``
    (under recursion): 5 places (before start, both pending, a done, b done, before
    done) x n in {0, 1}: 10 states, 6 x 2 = 12 transitions, no deadlock (1: VALID),
    every run takes done forever (2: VALID), n never reaches 2 (3: NOT VALID).
    ``Sys() = Pick(); fin -> Stop`` with ``Pick() = go -> Skip [] (x -> Skip ||| y ->
    Skip)`` (under a choice): the composition of two Skips is Skip at once, so after
    x and y the process is at fin, as after go: 5 states (choice, fin, x done, y done,
    Stop), 6 transitions, deadlock in Stop (4: NOT VALID), fin always comes (5: VALID).
    ``Net() = Sender() ||| Learner()``: Sender sends 1 then 2 on a buffered channel;
    Learner is ``(||| {2} @ (c?v{sum = sum + v;} -> Skip)) [] quit -> Stop`` then
    ``ok -> Stop``; each operand binds its own v. Learner places: choice and quit
    (0 received, with 0..2 sent: 3 + 3), one of two operands done (1 received, 1..2
    sent: 2 + 2), before and after ok (both sent and received: 1 + 1) = 12 states;
    transitions: 9 from the choice, 2 after quit, 2 + 2 after one receive, 1 (ok) =
    16. sum == 3 is reached (6: VALID), ok only after it (7: VALID), deadlocks (8:
    NOT VALID), sum == 5 never (9: NOT VALID, the full 12 states and 16 transitions).
    """
    r = results("pat35_interleave_dynamic.csp")
    assert r[1] == (Outcome.HOLDS, 10, 12)
    assert r[2][0] is Outcome.HOLDS
    assert r[3] == (Outcome.VIOLATED, 10, 12)
    assert r[4] == (Outcome.VIOLATED, 5, 6)
    assert r[5][0] is Outcome.HOLDS
    assert r[6][0] is Outcome.HOLDS and r[7][0] is Outcome.HOLDS
    assert r[8][0] is Outcome.VIOLATED
    assert r[9] == (Outcome.VIOLATED, 12, 16)
    # one process per written target: the operands are inside it
    assert [len(s.instances) for s in model("pat35_interleave_dynamic.csp").systems] == [1, 1, 2]


def test_interleaving_terminates_when_every_operand_can() -> None:
    """``P() = go -> (a -> Skip ||| (Skip interrupt b -> Skip)); P()``: the second
    operand B is not Skip but offers terminate (Skip's, ending the interrupt), and
    '|||' terminates when every operand can (cspsharp.md 7). By hand: from (a..., B)
    a and b (b discards the interrupted Skip: B becomes Skip); from (Skip, B) the
    joint terminate (tau under ';', back to P) and b (Skip ||| Skip is Skip: P at
    once); from (a..., Skip) a (P at once). States: before go and the three
    compositions = 4; transitions: go, 2, 2, 1 = 6; no deadlock."""
    text = ("P() = go -> (a -> Skip ||| (Skip interrupt b -> Skip)); P();\n"
            "#assert P() deadlockfree;")
    system = load_csp("t.csp", text).systems[0]
    v = api.check_property(system, system.properties[0], api.CheckOptions())
    assert v.outcome is Outcome.HOLDS
    assert (v.statistics.states, v.statistics.transitions) == (4, 6)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("channel c 0;\nP() = a -> (c!1 -> Skip ||| c?x -> Skip); P();",
         "a synchronous channel between two operands of '|||'"),
        ("P() = a -> (b -> Skip || b -> Skip); P();", "'||' nested under recursion"),
    ],
)
def test_interleaving_reached_while_running_refusals(text: str, fragment: str) -> None:
    with pytest.raises(UnsupportedError, match=fragment):
        load_csp("t.csp", text + "\n#assert P() deadlockfree;")


@pytest.mark.parametrize(
    "text, outcome, states, transitions",
    [
        # a -> (b ||| c); P: before a, both pending, b done, c done; a, b, c, c, b
        ("P = a -> (b -> Skip ||| c -> Skip); P;", Outcome.HOLDS, 4, 5),
        # (b ||| c) [] d: the choice, b done, c done, Skip, terminated; b c d, c, b, end
        ("P = (b -> Skip ||| c -> Skip) [] d -> Skip;", Outcome.HOLDS, 5, 6),
        # Q(i) = [i < 2] a.i -> (b ||| Q(i + 1)): two levels, Q(2) blocks; 7 places
        # (Q(0), then outer b x (Q(1) | inner b pending/done)), 8 steps, a deadlock
        ("P = Q(0);\nQ(i) = [i < 2] a.i -> (b -> Skip ||| Q(i + 1));", Outcome.VIOLATED, 7, 8),
    ],
)
def test_interleavings_that_were_refused_as_static_instances(
    text: str, outcome: Outcome, states: int, transitions: int
) -> None:
    """Compositions the static lowering refused (under recursion, under a choice,
    nested through a call cycle), with state and transition counts derived by hand."""
    system = load_csp("t.csp", text + "\n#assert P deadlockfree;").systems[0]
    v = api.check_property(system, system.properties[0], api.CheckOptions())
    assert (v.outcome, v.statistics.states, v.statistics.transitions) == (
        outcome, states, transitions)


def test_interleaving_that_starts_copies_of_itself_without_bound() -> None:
    with pytest.raises(SemanticError, match="'[|][|][|]' nested more than 16 deep"):
        load_csp("t.csp", "P = a -> (P ||| b -> Skip);\n#assert P deadlockfree;")


def test_atomic_operand_of_an_interleaving_inside_a_process() -> None:
    """``Work() = go -> (atomic{a{x = 1;} -> b{x = 2;} -> Skip} ||| c{x = 5;} ->
    Skip); Work()`` with ``Watch() = [x == 1] seen -> Watch()`` beside it
    (cspsharp.md 7: when an atomic step is enabled, only atomic steps happen). By
    hand: after go only a (c and Watch wait), then only b (x == 1 lasts one state,
    where seen waits), then c, back to Work with x == 5; the second round gives the
    same states after a. States: Work x0, both pending x0, after a x1, after b x2,
    Work x5, both pending x5 = 6; transitions go a b c go a = 6; no deadlock (1);
    go forever (2); seen never (3: VALID; without the priority c first then a would
    let Watch see x == 1); x == 7 never (4)."""
    r = results("pat35_interleave_atomic.csp")
    assert r[1] == (Outcome.HOLDS, 6, 6)
    assert r[2][0] is Outcome.HOLDS and r[3][0] is Outcome.HOLDS
    assert r[4] == (Outcome.VIOLATED, 6, 6)
    work = model("pat35_interleave_atomic.csp").systems[0].processes[0]
    # a and b, each with c pending or done (c first is a location, never reached)
    assert sorted(e.text for e in work.edges if e.atomic) == ["a{x = 1;}"] * 2 + [
        "b{x = 2;}"] * 2
