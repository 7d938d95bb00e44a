"""Control semantics: else, timeout, atomic, Run and SPIN's termination order, CSP
barriers and interleaving (model.py docstrings; promela-spin.md section 11;
cspsharp.md section 7)."""

from __future__ import annotations

from bridge.ir import (
    AssertStmt,
    Builtin,
    ElseGuard,
    Instance,
    Outcome,
    PropertyKind,
    Run,
    SourceLanguage,
)
from bridge.semantics.explore import check_property, explore
from bridge.semantics.statespace import build_state_space
from tests.irbuild import (
    C,
    G,
    L,
    add,
    assign,
    counter,
    edge,
    eq,
    int_var,
    interleave,
    op,
    parallel,
    process,
    prop,
    system,
)


def test_interleaved_counters_give_m_to_the_k_states():
    """k independent counters mod m, interleaved: m^k states, k * m^k transitions."""
    for k, m in ((2, 3), (3, 4)):
        procs = [counter(f"C{i}", f"x{i}", m) for i in range(k)]
        stats = explore(system(procs, [int_var(f"x{i}") for i in range(k)]))
        assert (stats.states, stats.transitions) == (m**k, k * m**k)


def test_else_is_taken_only_when_no_sibling_is_enabled():
    p = process("P", [edge(0, 1, guard=eq(G("x"), 1)), edge(0, 2, guard=ElseGuard())], n_locations=3)
    for x, target in ((0, 2), (1, 1)):
        space = build_state_space(system([p], [int_var("x", init=x)]))
        out = space.successors(space.initial_states()[0])
        assert [space.valuation(n)["P@"] for _, n in out] == [target]


def test_timeout_only_when_nothing_else_can_move():
    """P waits on timeout; Q can move once. Initial state: only Q moves (3 states)."""
    p = process("P", [edge(0, 1, guard=Builtin("timeout"))], n_locations=2, terminal=[1])
    q = process("Q", [edge(0, 1, effect=[assign("x", 1)])], n_locations=2, terminal=[1])
    space = build_state_space(system([p, q], [int_var("x")]))
    out = space.successors(space.initial_states()[0])
    assert [st.processes for st, _ in out] == [(1,)]
    (_, after_q), = out
    (step, _), = space.successors(after_q)
    assert step.processes == (0,)
    assert explore(space).states == 3


def test_atomic_hides_the_intermediate_value():
    """A: atomic { x = 1; x = 2 } (location 1 atomic); B: r = x + 10. B never sees 1."""
    a = process("A", [edge(0, 1, effect=[assign("x", 1)]), edge(1, 2, effect=[assign("x", 2)])],
                n_locations=3, atomic=[1], terminal=[2])
    b = process("B", [edge(0, 1, effect=[assign("r", add(G("x"), 10))])], n_locations=2,
                terminal=[1])
    ts = system([a, b], [int_var("x"), int_var("r")])
    assert check_property(ts, prop(PropertyKind.INVARIANT, op("!=", G("r"), 11))).outcome is Outcome.HOLDS
    plain = process("A", list(a.edges), n_locations=3, terminal=[2])
    ts2 = system([plain, b], [int_var("x"), int_var("r")])
    v = check_property(ts2, prop(PropertyKind.INVARIANT, op("!=", G("r"), 11)))
    assert v.outcome is Outcome.VIOLATED and len(v.trace.steps) == 2


def test_atomicity_is_lost_while_blocked():
    """promela-spin.md section 11: A = atomic { x = 1; (y == 1); x = 2 }, B = (x == 1) -> y = 1.
    A blocks inside its atomic sequence; B runs; A finishes: no deadlock."""
    a = process("A", [edge(0, 1, effect=[assign("x", 1)]), edge(1, 2, guard=eq(G("y"), 1)),
                      edge(2, 3, effect=[assign("x", 2)])],
                n_locations=4, atomic=[1, 2], terminal=[3])
    b = process("B", [edge(0, 1, guard=eq(G("x"), 1), effect=[assign("y", 1)])], n_locations=2,
                terminal=[1])
    ts = system([a, b], [int_var("x"), int_var("y")], language=SourceLanguage.PROMELA)
    v = check_property(ts, prop(PropertyKind.SAFETY))
    assert v.outcome is Outcome.HOLDS


def test_run_and_termination_order():
    """promela-spin.md section 11, second example: init runs Child (pid 1), Child sees
    _nr_pr == 2, init waits for _nr_pr == 1 (Child removed) and asserts it."""
    child = process("Child", [edge(0, 1, effect=[assign("seen", Builtin("_nr_pr"))])],
                    n_locations=2, terminal=[1])
    init = process(
        "init",
        [edge(0, 1, effect=[Run("Child", (), L("p"))]),
         edge(1, 2, effect=[AssertStmt(eq(L("p"), 1))]),
         edge(2, 3, guard=eq(Builtin("_nr_pr"), 1)),
         edge(3, 4, effect=[AssertStmt(eq(G("seen"), 2))])],
        n_locations=5, terminal=[4], locals_=[int_var("p")],
    )
    ts = system([init, child], [int_var("seen")], instances=[Instance("init", (), "init")],
                language=SourceLanguage.PROMELA)
    v = check_property(ts, prop(PropertyKind.SAFETY))
    assert v.outcome is Outcome.HOLDS, v
    space = build_state_space(ts)
    s = space.initial_states()[0]
    (_, s1), = space.successors(s)
    assert space.layout_of(s1).n == 2 and space.instance_name(1, s1) == "Child(1)"


def test_first_cannot_die_before_second():
    """First { skip }, Second { (_nr_pr == 1) }: an invalid end state (SPIN deadlock)."""
    first = process("First", [edge(0, 1)], n_locations=2, terminal=[1])
    second = process("Second", [edge(0, 1, guard=eq(Builtin("_nr_pr"), 1))], n_locations=2,
                     terminal=[1])
    ts = system([first, second], language=SourceLanguage.PROMELA)
    v = check_property(ts, prop(PropertyKind.SAFETY))
    assert v.outcome is Outcome.VIOLATED and v.reason == "invalid end state"
    assert len(v.trace.steps) == 1


def test_processes_die_youngest_first():
    """A = B = { skip } (Promela). States (A, B) with '-' for removed: (0,0) (1,0) (0,1)
    (1,1), B dies from (0,1) and (1,1) giving (0,-) (1,-), then A dies: () = 7 states.
    From (1,0) A cannot die (B is younger and alive)."""
    procs = [process(n, [edge(0, 1)], n_locations=2, terminal=[1]) for n in ("A", "B")]
    space = build_state_space(system(procs, language=SourceLanguage.PROMELA))
    stats = explore(space)
    assert (stats.states, stats.transitions) == (7, 8)
    s10 = next(n for st, n in space.successors(space.initial_states()[0]) if st.processes == (0,))
    assert [st.action for st, _ in space.successors(s10)] == [(1, 0)]
    assert check_property(space, prop(PropertyKind.SAFETY)).outcome is Outcome.HOLDS


def barrier_system():
    """P = a -> b -> P, Q = a -> c -> Q, alphabets {a, b} and {a, c}: 'a' is a barrier.

    States (P loc, Q loc): (0,0) -a-> (1,1); (1,1) -b-> (0,1), -c-> (1,0);
    (0,1) -c-> (0,0); (1,0) -b-> (0,0): 4 states, 5 transitions."""
    p = process("P", [edge(0, 1, event="a"), edge(1, 0, event="b")])
    q = process("Q", [edge(0, 1, event="a"), edge(1, 0, event="c")])
    comp = parallel([0, 1], [{"a", "b"}, {"a", "c"}])
    return system([p, q], composition=comp, language=SourceLanguage.CSP)


def test_barrier_synchronises_all_operands():
    space = build_state_space(barrier_system())
    (step, _), = space.successors(space.initial_states()[0])
    assert step.event == "a" and step.processes == (0, 1) and step.action == "a"
    stats = explore(space)
    assert (stats.states, stats.transitions) == (4, 5)


def test_events_with_a_program_interleave_even_if_named_like_a_barrier():
    p = process("P", [edge(0, 1, event="a", effect=[assign("x", 1)])], n_locations=2)
    q = process("Q", [edge(0, 1, event="a")], n_locations=2)
    comp = parallel([0, 1], [{"a"}, {"a"}])
    space = build_state_space(system([p, q], [int_var("x")], composition=comp,
                                     language=SourceLanguage.CSP))
    out = space.successors(space.initial_states()[0])
    # P's data operation interleaves; Q's pure 'a' waits for a partner that never offers it.
    assert [st.processes for st, _ in out] == [(0,)]


def test_nested_parallel_and_interleave():
    """(P ||| Q) || R over 'a': R's 'a' pairs with either P's or Q's 'a'."""
    mk = lambda n: process(n, [edge(0, 1, event="a")], n_locations=2)  # noqa: E731
    comp = parallel([interleave(0, 1), 2], [{"a"}, {"a"}])
    space = build_state_space(system([mk("P"), mk("Q"), mk("R")], composition=comp,
                                     language=SourceLanguage.CSP))
    out = space.successors(space.initial_states()[0])
    assert sorted(st.processes for st, _ in out) == [(0, 2), (1, 2)]


def test_barrier_with_evaluated_components():
    """Events 'g.(x)' with x a variable: synchronise only on equal evaluated names."""
    p = process("P", [edge(0, 1, event=None)], n_locations=2)
    from tests.irbuild import ev

    p = process("P", [edge(0, 1, event=ev("g", G("x")))], n_locations=2)
    q = process("Q", [edge(0, 1, event=ev("g", 1))], n_locations=2)
    comp = parallel([0, 1], [{"g.0", "g.1"}, {"g.1"}])
    for x, expected in ((1, [(0, 1)]), (0, [])):
        space = build_state_space(system([p, q], [int_var("x", init=x)], composition=comp,
                                         language=SourceLanguage.CSP))
        out = space.successors(space.initial_states()[0])
        # g.0 is only in P's alphabet: not shared, so P does it alone.
        got = [st.processes for st, _ in out]
        assert got == (expected or [(0,)])


def test_tau_steps_in_csp():
    p = process("P", [edge(0, 0, effect=[assign("x", op("mod", add(G("x"), 1), 2))])])
    space = build_state_space(system([p], [int_var("x")], language=SourceLanguage.CSP))
    (step, _), = space.successors(space.initial_states()[0])
    assert step.tau and step.event is None and step.action == ("tau", 0, 0)
    assert C(0) is not None


def test_barrier_edge_with_bookkeeping_effect_runs_both_effects():
    """A plain event (not a data operation) with an effect still synchronises; both
    participants' effects run in the joint step."""
    p = process("P", [edge(0, 1, event="a", effect=[assign("x", 1)], data_operation=False)],
                n_locations=2)
    q = process("Q", [edge(0, 1, event="a", effect=[assign("y", 2)], data_operation=False)],
                n_locations=2)
    comp = parallel([0, 1], [{"a"}, {"a"}])
    space = build_state_space(system([p, q], [int_var("x"), int_var("y")], composition=comp,
                                     language=SourceLanguage.CSP))
    (step, nxt), = space.successors(space.initial_states()[0])
    assert step.processes == (0, 1)
    val = space.valuation(nxt)
    assert (val["x"], val["y"], val["P@"], val["Q@"]) == (1, 2, 1, 1)


def test_promela_atomicity_is_regained_only_by_moving():
    """tests/models/promela/m33_atomic_regain.pml: A = atomic { x = 1; (y == 1); x = 2 },
    B = y = 1, C = (y == 1 && x == 1) -> assert(false). After B moves, A is executable
    again but does not hold atomicity until it moves, so C can fail (SPIN agrees)."""
    a = process("A", [edge(0, 1, effect=[assign("x", 1)]), edge(1, 2, guard=eq(G("y"), 1)),
                      edge(2, 3, effect=[assign("x", 2)])],
                n_locations=4, atomic=[1, 2], terminal=[3])
    b = process("B", [edge(0, 1, effect=[assign("y", 1)])], n_locations=2, terminal=[1])
    from bridge.ir import Binary

    c = process("C", [edge(0, 1, guard=Binary("&&", eq(G("y"), 1), eq(G("x"), 1)),
                           effect=[AssertStmt(C(False))])], n_locations=2, terminal=[1])
    ts = system([a, b, c], [int_var("x"), int_var("y")], language=SourceLanguage.PROMELA)
    v = check_property(ts, prop(PropertyKind.SAFETY))
    assert v.outcome is Outcome.VIOLATED and v.reason == "assertion violated"
    # Just after x = 1, A holds atomicity but is blocked at (y == 1): B may move.
    space = build_state_space(ts)
    s1 = next(n for st, n in space.successors(space.initial_states()[0]) if st.processes == (0,))
    assert [st.processes for st, _ in space.successors(s1)] == [(1,)]  # A blocked: B only


def test_sync_vectors_and_runtime_combiner_agree(monkeypatch):
    """Dining philosophers (4) with precomputed synchronisation vectors and with the
    runtime combiner only: same states and transitions."""
    import importlib.util
    from pathlib import Path

    import bridge.semantics.statespace as statespace

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "explore.py"
    spec = importlib.util.spec_from_file_location("bench_explore", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    counts = []
    for limit in (statespace.MAX_SYNC_VECTORS, -1):
        monkeypatch.setattr(statespace, "MAX_SYNC_VECTORS", limit)
        space = build_state_space(bench.dining(4))
        assert bool(space._vectors) == (limit >= 0)
        stats = explore(space)
        counts.append((stats.states, stats.transitions))
    assert counts[0] == counts[1] == (118, 300)
