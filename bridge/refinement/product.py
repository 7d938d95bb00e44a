"""Return whether one labelled graph refines another: the product search.

Roscoe, *Understanding Concurrent Systems* (2010), section 16.1 (FDR's refinement
algorithm), which PAT 3.5 follows for ``refines``, ``refines <F>`` and ``refines <FD>``
(cspsharp.md section 6): the specification is normalised (``normalise.py``) and the
pairs (implementation state, normal-form node) reachable together are searched breadth
first, so the first violation found has a shortest trace of implementation moves.
In each pair (s, N):

* traces (T): every visible move ``s -a-> s'`` needs ``N`` to have an ``a``
  successor; tau moves keep ``N``;
* stable failures (F): also, when ``s`` is stable (no tau move), the events it offers
  must include one acceptance of ``N`` (the offer of a stable specification state),
  else the implementation refuses a set the specification cannot refuse after the same
  trace; a node with no stable state has no acceptance, so any stable ``s`` fails;
* failures-divergence (FD): a divergent ``N`` allows everything from there on
  (divergence is chaos), so the pair is not expanded; otherwise ``s`` on a tau cycle is
  a divergence the specification does not have, and the F checks apply.

Visible means every event but tau, including ``terminate`` (PAT's tick).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from bridge.diagnostics import ModelRuntimeError
from bridge.ir import RefinementModel
from bridge.refinement.graph import CachedGraph, LabelledGraph, Node, TauCycles, TimeUp
from bridge.refinement.normalise import NodeId, NormalisedSpec


@dataclass(frozen=True, slots=True)
class Counterexample:
    """Why the implementation does not refine the specification.

    ``kind``: ``trace``, ``failure``, ``divergence`` or ``error`` (a model error met in
    ``side``). ``start``: the implementation's initial node; ``path``: the
    implementation's moves ``(payload, target)`` from there (for ``trace``, the last
    move is the event the specification cannot do). ``refusal``: what the
    implementation refuses that the specification cannot; ``offered``: what it offers
    there; ``acceptances``: what the specification must offer (one of). ``loop``: the
    tau cycle of a divergence, from the end of ``path`` back to it.
    """

    kind: str
    start: Node
    path: tuple[tuple[Any, Node], ...]
    event: str | None = None
    refusal: tuple[str, ...] = ()
    offered: tuple[str, ...] = ()
    acceptances: tuple[tuple[str, ...], ...] = ()
    loop: tuple[tuple[Any, Node], ...] = ()
    error: ModelRuntimeError | None = None
    side: str = "implementation"


@dataclass(slots=True)
class RefinementResult:
    """The search's answer: a counterexample, or None (refinement holds) unless
    ``limit`` says why the search stopped first; with counts of what it explored."""

    counterexample: Counterexample | None = None
    limit: str | None = None
    pairs: int = 0
    transitions: int = 0
    depth: int = 0
    spec_nodes: int = 0
    impl_states: int = 0
    spec_states: int = 0


class _Stop(Exception):
    def __init__(self, counterexample: Counterexample | None = None, limit: str | None = None
                 ) -> None:
        self.counterexample = counterexample
        self.limit = limit
        super().__init__(limit or "counterexample")


def check_refinement(impl: LabelledGraph, spec: LabelledGraph, model: RefinementModel,
                     max_states: int | None = None, timeout: float | None = None
                     ) -> RefinementResult:
    """Return the result of checking that ``impl`` refines ``spec`` in ``model`` (see
    the module docstring); ``max_states`` bounds the product pairs, ``timeout`` the
    seconds (either stops the search with ``limit`` set)."""
    deadline = None if timeout is None else time.perf_counter() + timeout
    search = _ProductSearch(CachedGraph(impl, deadline), CachedGraph(spec, deadline), model)
    try:
        search.run(max_states, timeout)
    except _Stop as stop:
        search.result.counterexample = stop.counterexample
        search.result.limit = stop.limit
    except TimeUp:  # in the middle of a tau closure or a node's moves
        search.result.limit = f"time limit {timeout}s reached"
    result = search.result
    result.pairs = len(search.pairs)
    result.spec_nodes = len(search.normal.nodes)
    result.impl_states = search.impl.size
    result.spec_states = search.spec.size
    return result


class _ProductSearch:
    def __init__(self, impl: CachedGraph, spec: CachedGraph, model: RefinementModel) -> None:
        self.impl = impl
        self.spec = spec
        self.model = model
        self.impl_taus = TauCycles(impl)
        self.normal = NormalisedSpec(spec, TauCycles(spec))
        self.pairs: list[tuple[Node, NodeId]] = []
        self.index: dict[tuple[Node, NodeId], int] = {}
        self.parent: list[int] = []
        self.via: list[tuple[Any, Node] | None] = []
        self.result = RefinementResult()

    def add(self, pair: tuple[Node, NodeId], parent: int, via: tuple[Any, Node] | None) -> None:
        if pair not in self.index:
            self.index[pair] = len(self.pairs)
            self.pairs.append(pair)
            self.parent.append(parent)
            self.via.append(via)

    def path_to(self, i: int) -> tuple[Node, tuple[tuple[Any, Node], ...]]:
        path = []
        while self.parent[i] >= 0:
            via = self.via[i]
            assert via is not None
            path.append(via)
            i = self.parent[i]
        path.reverse()
        return self.pairs[i][0], tuple(path)

    def fail(self, i: int, kind: str, extra: tuple[tuple[Any, Node], ...] = (), **kw: Any
             ) -> _Stop:
        start, path = self.path_to(i)
        return _Stop(Counterexample(kind, start, path + extra, **kw))

    def spec_call(self, i: int, call: Any, *args: Any) -> Any:
        try:
            return call(*args)
        except ModelRuntimeError as error:
            raise self.fail(i, "error", error=error, side="specification") from None

    def run(self, max_states: int | None, timeout: float | None) -> None:
        start = time.perf_counter()
        divergence = self.model is RefinementModel.FAILURES_DIVERGENCE
        failures = self.model is not RefinementModel.TRACES
        try:
            roots = self.impl.initial()
        except ModelRuntimeError as error:
            raise _Stop(Counterexample("error", None, (), error=error)) from None
        first = self.spec_call(0, self.normal.initial) if roots else 0
        for root in roots:
            self.add((root, first), -1, None)
        head = 0
        level_end = len(self.pairs)
        next_check = 1024
        while head < len(self.pairs):
            if head == level_end:
                self.result.depth += 1
                level_end = len(self.pairs)
            state, node = self.pairs[head]
            if divergence and self.spec_call(head, self.normal.divergent, node):
                head += 1
                continue  # the specification diverges: anything goes from here
            try:
                moves = self.impl.moves(state)
                on_cycle = divergence and self.impl_taus.on_cycle(state)
            except ModelRuntimeError as error:
                raise self.fail(head, "error", error=error) from None
            self.result.transitions += len(moves)
            if on_cycle:
                loop = tuple(self.impl_taus.cycle_from(state))
                raise self.fail(head, "divergence", loop=loop)
            if failures and all(e is not None for e, _, _ in moves):
                offered = frozenset(e for e, _, _ in moves if e is not None)
                accepts = self.spec_call(head, self.normal.acceptances, node)
                if not any(a <= offered for a in accepts):
                    refused = sorted(set().union(*accepts) - offered) if accepts else []
                    raise self.fail(head, "failure", refusal=tuple(refused),
                                    offered=tuple(sorted(offered)),
                                    acceptances=tuple(tuple(sorted(a)) for a in accepts))
            for event, target, payload in moves:
                if event is None:
                    self.add((target, node), head, (payload, target))
                    continue
                after = self.spec_call(head, self.normal.after, node, event)
                if after is None:
                    raise self.fail(head, "trace", ((payload, target),), event=event)
                self.add((target, after), head, (payload, target))
            head += 1
            if max_states is not None and len(self.pairs) > max_states:
                raise _Stop(limit=f"state limit {max_states} reached")
            if head >= next_check:
                next_check = head + 1024
                if timeout is not None and time.perf_counter() - start > timeout:
                    raise _Stop(limit=f"time limit {timeout}s reached")
