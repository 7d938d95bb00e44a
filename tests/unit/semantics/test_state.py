"""The state-vector layout (state.py): order of slots, arrays, channel buffers, hidden
variables kept out of the visited key, dynamic layouts."""

from __future__ import annotations

from bridge.ir import BYTE, Channel, Instance, PropertyKind, SourceLanguage
from bridge.semantics.explore import check_property, explore
from bridge.semantics.state import compute_layout
from bridge.semantics.statespace import build_state_space
from tests.irbuild import G, add, assign, counter, edge, int_var, ix, op, process, prop, system


def test_layout_order_globals_channels_instances():
    p = process("P", [edge(0, 0)], locals_=[int_var("a", length=2), int_var("b")])
    ts = system([p], [int_var("x"), int_var("arr", length=3), int_var("h", hidden=True)],
                [Channel("q", 2, (BYTE, BYTE)), Channel("r", 0, (BYTE,))],
                instances=[Instance("P", (), "P0"), Instance("P", (), "P1")])
    lay = compute_layout(ts)
    assert lay.hidden_count == 1 and lay.globals["h"].offset == 0
    assert lay.layout_slot is None  # IR without Run: static
    assert lay.globals["x"].offset == 1 and lay.globals["arr"].offset == 2
    assert lay.channels[0].offset == 5 and lay.channels[0].id == 1
    assert lay.channels[1].id == 2 and lay.channels[1].capacity == 0
    assert lay.static_size == 5 + 1 + 2 * 2
    assert lay.initial_bases == (10, 14)  # location + a[2] + b
    space = build_state_space(ts)
    s = space.initial_states()[0]
    assert len(s) == 18
    names = list(space.valuation(s))
    assert names[:5] == ["x", "arr[0]", "arr[1]", "arr[2]", "h"]
    assert "q" in names and "P1.a[1]" in names and "P0@" in names


def test_promela_has_a_layout_slot():
    p = process("P", [edge(0, 1)], n_locations=2, terminal=[1])
    lay = compute_layout(system([p], [int_var("x")], language=SourceLanguage.PROMELA))
    assert lay.dynamic and lay.layout_slot == 0 and lay.globals["x"].offset == 1


def test_multidimensional_arrays_flatten_row_major():
    from bridge.ir import UNBOUNDED, ArrayType, Variable

    grid = Variable("g", ArrayType(ArrayType(UNBOUNDED, 3), 2))
    p = process("P", [edge(0, 1, effect=[assign(ix(ix("g", 1), 2), 7)])], n_locations=2)
    space = build_state_space(system([p], [grid]))
    (_, n), = space.successors(space.initial_states()[0])
    assert n[5] == 7 and space.valuation(n)["g[1][2]"] == 7


def test_hidden_variables_do_not_distinguish_states():
    """A counter mod 3 that also increments a hidden tally: 3 states, not unbounded."""
    p = process("P", [edge(0, 0, effect=[assign("x", op("mod", add(G("x"), 1), 3)),
                                         assign("h", add(G("h"), 1))])])
    ts = system([p], [int_var("x"), int_var("h", hidden=True)])
    assert explore(ts).states == 3
    assert check_property(ts, prop(PropertyKind.DEADLOCK_FREE)).outcome.value == "holds"


def test_counter_layout_matches_variables():
    space = build_state_space(system([counter("C", "x", 2)], [int_var("x", init=1)]))
    assert space.initial_states()[0] == (1, 0)


def test_inlined_and_generic_successors_agree():
    """Dynamic layouts switch to an inlined successor function once hot: both paths
    must give the same steps and states (Promela model with run and atomic)."""
    from bridge.ir import Builtin, Run
    from tests.irbuild import L, eq, lt

    worker = process("W", [edge(0, 1, guard=lt(G("x"), 3), effect=[assign("x", add(G("x"), 1))]),
                           edge(1, 0, effect=[assign("y", op("mod", add(G("y"), L("k")), 4))])],
                     n_locations=2, atomic=[1], parameters=["k"], locals_=[int_var("k")])
    init = process("init", [
        edge(0, 0, guard=lt(L("i"), 2), effect=[Run("W", (add(L("i"), 1),)),
                                                 assign(L("i"), add(L("i"), 1))]),
        edge(0, 1, guard=eq(Builtin("_nr_pr"), 3)),
    ], n_locations=2, terminal=[1], locals_=[int_var("i")])
    ts = system([init, worker], [int_var("x"), int_var("y")],
                instances=[Instance("init", (), "init")], language=SourceLanguage.PROMELA)
    results = []
    for after in (0, 10**9):
        space = build_state_space(ts)
        space.inline_after = after
        seen = {}
        frontier = list(space.initial_states())
        while frontier:
            s = frontier.pop()
            if s in seen:
                continue
            seen[s] = [(st.action, n) for st, n in space.successors(s)]
            frontier.extend(n for _, n in seen[s])
        results.append(seen)
    assert results[0] == results[1] and len(results[0]) > 10
