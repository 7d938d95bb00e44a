"""CSP# refinement end to end against the definitions, on small random processes.

hypothesis writes two small CSP# processes (prefix, external and internal choice,
hiding, Skip, Stop, recursion after a prefix); bridge loads them and checks
``Impl() refines [<F>|<FD>] Spec()``. The oracle (``test_oracle.Definitions``) reads
each process's labelled transition system as the engine explores it, in full, and
applies the definitions of the three models to every trace up to ``DEPTH``: what this
adds to ``test_oracle.py`` is the way from the model to the search (events, τ from
internal choice and hiding, ``terminate`` visible, state keys).
"""

from __future__ import annotations

from itertools import product as cartesian

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge import api
from bridge.frontends.csp import load_csp
from bridge.ir import Outcome, RefinementModel
from bridge.semantics.statespace import build_state_space
from tests.unit.refinement.test_oracle import Definitions, violated_at

EVENTS = ("a", "b")
DEPTH = 4
MODELS = {RefinementModel.TRACES: "", RefinementModel.FAILURES: " <F>",
          RefinementModel.FAILURES_DIVERGENCE: " <FD>"}


def terms(name: str) -> st.SearchStrategy[str]:
    leaves = st.sampled_from(["Stop", "Skip", f"a -> {name}()", f"b -> {name}()"])
    return st.recursive(leaves, lambda inner: st.one_of(
        st.builds(lambda e, t: f"{e} -> {t}", st.sampled_from(EVENTS), inner),
        st.builds(lambda s, t: f"({s} [] {t})", inner, inner),
        st.builds(lambda s, t: f"({s} <> {t})", inner, inner),
        st.builds(lambda t: f"(({t}) \\ {{a}})", inner),
    ), max_leaves=4)


def explicit(system) -> dict[int, list[tuple[str | None, int]]]:
    """Return the system's whole transition system read from the engine's own
    successors (not through the checker's adapter), states numbered from 0."""
    space = build_state_space(system)
    (root,) = space.initial_states()
    number = {space.state_key(root): 0}
    edges: dict[int, list[tuple[str | None, int]]] = {}
    todo = [root]
    while todo:
        state = todo.pop()
        out = []
        for step, target in space.successors(state):
            key = space.state_key(target)
            if key not in number:
                number[key] = len(number)
                todo.append(target)
            out.append((step.event, number[key]))
        edges[number[space.state_key(state)]] = out
    return edges


def oracle_violates(impl: dict, spec: dict, model: RefinementModel) -> bool:
    i, s = Definitions(impl), Definitions(spec)
    events = sorted({e for out in (*impl.values(), *spec.values()) for e, _ in out
                     if e is not None})
    return any(violated_at(i, s, model, trace)
               for n in range(DEPTH + 1) for trace in cartesian(events, repeat=n))


@settings(max_examples=150, deadline=None)
@given(terms("Impl"), terms("Spec"), st.sampled_from(list(RefinementModel)))
def test_bridge_agrees_with_the_definitions(impl: str, spec: str,
                                            model: RefinementModel) -> None:
    text = (f"Impl() = {impl};\nSpec() = {spec};\n"
            f"#assert Impl() refines{MODELS[model]} Spec();\n")
    loaded = load_csp("t.csp", text)
    (system, prop), = loaded.properties()
    (verdict,) = api.check(loaded)
    assert verdict.outcome is not Outcome.UNKNOWN
    expected = oracle_violates(explicit(system), explicit(prop.spec), model)
    if expected:
        assert verdict.outcome is Outcome.VIOLATED, text
    elif verdict.outcome is Outcome.VIOLATED:
        # a violation deeper than the oracle looks: its visible trace must be longer
        shown = [e for step in verdict.trace.steps if (e := step.event) is not None]
        assert len(shown) > DEPTH, (text, verdict)
