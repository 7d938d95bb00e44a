"""Return the verdict of a CSP# refinement assertion on the IR's state spaces.

``#assert Impl refines Spec`` (traces), ``refines <F>`` (stable failures) and
``refines <FD>`` (failures-divergence), cspsharp.md section 6: the implementation is
the property's system, the specification ``Property.spec`` (each explored from the
initial valuation, as PAT builds both processes). The search is ``product.py``'s; this
module wraps the engine's ``CompiledStateSpace`` as a ``LabelledGraph`` (a state is
known by its ``state_key``: hidden variables are not part of it, as in every other
check) and turns a counterexample into a ``Verdict`` with the implementation's
shortest trace (tau steps included), the refused events of a failure, and a lasso for
a divergence.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

from bridge.diagnostics import BridgeError, ConfigurationError, ModelRuntimeError
from bridge.ir import (
    Lasso,
    Outcome,
    Property,
    PropertyKind,
    RefinementModel,
    Statistics,
    TransitionSystem,
    Verdict,
)
from bridge.refinement.graph import CachedGraph, Move, Node, TauCycles, TimeUp
from bridge.refinement.product import Counterexample, RefinementResult, check_refinement
from bridge.semantics.statespace import CompiledStateSpace, build_state_space
from bridge.semantics.successors import StateVector
from bridge.semantics.trace import make_steps, make_trace

MODEL_NAMES = {
    RefinementModel.TRACES: "traces",
    RefinementModel.FAILURES: "stable failures",
    RefinementModel.FAILURES_DIVERGENCE: "failures-divergence",
}


class SpaceGraph:
    """A ``CompiledStateSpace`` as a ``LabelledGraph`` over state keys (the first
    state met with a key stands for all of them, as in the explorer)."""

    def __init__(self, space: CompiledStateSpace) -> None:
        self.space = space
        self.state_of: dict[Node, StateVector] = {}

    def _key(self, state: StateVector) -> Node:
        key = self.space.state_key(state)
        self.state_of.setdefault(key, state)
        return key

    def initial(self) -> Sequence[Node]:
        """Return the keys of the initial states."""
        return [self._key(s) for s in self.space.initial_states()]

    def moves(self, node: Node) -> Sequence[Move]:
        """Return ``(event, key, step)`` for each step of the state (tau: event None)."""
        return [(step.event, self._key(n), step)
                for step, n in self.space.successors(self.state_of[node]) if not step.stutter]


def check_refines(system: TransitionSystem, prop: Property, max_states: int | None = None,
                  timeout: float | None = None) -> Verdict:
    """Return the verdict of the REFINES property ``prop`` of ``system`` (see the
    module docstring): HOLDS, VIOLATED with a counterexample, or UNKNOWN at a limit."""
    if prop.kind is not PropertyKind.REFINES or prop.spec is None:
        raise ConfigurationError(f"property '{prop.name}' is no refinement assertion")
    model = prop.refinement or RefinementModel.TRACES
    started = time.perf_counter()
    try:
        impl = SpaceGraph(build_state_space(system))
        spec = SpaceGraph(build_state_space(prop.spec))
    except ModelRuntimeError as err:  # an initial state is erroneous
        return Verdict(system.name, prop.name, Outcome.VIOLATED, err.kind, notes=(str(err),))
    result = check_refinement(impl, spec, model, max_states, timeout)
    statistics = _statistics(result, time.perf_counter() - started)
    base = Verdict(system.name, prop.name, Outcome.HOLDS, "", "none", statistics=statistics,
                   notes=(f"{MODEL_NAMES[model]} refinement of {prop.spec.name}",))
    if result.limit is not None:
        return _replace(base, outcome=Outcome.UNKNOWN, reason=result.limit)
    found = result.counterexample
    if found is None:
        return base
    return _violation(base, found, impl)


def normalisation_stopped(system: TransitionSystem, prop: Property, up: TimeUp,
                          timeout: float | None, seconds: float) -> Verdict:
    """Return the UNKNOWN verdict of a check whose time ran out while the specification
    was normalised whole for the compiled engine (``table.normalise_whole``), before
    the product search began."""
    model = prop.refinement or RefinementModel.TRACES
    name = prop.spec.name if prop.spec is not None else "?"
    return Verdict(system.name, prop.name, Outcome.UNKNOWN, f"time limit {timeout}s reached",
                   "none", statistics=Statistics(
                       states=0, transitions=0, seconds=seconds,
                       extra=(("specification_states", up.expanded),)),
                   notes=(f"{MODEL_NAMES[model]} refinement of {name}",
                          f"stopped normalising the specification after {up.expanded} of "
                          "its states"))


def _replace(verdict: Verdict, **changes: Any) -> Verdict:
    return dataclasses.replace(verdict, **changes)


def _statistics(result: RefinementResult, seconds: float) -> Statistics:
    return Statistics(
        states=result.pairs, transitions=result.transitions, seconds=seconds,
        depth=result.depth,
        extra=(("implementation_states", result.impl_states),
               ("specification_states", result.spec_states),
               ("normalised_specification_nodes", result.spec_nodes)),
    )


def _violation(base: Verdict, found: Counterexample, impl: SpaceGraph) -> Verdict:
    space = impl.space
    if found.start is None:  # the implementation's initial state is erroneous
        return _replace(base, outcome=Outcome.VIOLATED, reason=found.error.kind
                        if found.error else "error")
    first = impl.state_of[found.start]
    trace = make_trace(space, first, [(step, impl.state_of[k]) for step, k in found.path])
    events = [step.event for step, _ in found.path if step.event is not None]
    notes = list(base.notes)
    notes.append("visible trace: <" + " -> ".join(["init", *events]) + ">")
    reason = found.kind
    lasso = None
    refusal = None
    if found.kind == "trace":
        reason = f"the specification cannot do '{found.event}' after this trace"
    elif found.kind == "failure":
        refusal = found.refusal
        shown = "{" + ", ".join(found.refusal) + "}"
        reason = f"the implementation refuses {shown}, which the specification cannot"
        notes.append("the implementation offers only {" + ", ".join(found.offered) + "}")
        if found.acceptances:
            notes.append("each stable state of the specification after this trace offers "
                         "all of one of: " + "; ".join("{" + ", ".join(a) + "}"
                                                       for a in found.acceptances))
        else:
            notes.append("the specification has no stable state after this trace")
    elif found.kind == "divergence":
        reason = "the implementation diverges, the specification does not"
        end = impl.state_of[found.path[-1][1]] if found.path else first
        loop = make_steps(space, end, [(step, impl.state_of[k]) for step, k in found.loop])
        lasso = Lasso(trace, tuple(loop))
    elif found.error is not None:
        reason = found.error.kind
        notes.append(f"in the {found.side}: {found.error}")
    return _replace(base, outcome=Outcome.VIOLATED, reason=reason, trace=trace, lasso=lasso,
                    notes=tuple(notes), refusal=refusal)


class ReplayRefuted(BridgeError):
    """The compiled engine's counterexample is not one on the Python semantics (a bug
    of the C engine: the Python engine answers instead)."""


def verdict_from_c(system: TransitionSystem, prop: Property, table: Any, run: Any,
                   seconds: float) -> Verdict:
    """Return the verdict of the REFINES property ``prop`` from the C engine's answer
    ``run`` (``engine_c.RefineRun``: read by its attributes, that room being no
    import of this one) against the normal form ``table`` (``table.SpecTable``); a
    violation is checked again on the Python state the replayed path reaches, and
    turned into the same counterexample ``check_refines`` gives. Raises
    ``ReplayRefuted`` when the Python semantics does not confirm it."""
    model = prop.refinement or RefinementModel.TRACES
    statistics = Statistics(
        states=run.pairs, transitions=run.transitions, seconds=seconds, depth=run.depth,
        peak_memory_bytes=run.memory_bytes,
        extra=(("specification_states", table.spec_states),
               ("normalised_specification_nodes", len(table.after)), ("engine", "c"),
               ("states_per_second", round(run.pairs / run.seconds) if run.seconds > 0 else 0),
               ("compile_seconds", round(run.compile_seconds, 3))))
    base = Verdict(system.name, prop.name, Outcome.HOLDS, "", "none", statistics=statistics,
                   notes=(f"{MODEL_NAMES[model]} refinement of {prop.spec.name}"
                          if prop.spec else "refinement",))
    if run.limit is not None:
        return _replace(base, outcome=Outcome.UNKNOWN, reason=run.limit)
    if run.found is None:
        return base
    impl = SpaceGraph(run.space)
    found = _confirmed(impl, table, run, model)
    return _violation(base, found, impl)


def _confirmed(impl: SpaceGraph, table: Any, run: Any, model: RefinementModel
               ) -> Counterexample:
    """Return the counterexample of ``run`` checked on the Python semantics."""
    space = impl.space
    start = impl._key(space.initial_states()[0])
    path = tuple((step, impl._key(state)) for step, state in run.path)
    last = path[-1][1] if path else start
    node = run.nodes[-1]
    if model is RefinementModel.FAILURES_DIVERGENCE and table.divergent[node]:
        raise ReplayRefuted("the C engine reports a violation after a divergent "
                            "specification node")
    try:
        moves = impl.moves(last)
    except ModelRuntimeError as error:
        raise ReplayRefuted(f"the Python engine meets a model error there ({error})") \
            from None
    if run.found == "trace":
        for event, target, step in moves:
            if event is not None and table.next_node(node, event) is None:
                if event != run.event:
                    break
                return Counterexample("trace", start, path + ((step, target),), event=event)
        raise ReplayRefuted("the Python semantics does not confirm the C engine's trace "
                            f"violation on '{run.event}'")
    if run.found == "failure":
        offered = frozenset(e for e, _, _ in moves if e is not None)
        accepts = table.acceptances[node]
        if any(e is None for e, _, _ in moves) or any(a <= offered for a in accepts):
            raise ReplayRefuted("the Python semantics does not confirm the C engine's "
                                "failure")
        refused = sorted(set().union(*accepts) - offered) if accepts else []
        return Counterexample("failure", start, path, refusal=tuple(refused),
                              offered=tuple(sorted(offered)),
                              acceptances=tuple(tuple(sorted(a)) for a in accepts))
    graph = CachedGraph(impl)
    taus = TauCycles(graph)
    if not taus.on_cycle(last):
        raise ReplayRefuted("the Python semantics does not confirm the C engine's "
                            "divergence")
    return Counterexample("divergence", start, path, loop=tuple(taus.cycle_from(last)))
