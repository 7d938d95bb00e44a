"""Templates that differ only in their constant event names share one compiled code
(``families.template_families``, issue 13): the successors, in order, are those of the code
specialised per instance, and a thousand instances compile one family."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.diagnostics import ModelRuntimeError
from bridge.frontends.csp import load_csp
from bridge.ir import TransitionSystem
from bridge.semantics import families, statespace
from bridge.semantics.statespace import build_state_space
from bridge.semantics.unfolding import complete_unfolding

MODELS = Path(__file__).resolve().parents[2] / "models" / "csp"

# Events of the family members that are barriers ('go', shared with Coordinator) or
# hidden ('b.i' under '\'): those instances keep code of their own.
BARRIERS = """
var n = 0;
Node(i) = go -> a.i{n = (n + 1) % 3;} -> b.i -> Node(i);
Coordinator() = go -> Coordinator();
Sys() = Coordinator() || ((||| x:{0..3}@Node(x)) \\ {b.1, b.2});
#assert Sys() deadlockfree;
"""


def _walk(system: TransitionSystem, limit: int = 400) -> list[list[tuple]]:
    """Return the successor lists (steps and states, in order) of a breadth-first walk; a
    state whose expansion meets a model error gives the error's message instead."""
    space = build_state_space(system)
    (initial,) = space.initial_states()
    seen = {initial}
    queue = [initial]
    out = []
    while queue and len(seen) < limit:
        s = queue.pop(0)
        try:
            succ = space.successors(s)
        except ModelRuntimeError as error:  # e.g. Dequeue of an empty queue
            out.append([("error", str(error))])
            continue
        out.append([(st.event, st.action, st.processes, st.edges, st.tau, t) for st, t in succ])
        for _, t in succ:
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return out


def _systems() -> list[tuple[str, TransitionSystem]]:
    out = []
    for path in sorted(MODELS.glob("*.csp")):
        if path.name == "pat35_library_error.csp":
            continue  # its model error is met while building the initial state
        for system in load_csp(str(path), path.read_text()).systems:
            # a lazily unfolded process is completed first, as api.load_model does
            out.append((f"{path.stem}:{system.name}", complete_unfolding(system)))
    out.append(("barriers", load_csp("barriers.csp", BARRIERS).systems[0]))
    return out


@pytest.mark.parametrize(("name", "system"), _systems(), ids=lambda x: x if isinstance(x, str) else "")
def test_family_code_gives_the_successors_of_specialised_code(
    name: str, system: TransitionSystem, monkeypatch: pytest.MonkeyPatch
) -> None:
    specialised = _walk(system)
    monkeypatch.setattr(families, "FAMILY_MIN_INSTANCES", 1)  # every template a family
    assert _walk(system) == specialised


def _count_specialised(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Return the list the pids of instances given specialised code will be added to."""
    calls: list[int] = []
    original = statespace.CompiledStateSpace._specialised

    def counting(self, tpl_index, pid, base, consts):  # noqa: ANN001, ANN202
        calls.append(pid)
        return original(self, tpl_index, pid, base, consts)

    monkeypatch.setattr(statespace.CompiledStateSpace, "_specialised", counting)
    return calls


def test_barrier_and_hidden_events_keep_their_own_code(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(families, "FAMILY_MIN_INSTANCES", 1)
    calls = _count_specialised(monkeypatch)
    space = build_state_space(load_csp("barriers.csp", BARRIERS).systems[0])
    # Every Node synchronises on 'go' (specialised); the Coordinator too.
    assert sorted(calls) == [0, 1, 2, 3, 4]
    assert space.family_compilations == 0


def test_a_thousand_instances_compile_one_family(monkeypatch: pytest.MonkeyPatch) -> None:
    model = """#define N 1000;
var count = 0;
Node(i) = [count < 2] step.i{count = count + 1;} -> Back(i);
Back(j) = back.j{count = count - 1;} -> Node(j);
Sys = ||| x:{0..N - 1}@Node(x);
#assert Sys deadlockfree;
"""
    calls = _count_specialised(monkeypatch)
    system = load_csp("many.csp", model).systems[0]
    space = build_state_space(system)
    assert calls == []
    assert space.family_compilations == 1
    (initial,) = space.initial_states()
    succ = space.successors(initial)
    assert [st.event for st, _ in succ] == [f"step.{i}" for i in range(1000)]
    assert [st.edges for st, _ in succ] == [((i, 0),) for i in range(1000)]


# A parameter written into guards, effects and array indices (each instance lowered on
# its own, its literals its own): one family whose code reads the literals that differ
# from ``_FK<rep>[pid]``; V(2) reads bit[3], out of range, in that code as in its own.
LITERALS = """#define N 20;
var x = 0;
var bit[N];
W(j) = [x != j] a.j{x = j; bit[j] = 1 - bit[j];} -> W(j)
    [] [bit[(j + 1) % N] == 1 && x < N - 1] b.j{x = (j * 2 + 1) % N;} -> W(j);
V(j) = [x == j] c.j{x = (bit[j + N - 2] + j + 1) % 3;} -> V(j);
Sys() = (||| j:{0..N-1}@W(j)) ||| (||| j:{0..2}@V(j));
#assert Sys() deadlockfree;
"""


def test_literal_families_give_the_successors_of_specialised_code(
        monkeypatch: pytest.MonkeyPatch) -> None:
    system = load_csp("literals.csp", LITERALS).systems[0]
    specialised = _walk(system, 700)
    monkeypatch.setattr(families, "FAMILY_MIN_INSTANCES", 1)
    calls = _count_specialised(monkeypatch)
    assert _walk(system, 700) == specialised
    assert calls == []  # the W and V instances: two families, no code of their own
    assert any("out of range" in str(x) for x in specialised), "V(2)'s error is reached"


def test_literal_families_compile_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_specialised(monkeypatch)
    space = build_state_space(load_csp("literals.csp", LITERALS).systems[0])
    (initial,) = space.initial_states()
    space.successors(initial)
    assert calls == [20, 21, 22]  # the 3 V instances: fewer than FAMILY_MIN_INSTANCES
    assert space.family_compilations == 1
    assert "_FK" in space.source or any("_FK" in k for k in space._ns)


def test_a_literal_object_at_positions_that_differ_elsewhere_splits_the_family() -> None:
    # The front-end puts W(0)'s value of j, one Const, wherever j occurs; the shared
    # code finds it by identity, so a member whose literals differ at those positions
    # cannot be read through it (every member then gets code of its own).
    import dataclasses

    from bridge.ir import Assign, Const
    from bridge.semantics.families import family_constants, family_literal_columns

    system = load_csp("literals.csp", LITERALS).systems[0]
    w0, w1 = system.processes[0], system.processes[1]
    c0 = family_constants(w0)
    assert c0[0] is c0[1]  # x != j and x = j: one object
    columns, rows = family_literal_columns([w0, w1]) or ([], [])
    assert rows[1][columns.index(0)] == 1  # W(1)'s j, read through W(0)'s object
    edge = w1.edges[0]
    first = edge.effect[0]
    assert isinstance(first, Assign)
    odd = dataclasses.replace(edge, effect=(dataclasses.replace(first, value=Const(7)),
                                            *edge.effect[1:]))
    w1_odd = dataclasses.replace(w1, edges=(odd, *w1.edges[1:]))
    assert family_literal_columns([w0, w1_odd]) is None
