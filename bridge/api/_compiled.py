"""``bridge.api``'s use of the compiled engine (issue 12): whether ``--engine auto`` takes
C (and the note when it does not), the warm-up limit, running a C search, and replaying
its results (paths, lassos, fair parts) on the Python semantics before they are printed."""

from __future__ import annotations

import dataclasses
import importlib
import time
from collections.abc import Callable
from typing import Any

from bridge.api._options import (
    ENGINES,
    CheckOptions,
    NotAvailableError,
    _remaining,
    _room,
)
from bridge.api._spaces import (
    _generated_space,
    _is_quotient,
    _Reduced,
    _reduced_once,
    _with_counterexample,
)
from bridge.diagnostics import ConfigurationError, ModelRuntimeError
from bridge.ir.model import TransitionSystem
from bridge.ir.property import Fairness, LtlState, Property, PropertyKind, RefinementModel
from bridge.ir.verdict import Outcome, Verdict


def _refine_on_c(system: TransitionSystem, prop: Property, options: CheckOptions,
                 started: float) -> Verdict:
    """Return the C engine's verdict of a ``refines`` assertion (``_check_refinement``);
    raises the C engine's ``CFallback`` (the normal form is too large, or the
    specification meets a model error: the Python engine reports it where it matters)
    or ``EngineDisagreement`` (the replay refutes the C answer)."""
    refinement = importlib.import_module("bridge.refinement")
    engine_c = importlib.import_module("bridge.engine_c")
    model = prop.refinement or RefinementModel.TRACES
    if prop.spec is None:
        raise ConfigurationError(f"property '{prop.name}' is no refinement assertion")
    deadline = None if options.timeout is None else started + options.timeout
    try:
        table = refinement.normalise_whole(
            prop.spec, divergence=model is RefinementModel.FAILURES_DIVERGENCE,
            deadline=deadline)
    except refinement.TimeUp as up:
        return refinement.normalisation_stopped(system, prop, up, options.timeout,
                                                time.perf_counter() - started)
    except refinement.NormalFormTooLarge as large:
        raise engine_c.CFallback(f"{large}; the Python engine normalises it lazily") \
            from None
    except ModelRuntimeError as error:
        raise engine_c.CFallback(f"the specification meets a model error ({error}) "
                                 "normalising it whole") from None
    answer = engine_c.refine_c(system, table, model.value,
                               engine_c.SearchOptions(
                                   max_states=options.max_states,
                                   timeout=_remaining(options, started),
                                   max_memory=options.max_memory, progress=options.progress))
    try:
        return refinement.verdict_from_c(system, prop, table, answer,
                                         time.perf_counter() - started)
    except (refinement.ReplayRefuted, ModelRuntimeError) as refuted:
        raise engine_c.EngineDisagreement(f"the C engine's refinement counterexample was "
                                          f"refuted by its replay ({refuted})") from None


# ``--engine auto`` leaves a system to the Python engine when more than this many of its
# process instances (or templates, of a dynamic system) get C code of their own
# (``engine_c.own_code_count``: counted on the generated source, before the compiler
# runs). Instances whose code differs only in data share one C code per family
# (``engine_c/gen_families``) and are not counted: LE (le_pl) compiles in about 3 s of
# compiler CPU at any N up to 10,000. Code of its own costs the compiler about 24 ms
# of CPU per instance of LE's size (3 location functions, 2 kB of C): gcc -O2 took
# 24.8 s of CPU on LE N = 1,000 with every node's code its own, 7.5 s at 300, 1.3 s
# with shared code (``benchmarks/many_instances.py --c-engine --baseline``, 2026-11-26,
# load 4-6 on 2 cores), so this many take about 30 s.
AUTO_C_MAX_OWN_CODE = 1000


def _use_c_engine(system: TransitionSystem, prop: Property | None, options: CheckOptions,
                  notes: list[str], ask: Callable[[], tuple[bool, str]] | None = None) -> bool:
    """Return True when the compiled engine runs this task (``options.engine``); for
    ``auto``, a note says why the Python engine runs it instead; for ``c``, a task the C
    engine does not support raises ``ConfigurationError`` with the reason. ``ask``: the
    question ``(supported, why not)`` to put instead of ``engine_c.supports``."""
    engine = options.engine
    if engine not in ENGINES:
        raise ConfigurationError(f"unknown engine {engine!r}; allowed: {', '.join(ENGINES)}")
    if engine == "python":
        return False
    try:
        if ask is None:
            supports = _room("bridge.engine_c", "supports", "the compiled engine")
            ok, why = supports(system, prop)
        else:
            ok, why = ask()
    except NotAvailableError as missing:
        ok, why = False, str(missing)
    if ok and engine == "auto":
        own = _room("bridge.engine_c", "own_code_count", "the compiled engine")(system)
        if own > AUTO_C_MAX_OWN_CODE:
            notes.append(f"checked by the Python engine: {own} process instances get C "
                         "code of their own (not shared by a family of instances), more "
                         f"than the --engine auto limit of {AUTO_C_MAX_OWN_CODE} "
                         "(api.AUTO_C_MAX_OWN_CODE: compiling them would take more than "
                         "about 30 s); --engine c compiles them anyway")
            return False
    if ok:
        return True
    if engine == "c":
        raise ConfigurationError(f"--engine c: {why}; use --engine auto or python")
    notes.append(f"checked by the Python engine: {why}")
    return False


# ``--engine auto`` runs a model whose library is not built yet on the Python engine
# first, for this many states: a small state space is done before the C compiler would
# have finished (0.3-2 s), and only a larger one pays for compiling.
AUTO_PYTHON_STATES = 20000


def _warm_up_limit(system: TransitionSystem, options: CheckOptions) -> int | None:
    """Return the state limit of the Python warm-up run of ``auto``, or None for none
    (another engine was asked for, or the library is built already)."""
    if options.engine != "auto":
        return None
    engine_c = importlib.import_module("bridge.engine_c")
    if engine_c.is_compiled(system):
        return None
    return AUTO_PYTHON_STATES


def _run_c(run: Callable[[], Any], options: CheckOptions, notes: list[str],
           refuted: str = "checked") -> Any:
    """Return ``run()`` (a C engine search), or None when the Python engine must answer
    instead: a note says why (the C engine fell back, or its run was refuted by its
    replay on the reference semantics: never answer from it, a bug of the C engine);
    with ``--engine c``, a model the C compiler rejects is a ``ConfigurationError``.
    ``refuted``: the verb of the note of a refuted run ("checked", "explored")."""
    engine_c = importlib.import_module("bridge.engine_c")
    try:
        return run()
    except (engine_c.CFallback, engine_c.CUnsupported) as fallback:
        if options.engine == "c" and isinstance(fallback, engine_c.CUnsupported):
            raise ConfigurationError(f"--engine c: {fallback}") from None
        notes.append(f"checked by the Python engine: {fallback}")
    except engine_c.EngineDisagreement as disagreement:
        notes.append(f"{refuted} by the Python engine: {disagreement}")
    return None


def _use_c_ltl(system: TransitionSystem, prop: Property, options: CheckOptions,
               fairness: Fairness, notes: list[str], reduced: _Reduced | None = None) -> bool:
    """Return True when the compiled engine's fair search checks LTL property ``prop``
    (``_use_c_engine``'s contract: ``auto`` notes why not, ``c`` refuses with the
    reason). It takes the notions of ``engine_c.LTL_FAIRNESS`` with annotations (the
    command line's and the model's), and symmetry reduction (paper 001; the quotient
    of static and dynamic layouts, ``engine_c.symmetry_supports``); --por and the
    counter abstraction run on the Python engine. With --symmetry the quotient is built here, once, into
    ``reduced`` (its notes say whether it applies; where it does not, the C engine
    searches the full state space, as the Python engine would)."""
    reduced = reduced if reduced is not None else _Reduced()

    def ask() -> tuple[bool, str]:
        if prop.kind is PropertyKind.LTL and (options.por or options.counter_abstraction):
            return False, ("the reductions --por and --counter-abstraction run on the "
                           "Python engine")
        if options.symmetry and prop.kind is PropertyKind.LTL:
            quotient = _reduced_once(system, prop, fairness, options, notes, reduced)
            if quotient is not None:
                symmetry_supports = _room("bridge.engine_c", "symmetry_supports",
                                          "the compiled engine")
                ok, why = symmetry_supports(system, quotient.group_action())
                if not ok:
                    return False, f"the C engine does not take {why}"
        supports = _room("bridge.engine_c", "ltl_supports", "the compiled engine")
        atoms, buchi = _fair_search_automaton(system, prop)
        return supports(system, prop, atoms, fairness, buchi.num_sets, buchi.num_states,
                        options.annotations)

    return _use_c_engine(system, prop, options, notes, ask)


def _fair_search_automaton(system: TransitionSystem, prop: Property,
                           translate: bool = True) -> tuple[list[Any], Any]:
    """Return ``(atoms, automaton)`` of the fair search of ``prop``: for LTL the
    automaton of the negation (Spot) and its atoms; for a never claim the claim read as
    an automaton (``fairness.never.claim_automaton``, which refuses a claim with side
    effects) and its guards; for non-progress and acceptance cycles SPIN's automaton
    (``fairness.cycles``) over ``engine_c.LabelAtom``s. ``translate`` False: the atoms
    only (the automaton is None for LTL, no Spot call)."""
    if prop.kind is PropertyKind.LTL:
        assert prop.formula is not None
        if not translate:
            bind = _room("bridge.automata.ltl", "bind_atoms", "the LTL translator")
            return list(bind(prop.formula)[1].atoms), None
        na = _room("bridge.automata.ltl", "translate_formula", "the LTL translator")(prop.formula)
        return list(na.binding.atoms), na.buchi
    if prop.kind is PropertyKind.NEVER:
        if system.never is None:
            raise ConfigurationError(f"model {system.name!r} has no never claim")
        claim_automaton = _room("bridge.fairness.never", "claim_automaton",
                                "the never-claim checker")
        claim = claim_automaton(system.never)
        return [LtlState(a, "") for a in claim.atoms], claim.buchi
    label_atom = _room("bridge.engine_c", "LabelAtom", "the compiled engine")
    if prop.kind is PropertyKind.NON_PROGRESS:
        make = _room("bridge.fairness.cycles", "non_progress_automaton", "the cycle checker")
        return [label_atom("np_")], make()
    make = _room("bridge.fairness.cycles", "acceptance_automaton", "the cycle checker")
    return [label_atom("accept")], make()


def _c_fair_search(system: TransitionSystem, prop: Property, options: CheckOptions,
                   notes: list[str], symmetry: Any = None) -> Callable[..., Any]:
    """Return the compiled engine's fair search for ``check_ltl(search=...)``: the C
    search of the product (``engine_c.fair_search_c``), whose report is rebuilt on the
    Python semantics: the path and the fair part are walked on the Python product (each
    C node matched by its system state and automaton state among the Python
    successors), the part is re-checked (acceptance, the notion's ``prune``) and the
    lasso is built and replayed by ``emptiness.build_lasso``. A C result that does not
    replay, or a value the C engine cannot hold, hands the search to the Python engine
    with a note; a C verdict is never reported unchecked. A strong globally fair part
    of more than ``LOOP_PRINT_NODES`` nodes is checked as a whole by the C engine
    instead of through a lasso, and only the path into it is replayed on the Python
    semantics (``_certified_part``). The Python engine's fallback gets what is left of
    the timeout. ``symmetry``: the
    ``GroupAction`` of the quotient ``check_ltl`` searches (the C search then searches
    the same quotient, and its report is rebuilt on the Python quotient product)."""
    engine_c = importlib.import_module("bridge.engine_c")
    fcheck = importlib.import_module("bridge.fairness.check")
    atoms, _ = _fair_search_automaton(system, prop, translate=False)

    def search(space: Any, system_: TransitionSystem, buchi: Any, state_letter: Any,
               event_letter: Any, fairness: Fairness, ltl_options: Any, stats: Any) -> Any:
        args = (space, system_, buchi, state_letter, event_letter, fairness, ltl_options, stats)
        def c_search() -> Any:
            deadline = None if ltl_options.timeout is None else \
                time.monotonic() + ltl_options.timeout
            result = engine_c.fair_search_c(system, buchi, atoms, fairness, engine_c.SearchOptions(
                max_states=ltl_options.max_states, timeout=ltl_options.timeout,
                max_memory=options.max_memory, progress=options.progress),
                ltl_options.annotations, ltl_options.model_annotations, symmetry,
                check_part_over=LOOP_PRINT_NODES)
            return _replay_c_search(engine_c, fcheck, result, system, args, deadline)

        begun = time.monotonic()
        found = _run_c(c_search, options, notes)
        if found is not None:
            return found
        if ltl_options.timeout is not None:  # the Python engine gets what is left
            left = max(0.001, ltl_options.timeout - (time.monotonic() - begun))
            args = args[:6] + (dataclasses.replace(ltl_options, timeout=left), stats)
        return fcheck.run_fair_search(*args)

    return search


# A strong globally fair part with more nodes than this is checked as a whole by the C
# engine that found it (``engine_c.PartCheck``, the C twin of ``fairness.terminal``) and
# reported without its loop: the loop takes every step of the part (paper 001 Lemma 2),
# too long to print or to replay step by step. Smaller parts are rebuilt, re-checked
# and replayed as a lasso on the Python semantics.
LOOP_PRINT_NODES = 20_000


def _replay_c_search(engine_c: Any, fcheck: Any, result: Any, system: TransitionSystem,
                     args: tuple[Any, ...], deadline: float | None = None) -> Any:
    """Return the ``FairSearch`` of a C fair search ``result`` (see ``_c_fair_search``);
    raises ``engine_c.EngineDisagreement`` when it does not replay. The replay honours
    the search's time limit: past ``deadline`` (``time.monotonic()``) it ends as an
    UNKNOWN limit verdict, never as a killed run."""
    product_room = importlib.import_module("bridge.fairness.product")
    try:
        return _replay_c_result(engine_c, fcheck, result, system, args, deadline)
    except product_room.LimitReached as limit:
        what = "state limit" if limit.what == "states" else "time limit"
        return fcheck.FairSearch(None, early=(
            Outcome.UNKNOWN, f"{what} reached before a verdict (while checking the C "
            "engine's fair part on the Python semantics)", {}), statistics=result.statistics)


def _replay_c_result(engine_c: Any, fcheck: Any, result: Any, system: TransitionSystem,
                     args: tuple[Any, ...], deadline: float | None) -> Any:
    """``_replay_c_search`` without the limits' handling (``LimitReached`` goes up)."""
    space, _system, buchi, state_letter, event_letter, fairness, ltl_options, stats = args
    product_room = importlib.import_module("bridge.fairness.product")
    components = importlib.import_module("bridge.fairness.components")
    emptiness = importlib.import_module("bridge.fairness.emptiness")
    onthefly = importlib.import_module("bridge.fairness.onthefly")
    started = time.perf_counter()
    stats.sccs = result.sccs
    stats.nontrivial_sccs = result.nontrivial_sccs
    stats.early_report = result.early_report
    stats.subgraphs = result.subgraphs
    stats.pruned = result.pruned
    c_stats = result.statistics
    if result.outcome == "limit":
        return fcheck.FairSearch(None, early=(Outcome.UNKNOWN, f"{result.reason} reached "
                                              "before a verdict", {}), statistics=c_stats)
    if result.outcome == "error" and not result.path:
        return fcheck.run_fair_search(*args)  # the initial state: Python stops at once
    # no state limit here: the replay interns only what the C search reported (its part
    # and path, and their successors), which the C search's own state limit bounded
    product = product_room.Product(
        space, buchi, state_letter, event_letter,
        timeout=None if deadline is None else max(0.001, deadline - time.monotonic()))
    condition = fcheck.build_condition(product, fairness, ltl_options, system)
    if result.outcome == "empty":
        return fcheck.FairSearch(product, condition, None, statistics=c_stats,
                                 events_seen=result.events_seen,
                                 annotations_seen=result.annotations_seen)
    key, path, part_keys = _replay_keys(engine_c, system, space, product, result)
    disagree = engine_c.EngineDisagreement
    starts = [n for n in product.initial_nodes() if key(n) == path[0]]
    if not starts:
        raise disagree("the C engine's initial product state is not the Python one")
    initial = u = starts[0]
    edges: list[tuple[int, int, int]] = []
    # Along the C search's DFS path each node was entered by the first edge to it in the
    # search order (several steps, of different processes, may reach the same node): the
    # same edge as the Python search's. Past it (a shortest path), the first edge. The
    # rotated order (weak, strong local fairness) shifts a node's edges by its system
    # state id in the search, which this fresh product numbers differently: the C
    # search's ids of the path's nodes (``path_sys``) give the shift.
    order = onthefly.search_order(condition)
    in_step = -1
    for i, want in enumerate(path[1:]):
        if deadline is not None and i % 512 == 0 and time.monotonic() > deadline:
            raise product_room.LimitReached("time")
        out = product.edges(u)
        ranks: Any = range(len(out))
        if i + 1 < result.dfs_len and len(out) > 1:
            if order == onthefly.ORDER_ROUND_ROBIN:
                ranks = onthefly.edge_order(product, order, u, in_step,
                                            [k for _w, k, _a in out])
            elif order == onthefly.ORDER_ROTATE and i < len(result.path_sys):
                shift = result.path_sys[i] % len(out)
                ranks = [(j + shift) % len(out) for j in range(len(out))]
        step = next(((out[j][0], out[j][1]) for j in ranks if key(out[j][0]) == want), None)
        if step is None:
            raise disagree("a step of the C engine's fair search is not a step of the "
                           "Python product")
        edges.append((u, step[1], step[0]))
        u, in_step = step[0], step[1]
    if result.outcome == "error":
        try:
            product.expand(u)
        except product_room.ModelErrorAt as failure:
            from bridge.semantics.trace import make_trace

            err = failure.error
            trace = make_trace(space, product.sys_states[product.node_sys[initial]],
                               product.system_path(edges))
            return fcheck.FairSearch(product, early=(
                Outcome.VIOLATED, f"{getattr(err, 'kind', 'error')}: {err}", {"trace": trace}),
                statistics=c_stats)
        raise disagree("the C engine met a model error that the Python engine does not")
    part = set(part_keys)
    if key(u) != part_keys[0]:
        raise disagree("the C engine's fair part does not start where its path ends")
    if result.part_check is not None:
        if fairness is not Fairness.STRONG_GLOBAL or type(condition).__name__ != \
                "StrongGlobalFairness":
            raise disagree("the C engine checked a fair part under another notion")
        return _certified_part(fcheck, product, condition, result, initial, edges, u,
                               deadline, started)
    members, queue = {u}, [u]
    while queue:
        v = queue.pop()
        for w, _k, _a in product.edges(v):
            if w not in members and key(w) in part:
                members.add(w)
                queue.append(w)
    if len(members) != len(part):
        raise disagree("the C engine's fair part is not strongly connected on the Python "
                       "product")
    g = components.component_subgraph(product, members)
    acc = 0
    for _u, _v, _k, a in g.edges:
        acc |= a
    if acc & buchi.all_sets != buchi.all_sets or condition.prune(g):
        raise disagree("the C engine's fair part is not fair and accepting on the Python "
                       "product")
    condition.clear_caches()
    if len(edges) <= onthefly.SHORT_PREFIX:
        g.entry = (initial, edges)
    else:
        allowed = members | {e[0] for e in edges}
        g.entry = (initial, components.path_within(product, initial, allowed, members))
    try:
        lasso = emptiness.build_lasso(product, condition, g)
    except AssertionError as error:
        raise disagree(f"the C engine's counterexample does not replay ({error})") from None
    # the seconds of the C search and of the replay (compiling is reported apart)
    c_stats = dataclasses.replace(c_stats, seconds=c_stats.seconds + time.perf_counter()
                                  - started)
    return fcheck.FairSearch(product, condition, lasso, statistics=c_stats,
                             events_seen=result.events_seen,
                             annotations_seen=result.annotations_seen)


def _replay_keys(engine_c: Any, system: TransitionSystem, space: Any, product: Any,
                 result: Any) -> tuple[Callable[[int], Any], list[Any], list[Any]]:
    """Return (the key of a Python product node, the C search's path and part as such
    keys) for ``_replay_c_result``: a node's system state without its hidden
    variables (each product keeps the first value it reached) and its automaton state.

    The C engine's keys are canonical int tuples (``PackedLayout.canonical``). For a
    static layout without library values the canonical state is the Python state, so
    the path and part are packed once (``fairness.packed.pack_state``, canonical: equal
    states, equal bytes) and a node's key is its interned bytes, read without unpacking
    it: at 10,000 instances each of 20,003 successors would otherwise be unpacked and
    copied twice (issue 13, le_pl N = 10,000: seconds). Else every node is unpacked
    and made canonical."""
    packed = engine_c.compile_model(system).packed
    hidden = engine_c.hidden_slots(space)
    states = product.sys_states
    if not packed.dynamic and not packed.library_slots and hidden == 0:
        pack_state = importlib.import_module("bridge.fairness.packed").pack_state
        path = [(pack_state(values), q) for values, q in result.path]
        part = [(pack_state(values), q) for values, q in result.part]
        # tag 4 (marshal): a value that is not an int, whose packing tells bool from int
        if all(k[0][-1] != 4 for k in path + part):
            return (lambda n: (states.packed[product.node_sys[n]], product.node_q[n]),
                    path, part)
    keys: dict[int, tuple[tuple[int, ...], int]] = {}

    def key(n: int) -> tuple[tuple[int, ...], int]:
        hit = keys.get(n)
        if hit is None:
            state = states[product.node_sys[n]]
            hit = keys[n] = (tuple(packed.canonical(space, state)[hidden:]), product.node_q[n])
        return hit

    return key, list(result.path), list(result.part)


def _certified_part(fcheck: Any, product: Any, condition: Any, result: Any, initial: int,
                    edges: list[tuple[int, int, int]], start: int, deadline: float | None,
                    started: float) -> Any:
    """Return the ``FairSearch`` of a large strong globally fair part reported and
    checked as a whole by the C engine (``result.part_check``, ``engine_c.PartCheck``:
    closed under steps per system state, strongly connected, accepting; paper 001
    Lemma 2; the C twin of ``fairness.terminal``) instead of through a lasso whose loop
    would take every step of it: a VIOLATED verdict whose trace is the path into the
    part (``edges`` from ``initial``, already replayed on the Python product) and whose
    reason describes the part. In a symmetry quotient the path is lifted to a run of
    the model (``_lift_quotient_part``) when every node of the part takes all its steps
    inside it; otherwise the trace is the quotient's and ``_with_counterexample``
    searches the full state space. Raises ``EngineDisagreement`` when the part is not
    fair and accepting. The statistics' seconds are the C search's, the C check's and
    this replay's (since ``started``, a ``time.perf_counter()``)."""
    from bridge.semantics.trace import make_trace

    engine_c = importlib.import_module("bridge.engine_c")
    found = result.part_check
    if found.nodes != result.part_size:
        raise engine_c.EngineDisagreement(
            "the C engine's fair part is not strongly connected (its check reached "
            f"{found.nodes} of its {result.part_size} nodes)")
    if not found.fair_accepting:
        raise engine_c.EngineDisagreement(
            f"the C engine's fair part is not fair and accepting ({found.problem})")
    condition.clear_caches()
    space = product.space
    size = (f"{found.nodes} product states, {found.system_states} system states, "
            f"{found.edges} edges")
    checked = ("checked by the C engine: closed under steps, strongly connected, "
               "accepting; paper 001 Lemma 2; the path into it replayed on the Python "
               "semantics")
    path = product.system_path(edges)
    start_state = product.sys_states[product.node_sys[initial]]
    lifted_run = _is_quotient(space) and found.node_closed
    if lifted_run:
        concrete, lifted = _lift_quotient_part(space, path, deadline)
        trace = make_trace(space, concrete, lifted)
        reason = (f"acceptance cycle: the trace reaches the preimage of a terminal accepting "
                  f"component of the symmetry quotient ({size}; {checked}; every node takes "
                  f"all its steps inside it), where a fair loop takes every step of a "
                  f"terminal component of the model (paper 001 Theorem 4); the trace is "
                  f"lifted from the symmetry quotient (Lemma 1); the loop is not printed")
    else:
        trace = make_trace(space, start_state, path)
        reason = (f"acceptance cycle: the trace reaches a terminal accepting component "
                  f"({size}; {checked}); the fair loop takes every step of it and is not "
                  f"printed")
    stats = dataclasses.replace(
        result.statistics, seconds=result.statistics.seconds + found.seconds
        + time.perf_counter() - started,
        extra=result.statistics.extra + (("part_check_seconds", round(found.seconds, 3)),))
    return fcheck.FairSearch(product, early=(
        Outcome.VIOLATED, reason, {"trace": trace, "lifted": lifted_run}), statistics=stats,
        part_start=start)


def _lift_quotient_part(space: Any, path: list[Any], deadline: float | None
                        ) -> tuple[Any, list[Any]]:
    """Return ``(initial state, steps)`` of a run of the model that the quotient path
    ``path`` (``(Step, representative)`` pairs from the quotient's initial state)
    represents (paper 001 Lemma 1, ``SymmetryReduction.concretize``).

    Why its last state starts a fair accepting run when the quotient part ``P`` at the
    end of ``path`` is strongly connected, accepting and closed per node (every node
    ``(r, q)`` of ``P`` takes each step of ``r`` on an edge inside ``P``): let ``H`` be
    the nodes ``(s, q)`` of the full product with ``(rep(s), q)`` in ``P``. For ``s = g r``
    a step ``s -> g t`` is the image of a step ``r -> t`` (``g`` is an automorphism, the
    formula's atoms are invariant; in a Promela layout too: detection refuses families
    whose processes can finish, so members never die, and processes started by ``run``
    are invariant), so every node of ``H`` takes each of its steps on an
    edge inside ``H``, with the acceptance of the quotient edge. A terminal SCC ``C`` of
    ``H`` reachable from the run's last node therefore takes every step of its states
    (fair, 000 Def. 4), and its projection is closed under ``P``'s edges, hence all of
    ``P`` (strongly connected), so ``C`` meets every acceptance set ``P`` meets: the
    walk covering ``C``'s edges is a fair accepting loop (001 Lemma 2)."""
    try:
        concrete, prefix, _loop = space.concretize(path, deadline=deadline)
    except TimeoutError:
        product_room = importlib.import_module("bridge.fairness.product")
        raise product_room.LimitReached("time") from None
    return concrete, prefix


def _fair_on_c(run: Callable[..., Verdict], system: TransitionSystem, prop: Property,
               settings: Any, options: CheckOptions, notes: list[str], space: Any = None
               ) -> Verdict:
    """Return ``run``'s verdict (``check_ltl``, ``check_never`` or
    ``check_label_cycles``) with the compiled engine's fair search (``_c_fair_search``):
    with ``auto`` and a library not built yet, the Python engine first tries
    ``AUTO_PYTHON_STATES`` states. ``space``: a symmetry quotient to search (LTL only;
    a violation there is searched again in full for a counterexample, with what is
    left of the timeout)."""
    action = space.group_action() if space is not None else None
    # The C generator built the model's state space already (``generate_model``); the
    # Python side (warm-up, replay) uses that one instead of building it again
    # (seconds at 10,000 instances, issue 13).
    full = _generated_space(system)
    warm = _warm_up_limit(system, options)
    if warm is not None and (options.max_states is None or options.max_states > warm):
        verdict = run(system, prop, dataclasses.replace(settings, max_states=warm),
                      space=space if space is not None else full)
        if verdict.reason != "state limit reached before a verdict":
            return _with_counterexample(verdict, space, lambda: run(system, prop, settings,
                                                                    space=full))
    started = time.perf_counter()
    verdict = run(system, prop, settings, space=space if space is not None else full,
                  search=_c_fair_search(system, prop, options, notes, action))
    # the full search for a counterexample gets what is left of --timeout
    return _with_counterexample(verdict, space, lambda: run(
        system, prop, dataclasses.replace(settings, timeout=_remaining(options, started)),
        space=full, search=_c_fair_search(system, prop, options, notes)))
