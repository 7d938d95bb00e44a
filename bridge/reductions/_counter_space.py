"""The abstract transition system of the counter abstraction (paper 002 Definitions
6-8): abstract states (globals, other instances, counts per family local state, ``ω``
above the cutoff), their successors and must-enabledness. Part of
``bridge.reductions.counter``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bridge.diagnostics import ConfigurationError, UnsupportedError
from bridge.ir import (
    ArrayType,
    Edge,
    Process,
    Var,
    Variable,
)
from bridge.reductions._compile import Fallback, Fire, compile_edge
from bridge.reductions._counter_model import (
    AbstractState,
    CounterModel,
    _rendered_event,
)
from bridge.reductions._interp import OMEGA, UNKNOWN, Env, evaluate, execute, saturate
from bridge.reductions.dependencies import _event_may_match, event_name

# ---------------------------------------------------------------------------------
# The abstract transition system


@dataclass(frozen=True, slots=True)
class AbstractStep:
    """An abstract transition: the units that leave (family local-state ids ``("L", i)``
    or non-family instances ``("P", k)``), its event (the name the concrete step renders,
    ``base.*`` when the abstraction erased its components, None for tau), and whether it
    is exact (no undecided guard, no ω in source or target)."""

    leaves: tuple[tuple[str, int], ...]
    event: str | None
    exact: bool
    enters: tuple[int, ...] = ()  # family local states entered


class CounterSpace:
    """The abstract transition system AS / RS of paper 002 (Defs. 7-8) over count vectors.

    ``successors(state)`` returns ``(AbstractStep, state)`` pairs; ``must_enabled(state)``
    the units surely enabled. A state is ``(globals, others, counts)`` where ``counts`` is
    a sorted tuple of ``(local state id, count)`` with zero counts omitted (as PAT does).
    """

    def __init__(
        self,
        model: CounterModel,
        cutoff: int | None = None,
        unbounded: bool = False,
        share: CounterSpace | None = None,
        *,
        compiled: bool = True,
    ) -> None:
        if unbounded and cutoff is None:
            raise ConfigurationError("an unbounded number of processes needs a cutoff")
        if cutoff is not None and cutoff < 1:
            raise ConfigurationError(f"cutoff must be at least 1, got {cutoff}")
        self.model = model
        self.cutoff = cutoff
        self.unbounded = unbounded
        system = model.system
        self._procs = {p.name: p for p in system.processes}
        self._globals = [v for v in system.globals]
        self._gtypes = {v.name: v.type for v in self._globals}
        # (family, location, locals); shared with ``share`` so ids mean the same
        self.local_states: list[tuple[int, int, tuple]] = share.local_states if share else []
        self._local_index: dict[tuple[int, int, tuple], int] = share._local_index if share else {}
        self.saw_omega = False
        self.saw_unknown = False
        # ω can only appear with a cutoff (counts and counters saturate above it)
        self._omega_possible = cutoff is not None
        self.compiled = compiled

        def fire(e: Edge, proc: Process) -> Fire | None:
            if not compiled:
                return None
            return compile_edge(e, self._globals, proc.locals, model.counter_vars, cutoff)

        # per location: (edge, the event name its step renders, ``base.*`` if erased,
        # its compiled function or None: interpreted)
        self._edges_at: list[dict[int, list[tuple[Edge, str | None, Fire | None]]]] = []
        for fam in model.families:
            at: dict[int, list[tuple[Edge, str | None, Fire | None]]] = {}
            for e, ev in zip(fam.edges, fam.events, strict=True):
                at.setdefault(e.source, []).append((e, ev, fire(e, fam.process)))
            self._edges_at.append(at)
        self._other_edges: dict[int, dict[int, list[tuple[Edge, str | None, Fire | None]]]] = {}
        for k in model.others:
            p = self._procs[system.instances[k].process]
            at = {}
            for e in p.edges:
                if _event_may_match(event_name(e), model.barrier_events) \
                        and not getattr(e, "data_operation", False):
                    continue  # a barrier with the family, which never takes it (checked)
                at.setdefault(e.source, []).append((e, _rendered_event(e), fire(e, p)))
            self._other_edges[k] = at
        # the moves of one unit, which depend only on its local state and the globals:
        # (local state id | (instance, location, locals), globals) -> (moves, surely
        # enabled); a move is (surely, target local state, globals after, event)
        self._moves: dict[tuple[Any, tuple], tuple[list[tuple[bool, Any, tuple, str | None]], bool]] = {}
        # the counts after one member moves: (counts, from, to) -> counts (several when
        # an ω count decreases: ω - 1 is ω or the cutoff)
        self._step_counts: dict[tuple[tuple, int, int], list[tuple]] = {}
        self._steps: dict[tuple, AbstractStep] = {}  # the family steps, made once each
        # members per family, when finite (``_within_population``)
        self._population = None if unbounded else [len(f.members) for f in model.families]

    # -- values --------------------------------------------------------------------------

    def _initial_values(self, variables: Sequence[Variable]) -> dict[str, object]:
        env = Env({}, {}, {})
        out: dict[str, object] = {}
        for v in variables:
            if isinstance(v.type, ArrayType):
                if isinstance(v.type.element, ArrayType):
                    raise UnsupportedError.at(v.span, "multi-dimensional arrays in a counter abstraction")
                if isinstance(v.init, tuple):
                    out[v.name] = [int(evaluate(x, env)) for x in v.init]  # type: ignore[arg-type]
                else:
                    val = 0 if v.init is None else int(evaluate(v.init, env))  # type: ignore[arg-type]
                    out[v.name] = [val] * v.type.length
            else:
                out[v.name] = 0 if v.init is None else evaluate(v.init, env)  # type: ignore[assignment]
        return out

    @staticmethod
    def _freeze(d: dict[str, object], order: Sequence[str]) -> tuple:
        return tuple(tuple(d[n]) if isinstance(d[n], list) else d[n] for n in order)

    @staticmethod
    def _thaw(values: tuple, order: Sequence[str]) -> dict[str, object]:
        return {n: (list(v) if isinstance(v, tuple) else v) for n, v in zip(order, values, strict=True)}

    def _local_id(self, fam: int, loc: int, locals_: tuple) -> int:
        key = (fam, loc, locals_)
        i = self._local_index.get(key)
        if i is None:
            i = len(self.local_states)
            self._local_index[key] = i
            self.local_states.append(key)
        return i

    def describe_local(self, i: int) -> str:
        """Return ``Family@location`` (with locals) for local state ``i``."""
        fam, loc, locals_ = self.local_states[i]
        extra = f"{locals_}" if locals_ else ""
        return f"{self.model.families[fam].name}@{loc}{extra}"

    # -- counts --------------------------------------------------------------------------

    def _add(self, counts: dict[int, object], i: int, delta: int) -> list[dict[int, object]]:
        """Return the count maps after adding ``delta`` (+1/-1) to local state ``i``."""
        c = counts.get(i, 0)
        K = self.cutoff
        if delta > 0:
            new = OMEGA if c is OMEGA else saturate(int(c) + 1, K)  # type: ignore[arg-type]
            if new is OMEGA:
                self.saw_omega = True
            out = dict(counts)
            out[i] = new
            return [out]
        if c is OMEGA:
            results = []
            for v in (OMEGA, K):
                out = dict(counts)
                out[i] = v
                results.append(out)
            return results
        assert isinstance(c, int) and c > 0
        out = dict(counts)
        if c == 1:
            del out[i]
        else:
            out[i] = c - 1
        return [out]

    def _within_population(self, counts: tuple) -> bool:
        """True if some concrete configuration of the finite families has these counts.

        ``ω`` stands for more than the cutoff, so at least ``K + 1`` members: counts
        whose least concretisation needs more members than a family has abstract no
        concrete state (``ω - 1 ∈ {ω, K}`` would otherwise let a family grow past its
        size while its members leave an ``ω`` count). Dropping them keeps every
        abstraction of a concrete run (the abstract system still simulates the
        concrete one, paper 002 Theorem 2) and only removes spurious runs."""
        K = self.cutoff
        assert self._population is not None and K is not None
        total = [0] * len(self._population)
        for i, c in counts:
            total[self.local_states[i][0]] += K + 1 if c is OMEGA else c
        return all(t <= m for t, m in zip(total, self._population, strict=True))

    # -- protocol ------------------------------------------------------------------------

    def initial_state(self, population: int | None = None) -> AbstractState:
        """Return the initial abstract configuration (every family member at its initial
        local state; ``ω`` of them when unbounded)."""
        system = self.model.system
        g = self._initial_values(self._globals)
        for name in self.model.counter_vars:
            v = g[name]
            if isinstance(v, int) and self.cutoff is not None and v > self.cutoff:
                g[name] = OMEGA
        order = [v.name for v in self._globals]
        others = []
        for k in self.model.others:
            p = self._procs[system.instances[k].process]
            loc_vals = self._initial_values(p.locals)
            others.append((p.initial, self._freeze(loc_vals, [v.name for v in p.locals])))
        counts: dict[int, object] = {}
        for f, fam in enumerate(self.model.families):
            loc_vals = self._initial_values(fam.process.locals)
            i = self._local_id(f, fam.process.initial, self._freeze(loc_vals, [v.name for v in fam.process.locals]))
            n: object = OMEGA if self.unbounded else len(fam.members)
            n = saturate(n, self.cutoff) if n is not OMEGA else n
            if n is OMEGA:
                self.saw_omega = True
            counts[i] = n
        return self._derive((self._freeze(g, order), tuple(others), tuple(sorted(counts.items()))))

    def _derive(self, state: AbstractState) -> AbstractState:
        """Return ``state`` with every derived counter recomputed from the counts."""
        if not self.model.derived:
            return state
        plan = self.__dict__.get("_derive_plan")
        if plan is None:
            order = [v.name for v in self._globals]
            # (slot of the counter, its family, the locations it counts), in order
            plan = self._derive_plan = [
                (order.index(name), fam, locs) for name, (fam, locs) in self.model.derived.items()]
            self._derive_counts: dict[int, tuple[int, ...]] = {}
        counted_by = self._derive_counts
        totals: list[object] = [0] * len(plan)
        for i, c in state[2]:
            which = counted_by.get(i)
            if which is None:
                f, loc, _l = self.local_states[i]
                which = counted_by[i] = tuple(
                    d for d, (_slot, fam, locs) in enumerate(plan) if f == fam and loc in locs)
            for d in which:
                total = totals[d]
                totals[d] = OMEGA if (c is OMEGA or total is OMEGA) else total + c  # type: ignore[operator]
        values = list(state[0])
        for (slot, _fam, _locs), total in zip(plan, totals, strict=True):
            values[slot] = saturate(total, self.cutoff) if total is not OMEGA else OMEGA
        return (tuple(values), state[1], state[2])

    def abstract(self, exact: AbstractState) -> AbstractState:
        """Return the abstraction (Def. 8, this space's cutoff) of an exact state of a
        space that shares this one's local states."""
        K = self.cutoff
        mask = self.__dict__.get("_abstract_mask")
        if mask is None:
            mask = self._abstract_mask = tuple(
                v.name in self.model.counter_vars for v in self._globals)
        values = tuple(
            saturate(v, K) if counter else v for counter, v in zip(mask, exact[0], strict=True)
        )
        counts = tuple((i, saturate(c, K)) for i, c in exact[2])
        return self._derive((values, exact[1], counts))

    def _env(self, state: AbstractState, locals_: dict[str, object]) -> Env:
        order = [v.name for v in self._globals]
        return Env(self._thaw(state[0], order), locals_, {}, self.cutoff, self.model.counter_vars)

    def _types(self, proc: Process):
        ltypes = {v.name: v.type for v in proc.locals}

        def types(var: Var):
            return ltypes.get(var.name) if var.scope == "local" else self._gtypes.get(var.name)

        return types

    def _fire(self, state: AbstractState, proc: Process, edge: Edge, locals_: dict[str, object]):
        """Yield ``(env after, must)`` for taking ``edge`` (may-semantics: an undecided
        guard fires, ``must`` is False)."""
        env = self._env(state, locals_)
        must = True
        if edge.guard is not None:
            if type(edge.guard).__name__ == "ElseGuard":
                raise UnsupportedError.at(edge.span, "else guards in a counter abstraction")
            g = evaluate(edge.guard, env)
            if g is UNKNOWN:
                must = False
                self.saw_unknown = True
            elif not g:
                return
        for out in execute(edge.effect, env, self._types(proc)):
            yield out, must

    def successors(self, state: AbstractState) -> list[tuple[AbstractStep, AbstractState]]:
        """Return every abstract transition of ``state`` (may-semantics)."""
        return self._successors(state)[0]

    def must_enabled(self, state: AbstractState) -> frozenset[tuple[str, int]]:
        """Return the units (local states, other instances) surely enabled in ``state``."""
        return self._successors(state)[1]

    def _unit_moves(self, key: Any, globals_: tuple, proc: Process,
                    edges: Sequence[tuple[Edge, str | None, Fire | None]], lvals: tuple,
                    state: AbstractState, target: Callable[[int, tuple], Any]):
        """Return the moves of one unit (a family local state or another instance) with
        locals ``lvals`` under ``globals_``: ``([(surely, target(location, locals after),
        globals after, event)], surely enabled)``, cached per (unit, globals) (the moves
        read nothing else: counts enter only through derived counters, which are
        globals). Compiled edges run on states without ω, the interpreter otherwise."""
        hit = self._moves.get((key, globals_))
        if hit is not None:
            return hit
        moves: list[tuple[bool, Any, tuple, str | None]] = []
        must = False
        omega = self._omega_possible and OMEGA in globals_
        order = lorder = None
        for e, ev, fn in edges:
            if fn is not None and not omega:
                try:
                    r = fn(globals_, lvals)
                except Fallback:
                    pass
                else:
                    if r is not None:
                        must = True
                        moves.append((True, target(e.target, r[1]), r[0], ev))
                    continue
            if order is None:
                order = [v.name for v in self._globals]
                lorder = [v.name for v in proc.locals]
            for env, surely in self._fire(state, proc, e, self._thaw(lvals, lorder)):
                must = must or surely
                moves.append((surely, target(e.target, self._freeze(env.locals, lorder)),
                              self._freeze(env.globals, order), ev))
        result = (moves, must)
        self._moves[(key, globals_)] = result
        return result

    def _successors(self, state: AbstractState):
        cache = self.__dict__.setdefault("_cache", {})
        hit = cache.get(state)
        if hit is not None:
            return hit
        system = self.model.system
        out: list[tuple[AbstractStep, AbstractState]] = []
        must: set[tuple[str, int]] = set()
        g, others_now, count_items = state
        omega_here = self._omega_possible and _has_omega(state)
        counts = dict(count_items)
        exact_counts = self.cutoff is None
        step_counts = self._step_counts
        steps = self._steps
        known = self._moves
        derive = self._derive if self.model.derived else None
        omega_possible = self._omega_possible
        # family local states
        for i, _c in count_items:
            hit = known.get((i, g))
            if hit is None:
                f, loc, lvals = self.local_states[i]
                hit = self._unit_moves(
                    i, g, self.model.families[f].process, self._edges_at[f].get(loc, ()), lvals, state,
                    lambda tloc, tlocals, f=f: self._local_id(f, tloc, tlocals))
            moves, surely_enabled = hit
            if surely_enabled:
                must.add(("L", i))
            for surely, j, gvals, ev in moves:
                key = (count_items, i, j)
                after = step_counts.get(key)
                if after is None:
                    if exact_counts:
                        c2 = dict(counts)
                        ci = c2[i]
                        if ci == 1:
                            del c2[i]
                        else:
                            c2[i] = ci - 1
                        c2[j] = c2.get(j, 0) + 1
                        after = [tuple(sorted(c2.items()))]
                    else:
                        after = [tuple(sorted(c2.items()))
                                 for c1 in self._add(counts, i, -1) for c2 in self._add(c1, j, +1)]
                        if self._population is not None:
                            after = [c for c in after if self._within_population(c)]
                    step_counts[key] = after
                for c2t in after:
                    target = (gvals, others_now, c2t)
                    if derive is not None:
                        target = derive(target)
                    exact = surely and not omega_here and not (omega_possible and _has_omega(target))
                    step = steps.get((i, ev, exact, j))
                    if step is None:
                        step = steps[(i, ev, exact, j)] = AbstractStep((("L", i),), ev, exact, (j,))
                    out.append((step, target))
        # other instances
        for pos, k in enumerate(self.model.others):
            loc, lvals = others_now[pos]
            proc = self._procs[system.instances[k].process]
            moves, surely_enabled = self._unit_moves(
                (k, loc, lvals), g, proc, self._other_edges[k].get(loc, ()), lvals, state,
                lambda tloc, tlocals: (tloc, tlocals))
            if surely_enabled:
                must.add(("P", k))
            for surely, unit, gvals, ev in moves:
                others = list(others_now)
                others[pos] = unit
                target = self._derive((gvals, tuple(others), count_items))
                exact = surely and not omega_here and not (self._omega_possible and _has_omega(target))
                out.append((AbstractStep((("P", k),), ev, exact), target))
        result = (out, frozenset(must))
        cache[state] = result
        return result


def _has_omega(state: AbstractState) -> bool:
    return any(v is OMEGA for v in state[0]) or any(c is OMEGA for _i, c in state[2])
