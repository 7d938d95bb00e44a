"""The refinement search on explicit graphs, each verdict derived by hand (Roscoe,
*Understanding Concurrent Systems*, chapters 1, 6 and 16)."""

from __future__ import annotations

from bridge.ir import RefinementModel
from bridge.refinement import check_refinement
from tests.unit.refinement.graphs import ExplicitGraph

T, F, FD = RefinementModel.TRACES, RefinementModel.FAILURES, RefinementModel.FAILURES_DIVERGENCE

# a -> (b -> STOP [] c -> STOP)
EXTERNAL = {0: [("a", 1)], 1: [("b", 2), ("c", 3)]}
# a -> (b -> STOP |~| c -> STOP): the choice is two tau moves
INTERNAL = {0: [("a", 1)], 1: [(None, 2), (None, 3)], 2: [("b", 4)], 3: [("c", 5)]}
# a -> STOP
A_STOP = {0: [("a", 1)]}
# a -> DIV (a tau self-loop after a)
A_DIV = {0: [("a", 1)], 1: [(None, 1)]}


def check(impl: dict, spec: dict, model: RefinementModel):
    return check_refinement(ExplicitGraph(impl), ExplicitGraph(spec), model)


def test_traces_equal_for_external_and_internal_choice() -> None:
    """Both have traces {<>, <a>, <a,b>, <a,c>}: each refines the other in T."""
    assert check(EXTERNAL, INTERNAL, T).counterexample is None
    assert check(INTERNAL, EXTERNAL, T).counterexample is None


def test_trace_violation_names_the_event_and_the_shortest_path() -> None:
    """EXTERNAL has <a,b>, which a -> STOP has not: the counterexample is a then b."""
    found = check(EXTERNAL, A_STOP, T).counterexample
    assert found is not None and found.kind == "trace"
    assert found.event == "b"
    assert [e for e, _ in found.path] == ["a", "b"]


def test_failures_tell_internal_from_external_choice() -> None:
    """After <a>, INTERNAL can refuse {b} (it resolved to c) or {c}; EXTERNAL refuses
    neither. So EXTERNAL [F= INTERNAL holds (EXTERNAL's failures after <a>: refusals
    not containing b or c, which INTERNAL has too), INTERNAL [F= EXTERNAL fails."""
    assert check(EXTERNAL, INTERNAL, F).counterexample is None
    found = check(INTERNAL, EXTERNAL, F).counterexample
    assert found is not None and found.kind == "failure"
    # breadth first: the tau to node 2 (offering b only) comes first; it refuses c
    assert [e for e, _ in found.path] == ["a", None]
    assert found.offered == ("b",)
    assert found.refusal == ("c",)
    assert found.acceptances == (("b", "c"),)


def test_deadlock_is_a_failure_not_a_trace() -> None:
    """a -> STOP and a -> (b -> STOP) have the traces of a prefix-closed set: T holds
    one way; in F, a -> STOP refuses b after <a>, which a -> b -> STOP cannot."""
    a_b = {0: [("a", 1)], 1: [("b", 2)]}
    assert check(A_STOP, a_b, T).counterexample is None
    found = check(A_STOP, a_b, F).counterexample
    assert found is not None and found.kind == "failure" and found.refusal == ("b",)


def test_divergence_counts_only_in_fd() -> None:
    """a -> DIV has the traces of a -> STOP and no stable state after <a> (so no
    failure there): it refines a -> STOP in T and F; in FD its divergence after <a>
    is not allowed by a -> STOP, and the loop is the tau self-loop."""
    assert check(A_DIV, A_STOP, T).counterexample is None
    assert check(A_DIV, A_STOP, F).counterexample is None
    found = check(A_DIV, A_STOP, FD).counterexample
    assert found is not None and found.kind == "divergence"
    assert [e for e, _ in found.path] == ["a"]
    assert [e for e, _ in found.loop] == [None]


def test_divergent_specification_allows_everything_in_fd() -> None:
    """DIV is the bottom of FD: every process refines it, even one with more traces;
    in T, DIV (traces {<>}) is refined by no process with a visible event."""
    div = {0: [(None, 0)]}
    assert check(EXTERNAL, div, FD).counterexample is None
    assert check(EXTERNAL, div, T).counterexample is not None


def test_specification_without_stable_state_refuses_nothing() -> None:
    """a -> DIV as specification in F: after <a> it has no stable state, so the
    stable a -> STOP fails there (its refusal of {} is not a failure of the spec)."""
    found = check(A_STOP, A_DIV, F).counterexample
    assert found is not None and found.kind == "failure"
    assert found.acceptances == () and found.refusal == ()


def test_search_stops_at_the_state_limit() -> None:
    """A counter 0 -> 1 -> 2 ... on event a against a one-state spec doing a: every
    pair is new, so a limit of 5 pairs stops the search."""
    counter = {i: [("a", i + 1)] for i in range(100)}
    result = check_refinement(ExplicitGraph(counter), ExplicitGraph({0: [("a", 0)]}), T,
                              max_states=5)
    assert result.limit == "state limit 5 reached" and result.counterexample is None


def test_the_specification_is_explored_only_where_the_product_goes() -> None:
    """The normal form is built lazily: a specification with a large part reachable
    only after event z is not expanded there when the implementation never does z."""
    spec_edges = {0: [("a", 0), ("z", 1)], **{i: [("b", i + 1)] for i in range(1, 50)}}
    spec = ExplicitGraph(spec_edges)
    result = check_refinement(ExplicitGraph({0: [("a", 0)]}), spec, T)
    assert result.counterexample is None
    assert set(spec.expanded) == {0}
