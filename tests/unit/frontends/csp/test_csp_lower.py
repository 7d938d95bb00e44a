"""Unit tests of the CSP# lowering (bridge/frontends/csp/lower.py; cspsharp.md 2, 7)."""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path

import pytest

from bridge.diagnostics import SemanticError, UnsupportedError
from bridge.frontends.csp import load_csp
from bridge.ir import (
    UNBOUNDED,
    ArrayType,
    Assign,
    Binary,
    BoolType,
    Const,
    Event,
    FairnessMark,
    If,
    Interleave,
    IntType,
    LocalVar,
    LtlBinary,
    LtlEvent,
    LtlState,
    LtlUnary,
    Overflow,
    Parallel,
    Process,
    PropertyKind,
    Receive,
    RecvBind,
    RecvMatch,
    Send,
    TransitionSystem,
    Var,
    While,
)

MODELS = Path(__file__).resolve().parents[3] / "models" / "csp"


def plain(x: object) -> object:
    """Return ``x`` with every ``span`` field set to None (spans are tested elsewhere)."""
    if isinstance(x, tuple):
        return tuple(plain(i) for i in x)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        changes = {f.name: plain(getattr(x, f.name)) for f in dataclasses.fields(x)}
        if "span" in changes:
            changes["span"] = None
        return dataclasses.replace(x, **changes)
    return x


def system(text: str, target: str = "P") -> TransitionSystem:
    model = load_csp("t.csp", text + f"\n#assert {target} deadlockfree;\n")
    return model.systems[0]


def events(p: Process) -> list[str]:
    out = []
    for e in p.edges:
        if e.event is None:
            out.append("tau" if e.comm is None else "comm")
        else:
            comps = [str(c.value) if isinstance(c, Const) else "?" for c in e.event.components]
            out.append(".".join([e.event.base, *comps]))
    return out


def test_constants_propositions_and_enums() -> None:
    ts = system(
        "#define N 2;\n#define M N * 3 - 1;\nenum { RED, GREEN };\nvar x = GREEN;\n"
        "#define high x > M;\nP = [high] a.M -> Skip;"
    )
    assert dict(ts.enums) == {"RED": 0, "GREEN": 1}
    assert plain(ts.globals[0].init) == Const(1)
    (prop,) = ts.propositions
    assert prop.name == "high" and isinstance(prop.expr, Binary) and plain(prop.expr.right) == Const(5)
    edge = ts.processes[0].edges[0]
    assert edge.event is not None and plain(edge.event.components) == (Const(5),)
    assert isinstance(edge.guard, Binary) and edge.guard.op == ">"


def test_variable_types_and_initialisers() -> None:
    ts = system(
        "#define N 2;\nvar a = [4, 1(N), 7..9, 3..2];\nvar t : {0..40} = 20;\nvar u : {1..} = 1;\n"
        "hvar h = 3;\nvar b = true;\nvar g[2][3];\nvar plain;\nP = Skip;"
    )
    g = {v.name: v for v in ts.globals}
    assert g["a"].type == ArrayType(UNBOUNDED, 8)
    assert [c.value for c in g["a"].init] == [4, 1, 1, 7, 8, 9, 3, 2]
    assert plain(g["t"].init) == Const(20)
    assert g["t"].type == IntType(0, 40, Overflow.ERROR, "var")
    assert g["u"].type == IntType(1, None, Overflow.ERROR, "var")
    assert g["h"].hidden and not g["t"].hidden
    assert g["b"].type == BoolType()
    assert g["g"].type == ArrayType(ArrayType(UNBOUNDED, 3), 2) and g["g"].init is None
    assert g["plain"].type == UNBOUNDED


def test_node_processes_are_specialised_per_constant_argument() -> None:
    ts = load_csp(str(MODELS / "token_ring.csp")).systems[0]
    names = [p.name for p in ts.processes]
    assert names == ["Node(0)", "Node(1)", "Node(2)", "Watcher()"]
    assert isinstance(ts.composition, Interleave)  # nothing terminates
    node1 = ts.process("Node(1)")
    assert len(node1.locations) == 3
    assert events(node1) == ["grab.1", "comm", "work.1", "drop.1"]
    grab = node1.edges[0]
    assert grab.data_operation and not node1.edges[2].data_operation
    assert plain(grab.effect[0]) == Assign(Var("owner", "global"), Const(1))
    send = node1.edges[1]
    assert isinstance(send.comm, Send) and plain(send.comm.args) == (Const(1),)
    assert send.target == send.source  # Node(1) -> Node(1) is the same location


def test_channel_input_binds_a_local_that_dies_after_use() -> None:
    ts = load_csp(str(MODELS / "token_ring.csp")).systems[0]
    watcher = ts.process("Watcher()")
    assert [v.name for v in watcher.locals] == ["who"]
    recv, seen = watcher.edges
    assert isinstance(recv.comm, Receive)
    assert plain(recv.comm.args) == (RecvBind(Var("who", "local")),)
    assert seen.event is not None and plain(seen.event.components) == (Var("who", "local"),)
    # back at Watcher() the value is dead: reset so states stay canonical
    assert plain(seen.effect) == (Assign(Var("who", "local"), Const(0)),)


def test_state_dependent_arguments_become_locals() -> None:
    ts = system("var x = 0;\nC(n) = [n < 3] tick.n{x = n;} -> C(n + x);\nP = C(x);")
    (proc,) = ts.processes
    assert [v.name for v in proc.locals] == ["n"]
    # the initial location keeps 'C(x)' symbolic: the first step evaluates x
    first = proc.edges[0]
    assert isinstance(first.guard, Binary) and plain(first.guard.left) == Var("x", "global")
    assert first.event is not None and isinstance(first.event.components[0], Var)
    assert first.event.components[0].scope == "global"
    # the capture happens before the block, the next argument is symbolic again
    assert isinstance(first.effect[0], Assign)
    assert plain(first.effect[0].target) == Var("n", "local")


def test_tail_recursion_with_a_local_argument_reuses_the_location() -> None:
    ts = system("channel c 1;\nC(n) = c!n -> C((n + 1) % 4);\nR = c?v -> C(v);\nP = R;")
    (proc,) = ts.processes
    loops = [e for e in proc.edges if e.source == e.target]
    assert loops, "C(n + 1) must map back to C's location"
    (loop,) = loops
    assert plain(loop.effect) == (Assign(Var("n", "local"), Binary(
        "mod", Binary("+", Var("n", "local"), Const(1)), Const(4))),)


def test_skip_terminates_and_sequence_shortcut() -> None:
    ts = system("P = (a -> Skip); b -> Skip;")
    (proc,) = ts.processes
    assert events(proc) == ["a", "b", "terminate"]  # no tau between a and b
    final = proc.locations[proc.edges[-1].target]
    assert final.terminal and final.end


def test_case_without_default_terminates_like_pat() -> None:
    ts = system("var x = 0;\nP = case { x == 1 : a -> P  x == 2 : b -> P };")
    (proc,) = ts.processes
    assert events(proc) == ["tau", "tau", "tau", "a", "b", "terminate"] or sorted(
        events(proc)) == sorted(["tau", "tau", "tau", "a", "b", "terminate"])
    default = [e for e in proc.edges if e.source == 0][-1]
    assert default.text == "case default"
    assert isinstance(default.guard, type(default.guard)) and default.guard is not None


def test_if_ifa_ifb_and_internal_choice() -> None:
    ts = system("var x = 0;\nP = if (x > 0) { a -> Skip };")
    assert events(ts.processes[0])[:2] == ["tau", "tau"]
    ts = system("var x = 0;\nP = ifa (x > 0) { a -> Skip } else { b -> Skip };")
    assert events(ts.processes[0])[:2] == ["a", "b"]
    ts = system("var x = 0;\nP = ifb (x > 0) { a -> Skip };")
    assert events(ts.processes[0])[0] == "tau" and ts.processes[0].edges[0].guard is not None
    ts = system("P = (a -> Skip) <> (b -> Skip);")
    assert events(ts.processes[0])[:2] == ["tau", "tau"]


def test_constant_guards_are_folded_away() -> None:
    ts = system("#define N 2;\nC(i) = [i < N] a.i -> C(i + 1) [] [i == N] done -> Skip;\nP = C(0);")
    assert events(ts.processes[0]) == ["a.0", "a.1", "done", "terminate"]
    assert all(e.guard is None for e in ts.processes[0].edges)


def test_external_choice_keeps_tau_open() -> None:
    ts = system("P = (tau -> a -> Skip) [*] (b -> Skip);")
    (proc,) = ts.processes
    after_tau = next(e.target for e in proc.edges if e.event is None)
    assert sorted(events(Process("x", (), (), (), tuple(
        e for e in proc.edges if e.source == after_tau), 0))) == ["a", "b"]


def test_atomic_marks_locations_including_the_first() -> None:
    ts = system("P = x -> atomic { a -> b -> Skip }; c -> Skip;")
    (proc,) = ts.processes
    flags = {events(Process("x", (), (), (), (e,), 0))[0]: proc.locations[e.source].atomic
             for e in proc.edges}
    assert flags == {"x": False, "a": True, "b": True, "c": False, "terminate": False}


def test_blocks_become_effects() -> None:
    ts = system(
        "var a[3]; var k = 0;\n#define bump { k++; };\n"
        "P = w{var t = 0; while (t < 3) { if (t == 1) a[t] = 5; else a[t] = t; t = t + 1; }"
        " bump; k = k % 2} -> Skip;"
    )
    (edge, _) = ts.processes[0].edges
    local, loop, inc, mod = edge.effect
    assert isinstance(local, LocalVar) and local.name == "t"
    assert isinstance(loop, While) and isinstance(loop.body[0], If)
    assert isinstance(inc, Assign) and isinstance(inc.value, Binary) and inc.value.op == "+"
    assert isinstance(mod.value, Binary) and mod.value.op == "mod"  # PAT's % is mod


def test_fairness_annotations() -> None:
    ts = system("P = wf(a) -> sl(b.1) -> P;")
    marks = [e.fairness for e in ts.processes[0].edges]
    assert marks == [FairnessMark.WF, FairnessMark.SL]


def test_parallel_alphabets_and_termination_barrier() -> None:
    ts = load_csp(str(MODELS / "sync_pair.csp")).systems[0]
    assert isinstance(ts.composition, Parallel)
    assert ts.composition.alphabets == (frozenset({"a", "b"}), frozenset({"a", "c"}))
    ts = system("A = a -> Skip;\nB = b -> Skip;\nP = A ||| B;")
    assert isinstance(ts.composition, Parallel)
    assert ts.composition.alphabets == (frozenset({"terminate"}),) * 2


def test_data_operations_are_not_in_alphabets() -> None:
    ts = system("var x = 0;\nA = a{x = 1;} -> b -> A;\nB = a -> c -> B;\nP = A || B;")
    assert ts.composition.alphabets == (frozenset({"b"}), frozenset({"a", "c"}))


def test_alphabet_override_and_state_dependent_events() -> None:
    text = "var x = 0;\nA = a.x -> A;\nB = a.0 -> B;\nP = A || B;"
    with pytest.raises(SemanticError, match="cannot be computed") as info:
        system(text)
    assert "#alphabet A" in info.value.diagnostics[0].notes[0]
    ts = system(text + "\n#alphabet A { i:{0..1}@a.i };")
    assert ts.composition.alphabets[0] == frozenset({"a.0", "a.1"})


def test_indexed_compositions_flatten_and_replicate() -> None:
    ts = system("Q(i) = a.i -> Q(i);\nV = v -> V;\nP = (||| i:{0..2} @ Q(i)) ||| (||| {2} @ V);")
    assert [i.name for i in ts.instances] == ["Q(0)", "Q(1)", "Q(2)", "V()[0]", "V()[1]"]
    assert isinstance(ts.composition, Interleave) and len(ts.composition.children) == 5
    assert len(ts.processes) == 4  # the two V copies share a process


def test_sequential_prefix_before_a_composition_hands_over() -> None:
    ts = system("var x = 0;\nInit = set{x = 1;} -> Skip;\nA = a -> A;\nB = b -> B;\n"
                "P = Init; (A ||| B);")
    init = ts.process("Init()")
    (edge,) = init.edges
    assert init.locations[edge.target].terminal  # no separate terminate step
    gate = edge.effect[-1]
    assert isinstance(gate, Assign) and plain(gate.value) == Const(True)
    a = ts.process("A()")
    assert plain(a.edges[0].guard) == plain(gate.target)


def test_properties_targets_and_numbers() -> None:
    model = load_csp(str(MODELS / "token_ring.csp"))
    (ts,) = model.systems
    assert [p.number for p in ts.properties] == [1, 2, 3, 4]
    assert [p.kind for p in ts.properties] == [
        PropertyKind.DEADLOCK_FREE, PropertyKind.REACHES, PropertyKind.LTL, PropertyKind.LTL]
    assert all(p.target == "Ring" for p in ts.properties)
    f = ts.properties[2].formula
    assert isinstance(f, LtlUnary) and f.op == "G"
    assert isinstance(f.operand, LtlBinary) and plain(f.operand.left) == LtlEvent("grab.0")


def test_one_system_per_distinct_target() -> None:
    model = load_csp("t.csp", "Q(i) = a.i -> Skip;\nR = Q(0) ||| Q(1);\n#assert Q(0) deadlockfree;\n"
                     "#assert R deadlockfree;\n#assert Q(0) nonterminating;\n"
                     "#define go true;\n#assert R() reaches go;\n")
    assert [s.name for s in model.systems] == ["Q(0)", "R"]
    assert [p.number for p in model.systems[0].properties] == [1, 3]
    assert [p.number for p in model.systems[1].properties] == [2, 4]
    assert [p.number for _, p in model.properties()] == [1, 2, 3, 4]


def test_reaches_with_min_and_ltl_state_atoms() -> None:
    model = load_csp("t.csp", "var x = 0;\n#define big x > 1;\nP = a{x++} -> P;\n"
                     "#assert P reaches big with min(x * 2);\n#assert P |= <> [] big;\n")
    reach, ltl = model.systems[0].properties
    assert reach.optimise is not None and reach.optimise[0] == "min"
    assert isinstance(ltl.formula, LtlUnary)
    inner = ltl.formula.operand
    assert isinstance(inner, LtlUnary) and isinstance(inner.operand, LtlState)
    assert inner.operand.text == "big"


def test_guarded_receive_condition() -> None:
    ts = system("channel c 1;\nP = c?[v > 2]v.1 -> got.v -> P;")
    recv = ts.processes[0].edges[0].comm
    assert isinstance(recv, Receive) and recv.condition is not None
    assert isinstance(recv.args[1], RecvMatch) and plain(recv.args[1].value) == Const(1)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("P = a -> (b -> Skip || c -> Skip); P;", "nested under recursion"),
        ("var x = 0;\nP = (a.x -> Skip) \\ {a.0};", "hiding event 'a'"),
        ("channel c 1;\nP = (c!1 -> Skip) \\ {c};", "hiding channel events"),
        ("channel c 1;\nA = c?x -> e.x -> A;\nB = c!1 -> B;\nP = (A || B) \\ {e.1};",
         "hiding event 'e' whose components"),
        ("A = a -> A;\nP = a -> ((A || A) \\ {a});", "nested under"),
        ('#import "MyLibrary";\nP = Skip;', "#import of the C# library 'MyLibrary'"),
        ('#import "PAT.Lib.Set";\nvar<Set> s;\nP = a{s.Shuffle()} -> Skip;', "method 'Shuffle'"),
        ("var x = *;\nP = Skip;", "wildcard"),
        ("P(x) = a -> Skip;\nQ = P([1, 2]);", "an array literal as a process argument"),
        ("var x = 0;\nP = a{x = call(f, 1);} -> Skip;", "call"),
    ],
)
def test_unsupported_constructs(text: str, fragment: str) -> None:
    with pytest.raises(UnsupportedError, match=fragment):
        system(text)


def test_all_test_models_lower_to_valid_ir() -> None:
    validate = importlib.import_module("bridge.ir.validate")
    for path in sorted(MODELS.glob("*.csp")):
        model = load_csp(str(path))
        assert model.systems, path
        for ts in model.systems:
            assert ts.processes and ts.instances
        assert validate.validate_model_file(model) == [], path


def test_event_structure_is_an_ir_event() -> None:
    ts = system("#define N 3;\nQ(i) = rule.i.(i + 2)%N -> Q(i);\nP = Q(2);")
    assert plain(ts.processes[0].edges[0].event) == Event("rule", (Const(2), Const(1)))


def test_hiding_turns_constant_events_into_tau() -> None:
    ts = system("Q(i) = a.i -> b -> Q(i);\nP = (Q(0) \\ {a.0, b});")
    assert events(ts.processes[0]) == ["tau", "tau"]
    ts = system("P = (a -> b -> P) \\ {a};")  # recursion through hiding stays finite
    assert events(ts.processes[0]) == ["tau", "b"]


def test_deeply_nested_models_lower_without_recursion_errors() -> None:
    chain = " -> ".join(f"a{i}" for i in range(2000))
    ts = system(f"P = {chain} -> P;")
    assert len(ts.processes[0].locations) == 2000
    ts = system("var x = 0;\nP = a{x = " + " + ".join(["x"] * 3000) + ";} -> P;")
    assert isinstance(ts.processes[0].edges[0].effect[0].value, Binary)


def test_hiding_above_interleaving_is_pushed_into_the_operands() -> None:
    ts = system("A(i) = a.i -> b -> A(i);\nP = (||| i:{0..1} @ A(i)) \\ {a.0, b};")
    assert [events(p) for p in ts.processes] == [["tau", "tau"], ["a.1", "tau"]]


def test_alphabet_of_an_undeclared_process() -> None:
    with pytest.raises(SemanticError, match="undeclared process 'Nod'"):
        system("Node = a -> Node;\nP = Node;\n#alphabet Nod { a };")


def test_indexed_boolean_expressions_expand_over_the_index() -> None:
    ts = system("#define N 3;\nvar s[N];\n#define allpos (&& i:{0..N-1}@(s[i] > 0));\n"
                "#define any2 (|| i:{0..N-1}@(s[i] == 2));\nP = [any2] a -> P;")
    props = {p.name: p.expr for p in ts.propositions}
    conj = props["allpos"]
    assert isinstance(conj, Binary) and conj.op == "&&" and isinstance(conj.left, Binary)
    indices = []
    stack = [conj]
    while stack:
        x = stack.pop()
        if isinstance(x, Binary) and x.op == "&&":
            stack.extend((x.left, x.right))
        else:
            indices.append(plain(x.left.index))
    assert sorted(c.value for c in indices) == [0, 1, 2]
    assert ts.processes[0].edges[0].guard is not None


def test_locals_of_different_types_get_different_names() -> None:
    ts = system("channel ch 1;\nA(p) = a.p -> ch?v -> B(v == 1);\n"
                "B(p) = [p] ch!1 -> ch?w -> A(w);\nP = ch!0 -> A(0);")
    (proc,) = ts.processes
    types = {v.name: v.type for v in proc.locals if v.name.startswith("p")}
    assert {type(t) for t in types.values()} == {BoolType, IntType}, types


def test_block_macros_may_read_parameters() -> None:
    ts = system("var x = 0;\n#define bump { x = x + i; };\nQ(i) = a -> b{bump;} -> Q(i);\nP = Q(2);")
    (proc,) = ts.processes
    effect = proc.edges[1].effect
    assert plain(effect) == (Assign(Var("x", "global"), Binary("+", Var("x", "global"),
                                                              Const(2))),)
