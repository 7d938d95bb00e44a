"""Fairness premises of the explicit-pc style (``explicit.py``): weak, strong
local and strong global fairness as LTL premises over the emitted steps."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from bridge.backends.spin.emitted import ExplicitState
from bridge.backends.spin.promela_text import (
    global_name,
    sanitize,
)
from bridge.diagnostics import UnsupportedError
from bridge.ir.model import FairnessMark
from bridge.ir.property import Fairness
from bridge.ir.types import ArrayType, IntType, Type

if TYPE_CHECKING:
    from bridge.backends.spin.explicit import Option


class Premises:
    """The premises of ``explicit._Explicit`` (a mixin: its state is there)."""

    def _at_end(self, i: int) -> str:
        process = self.system.process(self.instances[i].process)
        ends = [loc.id for loc in process.locations if loc.end or loc.terminal]
        if self.mortal:
            ends.append(self.none_pc(i))  # dead, or never started
        if not ends:
            return "0"
        return "(" + " || ".join(f"({self.pc(i)} == {e})" for e in ends) + ")"

    def _premises(
        self,
        options: list[Option],
        actions: list[str],
        action_id: Mapping[str, int],
        defines: list[str],
    ) -> list[tuple[str, str]]:
        """Return the premise conjuncts (Promela text, Spot text); add their defines."""
        pairs: list[tuple[str, str]] = []

        def enabled(pred: Callable[[Option], bool]) -> str:
            conds = [f"({o.cond})" for o in options if pred(o)]
            return " || ".join(conds) if conds else "0"

        def conjunct(k: str, kind: str, en: str, ex: str) -> None:
            defines.append(f"#define en_{k} ({en})")
            defines.append(f"#define ex_{k} ({ex})")
            if kind == "weak":
                pairs.append((f"((<>[] en_{k}) -> ([]<> ex_{k}))", f"((FG en_{k}) -> (GF ex_{k}))"))
            elif kind == "strong":
                pairs.append((f"(([]<> en_{k}) -> ([]<> ex_{k}))", f"((GF en_{k}) -> (GF ex_{k}))"))
            else:  # unconditional (annotation f)
                pairs.append((f"([]<> ex_{k})", f"(GF ex_{k})"))

        if self.fairness in (Fairness.WEAK, Fairness.STRONG_LOCAL):
            kind = "weak" if self.fairness is Fairness.WEAK else "strong"
            for a in actions:
                if a.startswith("tau:"):
                    continue  # tau steps are never constrained (Step.tau; fairness/conditions)
                k = str(action_id[a])
                conjunct(k, kind, enabled(lambda o, a=a: o.action == a), f"last == {k}")
        elif self.fairness is Fairness.STRONG_GLOBAL:
            pairs += self._strong_global_premises(options, defines)
        elif self.fairness in (Fairness.PROCESS_WEAK, Fairness.PROCESS_STRONG):
            kind = "weak" if self.fairness is Fairness.PROCESS_WEAK else "strong"
            for i in range(len(self.instances)):
                en = enabled(lambda o, i=i: any(p.instance == i for p in o.parts))
                conjunct(f"i{i}", kind, en, f"mv_{i} == 1")
        for mark, event in self.annotations:
            ids = sorted({action_id[o.action] for o in options if o.event == event})
            if not ids:
                raise UnsupportedError.at(None, f"annotated event '{event}' occurs on no edge")
            k = "n" + sanitize(event)
            en = enabled(lambda o, event=event: o.event == event)
            ex = " || ".join(f"(last == {x})" for x in ids)
            if mark in (FairnessMark.WF, FairnessMark.WL):
                conjunct(k, "weak", en, ex)
            elif mark in (FairnessMark.SF, FairnessMark.SL):
                conjunct(k, "strong", en, ex)
            else:
                conjunct(k, "always", en, ex)
        return pairs


    # -- strong global fairness (paper 000 Def. 4) -------------------------------------
    def _state_predicate(self, state: ExplicitState) -> str:
        """Return the Promela condition that holds exactly in ``state`` (its valuation)."""
        system = self.system
        if len(state.locations) != len(system.instances):
            raise UnsupportedError.at(
                None, "explicit graph: a state does not give one location per instance"
            )
        terms = [f"({self.pc(i)} == {loc})" for i, loc in enumerate(state.locations)]

        def values(name: str, t: Type | None, emitted: str, vs: tuple[int, ...]) -> None:
            if t is None:
                raise UnsupportedError.at(
                    None, f"explicit graph: '{name}' is no variable of the emitted model"
                )
            if isinstance(t, ArrayType):
                if isinstance(t.element, ArrayType) or len(vs) != t.length:
                    raise UnsupportedError.at(
                        None, f"explicit graph: array '{name}' (only one-dimensional arrays)"
                    )
                terms.extend(f"({emitted}[{k}] == {v})" for k, v in enumerate(vs))
            elif len(vs) == 1:
                terms.append(f"({emitted} == {vs[0]})")
            else:
                raise UnsupportedError.at(None, f"explicit graph: '{name}' is not a scalar")

        for name, vs in state.globals:
            values(name, self.globals_.get(name), global_name(name), vs)
        for i, locals_ in enumerate(state.locals):
            params = set(system.process(system.instances[i].process).parameters)
            for name, vs in locals_:
                t = self.locals_.get((i, name)) or (IntType() if name in params else None)
                values(name, t, self.local_name(i, name), vs)
        return " && ".join(terms) if terms else "1"

    def _strong_global_premises(
        self, options: list[Option], defines: list[str]
    ) -> list[tuple[str, str]]:
        """Return the strong global premise conjuncts (paper 000 Def. 4), one per source
        state: ``[]<> st_k -> ([]<> tk_j ...)`` over its steps ``j``; add ``st_k``/``tk_j``
        defines and make each option's d_step set ``stp`` to the step it takes."""
        graph = self.graph
        assert graph is not None
        if self.system.channels:
            raise UnsupportedError.at(
                self.system.channels[0].span,
                f"channel '{self.system.channels[0].name}': the strong global premise "
                "identifies states by their variables and locations only",
            )
        by_edges = {
            tuple(sorted((p.instance, p.edge_index) for p in o.parts)): o for o in options
        }
        seen: dict[tuple[int, tuple[tuple[int, int], ...]], int] = {}
        chains: dict[int, list[tuple[int, int]]] = {}
        per_source: dict[int, list[int]] = {}
        for j, step in enumerate(graph.steps, start=1):
            key = tuple(sorted(step.edges))
            option = by_edges.get(key)
            if option is None:
                raise UnsupportedError.at(
                    None, f"explicit graph: step {key} matches no option of the emitted model"
                )
            other = seen.setdefault((step.source, key), step.target)
            if other != step.target:
                raise UnsupportedError.at(
                    option.parts[0].edge.span,
                    f"option '{option.action}' is not deterministic in state {step.source} "
                    "(two targets): a step cannot be identified by its source and edges",
                )
            chains.setdefault(id(option), []).append((step.source, j))
            per_source.setdefault(step.source, []).append(j)
        used = sorted({k for k in per_source} | {k for c in chains.values() for k, _ in c})
        for k in used:
            if not 0 <= k < len(graph.states):
                raise UnsupportedError.at(None, f"explicit graph: no state {k}")
            defines.append(f"#define st_{k} ({self._state_predicate(graph.states[k])})")
        for o in options:
            text = "0"
            for k, j in reversed(chains.get(id(o), [])):
                text = f"(st_{k} -> {j} : {text})"
            o.body.insert(0, f"stp = {text}")
        for j in range(1, len(graph.steps) + 1):
            defines.append(f"#define tk_{j} (stp == {j})")
        if self.strong_global_form == "bottom-scc":
            return self._bottom_scc_premise(options, chains, per_source, defines)
        pairs: list[tuple[str, str]] = []
        for k in sorted(per_source):
            steps = per_source[k]
            spin_taken = " && ".join(f"([]<> tk_{j})" for j in steps)
            spot_taken = " & ".join(f"(GF tk_{j})" for j in steps)
            pairs.append((f"(([]<> st_{k}) -> ({spin_taken}))", f"((GF st_{k}) -> ({spot_taken}))"))
        return pairs

    def _bottom_scc_premise(
        self,
        options: list[Option],
        chains: dict[int, list[tuple[int, int]]],
        per_source: dict[int, list[int]],
        defines: list[str],
    ) -> list[tuple[str, str]]:
        """Return the strong global premise as one disjunction over the bottom SCCs ``B``
        of the (complete) graph: ``<>[] in_B && []<> wr_B``, where ``wr_B`` marks a full
        sweep of the steps of ``B`` (a counter ``sw_B`` advances when the step at its
        position is taken; ``wr`` is set on the step that wraps it), ``<>[] in_B``
        alone for a deadlocked ``B``.

        Equivalent to the per-step conjunction on the runs of the graph: the states a
        strongly globally fair run visits infinitely often take every step infinitely
        often, so they are closed under steps and strongly connected, i.e. a bottom SCC,
        and every step of it is taken (so the counter wraps infinitely often);
        conversely such a run visits every source of ``B`` infinitely often and no state
        outside ``B`` (000 Def. 4; 001 Lemma 2). The counter is the degeneralization of
        ``[]<> tk_1 && ... && []<> tk_n`` done in the model: Spot's translation of that
        conjunction grows exponentially in n (1.3 s for n = 12, measured).
        """
        graph = self.graph
        assert graph is not None
        n = len(graph.states)
        succ: list[set[int]] = [set() for _ in range(n)]
        for step in graph.steps:
            succ[step.source].add(step.target)
        reach: list[set[int]] = []
        for k in range(n):
            seen = {k}
            stack = [k]
            while stack:
                u = stack.pop()
                for v in succ[u]:
                    if v not in seen:
                        seen.add(v)
                        stack.append(v)
            reach.append(seen)
        bottoms: list[list[int]] = []
        done: set[int] = set()
        for k in range(n):
            if k in done or not all(k in reach[t] for t in reach[k]):
                continue
            members = sorted(reach[k])
            done.update(members)
            bottoms.append(members)
        defined = {d.split()[1] for d in defines if d.startswith("#define st_")}
        spin_terms: list[str] = []
        spot_terms: list[str] = []
        sweeps: dict[int, tuple[int, list[int]]] = {}  # step -> (bottom, its steps)
        for b, members in enumerate(bottoms):
            for k in members:
                if f"st_{k}" not in defined:
                    defines.append(f"#define st_{k} ({self._state_predicate(graph.states[k])})")
            inside = " || ".join(f"st_{k}" for k in members)
            defines.append(f"#define in_b{b} ({inside})")
            steps = [j for k in members for j in per_source.get(k, [])]
            if not steps:
                spin_terms.append(f"(<>[] in_b{b})")
                spot_terms.append(f"(FG in_b{b})")
                continue
            self.sweep_vars.append(f"byte sw_{b} = 0")
            defines.append(f"#define wr_b{b} (wr == {b + 1})")
            for j in steps:
                sweeps[j] = (b, steps)
            spin_terms.append(f"((<>[] in_b{b}) && ([]<> wr_b{b}))")
            spot_terms.append(f"((FG in_b{b}) & (GF wr_b{b}))")
        if sweeps:
            self.sweep_vars.append("byte wr = 0")
        for o in options:
            if not sweeps:
                break
            updates = ["wr = 0"]
            taken = {j for _k, j in chains.get(id(o), []) if j in sweeps}
            for b in sorted({sweeps[j][0] for j in taken}):
                steps = next(st for bb, st in sweeps.values() if bb == b)
                last = len(steps) - 1
                if steps[last] in taken:
                    wrap = f"((sw_{b} == {last}) && (stp == {steps[last]}))"
                    updates.append(f"wr = ({wrap} -> {b + 1} : wr)")
                advance = f"sw_{b}"
                for p in reversed(range(len(steps))):
                    if steps[p] not in taken:
                        continue
                    nxt = (p + 1) % len(steps)
                    advance = f"(((sw_{b} == {p}) && (stp == {steps[p]})) -> {nxt} : {advance})"
                updates.append(f"sw_{b} = {advance}")
            o.body[1:1] = updates
        return [("(" + " || ".join(spin_terms) + ")", "(" + " | ".join(spot_terms) + ")")]


