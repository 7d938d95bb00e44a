"""Run the compiled engine: supports, explore, check (issue 12; DESIGN.md section 7).

``supports(system, prop)`` answers before anything runs (STYLE.md section 2, Storm's
``canHandle``): the C engine checks deadlock freedom, non-termination, Promela safety
(assertions and invalid end states), invariants, ``reaches`` (with min/max), CSP#'s
``deterministic`` and ``divergencefree``, and explores; LTL assertions, never claims
and SPIN's non-progress and acceptance cycles go to the C fair search
(``ltl_supports``, ``fair_search_c``: every fairness notion, with annotations; a
claim's guards are compiled expressions, ``np_`` and "some instance at an accept
location" generated predicates, ``LabelAtom``); any construct the generator does not
translate goes to the Python engine.

``explore_c``/``check_property_c`` give the same results as
``semantics.explore.explore``/``check_property``: same counts, same verdicts, and the
trace is replayed on the Python semantics from the states the C core returns (each C
step is matched against the Python successors of the previous state, so a trace is a
real run of the reference semantics; a mismatch is reported as an engine disagreement,
never printed as a counterexample). A model error (failed assert, index out of range,
division by zero, ...) met by the C engine is re-raised by the Python engine on the
same state, so kinds and messages are exactly the Python engine's. When a value leaves
what the C representation holds (64-bit arithmetic, a packed slot), the search stops
with ``CFallback`` and the caller runs the Python engine instead.
"""

from __future__ import annotations

import ctypes
import dataclasses
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bridge.diagnostics import (
    BackendError,
    BridgeError,
    ModelRuntimeError,
    ResourceLimitReached,
    UnsupportedError,
)
from bridge.engine_c.build import build_library, find_compiler, library_cached
from bridge.engine_c.codegen import CUnsupported, generate, lean_source
from bridge.engine_c.gen_base import MAX_PROCESSES
from bridge.engine_c.layout import PackedLayout, mixed_value
from bridge.ir import (
    Expr,
    Fairness,
    Lasso,
    Outcome,
    Property,
    PropertyKind,
    Statistics,
    Trace,
    TransitionSystem,
    Verdict,
)
from bridge.ir.model import FairnessMark
from bridge.ir.property import Ltl, LtlEvent, LtlState, ltl_nodes
from bridge.semantics.explore import nondeterministic_event
from bridge.semantics.pidshare import shared_pid_marks
from bridge.semantics.statespace import CompiledStateSpace, build_state_space
from bridge.semantics.successors import StateVector, Step
from bridge.semantics.trace import make_steps, make_trace

Progress = Callable[[int, int, float], None]

SUPPORTED_KINDS = frozenset({
    PropertyKind.DEADLOCK_FREE, PropertyKind.NONTERMINATING, PropertyKind.SAFETY,
    PropertyKind.INVARIANT, PropertyKind.REACHES, PropertyKind.DETERMINISTIC,
    PropertyKind.DIVERGENCE_FREE,
})

# The kinds the C fair search checks (ltl_supports, fair_search_c)
FAIR_SEARCH_KINDS = frozenset({PropertyKind.LTL, PropertyKind.NEVER, PropertyKind.NON_PROGRESS,
                               PropertyKind.ACCEPTANCE})

_MODES = {PropertyKind.DEADLOCK_FREE: 1, PropertyKind.NONTERMINATING: 2,
          PropertyKind.SAFETY: 3, PropertyKind.INVARIANT: 4, PropertyKind.REACHES: 5,
          PropertyKind.DETERMINISTIC: 9, PropertyKind.DIVERGENCE_FREE: 10}
_FOUND_REASONS = {1: "deadlock", 2: "terminated", 3: "invalid end state",
                  4: "invariant violated", 5: "reached"}
_FOUND_NONDETERMINISTIC, _FOUND_DIVERGENCE = 6, 7
_PROGRESS = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64, ctypes.c_int64, ctypes.c_double)


class _Params(ctypes.Structure):
    _fields_ = [("max_states", ctypes.c_int64), ("timeout", ctypes.c_double),
                ("max_memory", ctypes.c_int64), ("mode", ctypes.c_int32),
                ("ignore_end", ctypes.c_int32), ("pred", ctypes.c_int32),
                ("value", ctypes.c_int32), ("progress", _PROGRESS)]


class _Result(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int32), ("limit_kind", ctypes.c_int32),
                ("found_kind", ctypes.c_int32), ("in_predicate", ctypes.c_int32),
                ("state", ctypes.c_int64), ("states", ctypes.c_int64),
                ("transitions", ctypes.c_int64), ("depth", ctypes.c_int64),
                ("explored", ctypes.c_int64), ("best_state", ctypes.c_int64),
                ("best_value", ctypes.c_int64), ("memory_bytes", ctypes.c_int64),
                ("seconds", ctypes.c_double)]


_DONE, _FOUND, _MODEL_ERROR, _LIMIT, _FALLBACK = range(5)


class CFallback(BridgeError):
    """The C engine cannot finish this search exactly (the message says why); run the
    Python engine instead."""


class EngineDisagreement(BridgeError):
    """The C engine and the Python reference semantics disagree on a state: a bug."""


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """Limits of one C search: ``max_memory`` in bytes bounds the state store."""

    max_states: int | None = None
    timeout: float | None = None
    max_memory: int | None = None
    ignore_end_states: bool = False
    progress: Progress | bool | None = None


@dataclass
class CompiledModel:
    """A system compiled for the C engine: the Python state space (reference semantics,
    initial state, traces), the packed layout, the library and its expression table."""

    system: TransitionSystem
    space: CompiledStateSpace
    packed: PackedLayout
    library: Any
    expressions: dict[Expr, int]
    compile_seconds: float
    cached: bool
    initial: bytes = b""
    notes: list[str] = field(default_factory=list)
    # the library holds the fair search (``search_ltl.c``), not only the BFS searches
    ltl: bool = True


@dataclass(frozen=True, slots=True)
class LabelAtom:
    """A proposition of the C fair search over the location slots of the running
    instances (Promela ``run`` included), generated in C (``gen_tables``): ``"np_"`` is
    SPIN's ``np_`` (no instance at a progress location) in a state with a step, false
    where the run ends (``fairness.cycles``: pan's ``np_`` is false on the stutter
    step); ``"accept"``: some instance is at an accept location."""

    kind: str


# Their codes in search_ltl.c's ap_expr (BR_AP_NP, BR_AP_ACCEPT)
_LABEL_ATOM_CODES = {"np_": -2, "accept": -3}


def claim_guards(system: TransitionSystem) -> list[Expr]:
    """Return the guard expressions of the never claim's edges (no ``else``), in edge
    order, then the conditions of its asserts: the propositions of the claim's
    automaton (``fairness.never``)."""
    from bridge.ir.expr import AssertStmt, ElseGuard

    if system.never is None:
        return []
    return [e.guard for e in system.never.edges
            if e.guard is not None and not isinstance(e.guard, ElseGuard)] + \
        [x.cond for e in system.never.edges for x in e.effect if isinstance(x, AssertStmt)]


def ltl_state_atoms(formula: Ltl) -> list[Expr]:
    """Return the expressions of the state atoms of ``formula``, in first-seen order."""
    return [node.expr for node in ltl_nodes(formula) if isinstance(node, LtlState)]


def _expressions(system: TransitionSystem) -> list[Expr]:
    found: list[Expr] = []
    for prop in system.properties:
        if prop.kind is PropertyKind.LTL and prop.formula is not None:
            found.extend(ltl_state_atoms(prop.formula))
    found.extend(claim_guards(system))
    for prop in system.properties:
        if prop.condition is not None:
            found.append(prop.condition)
        if prop.optimise is not None:
            found.append(prop.optimise[1])
    found.extend(p.expr for p in system.propositions)
    unique: list[Expr] = []
    for e in found:
        if e not in unique:
            unique.append(e)
    return unique


@dataclass
class GeneratedModel:
    """A system translated to C, not yet compiled: the Python state space, the source,
    the packed layout, the expression table, the packed initial state and how many
    process templates or static instances got code of their own (``codegen.generate``:
    what the compiler's time grows with)."""

    space: CompiledStateSpace
    source: str
    packed: PackedLayout
    expressions: dict[Expr, int]
    initial: bytes
    own_code: int = 0


_GENERATED: dict[int, tuple[TransitionSystem, GeneratedModel | str]] = {}
_COMPILED: dict[int, tuple[TransitionSystem, CompiledModel | str]] = {}


def _cached(table: dict, system: TransitionSystem, make: Callable[[TransitionSystem], Any]) -> Any:
    """Return ``make(system)`` remembered per system object (a refusal too)."""
    hit = table.get(id(system))
    if hit is not None and hit[0] is system:
        if isinstance(hit[1], str):
            raise CUnsupported(hit[1])
        return hit[1]
    if len(table) > 64:
        table.clear()
    try:
        value = make(system)
    except CUnsupported as why:
        table[id(system)] = (system, str(why))
        raise
    table[id(system)] = (system, value)
    return value


def generate_model(system: TransitionSystem) -> GeneratedModel:
    """Return ``system`` translated to C (no compiler runs); raises ``CUnsupported``
    with the reason when the C engine cannot take it."""
    return _cached(_GENERATED, system, _generate)


def compile_model(system: TransitionSystem, ltl: bool = False,
                  timeout: float | None = None) -> CompiledModel:
    """Return the compiled model of ``system`` (cached in this process and on disk);
    raises ``CUnsupported`` with the reason when the C engine cannot take it.

    ``ltl``: the fair search (``fair_search_c``) will run on it. A system none of whose
    properties needs the fair search gets a library without its code (``lean_source``:
    a quarter of the compile time of a small model) unless the whole library is built
    already; a fair search asked for later builds the whole one. ``timeout``: the run's
    time limit, which stops a compilation still running (``ResourceLimitReached``)."""
    model: CompiledModel = _cached(_COMPILED, system,
                                   lambda s: _compile(s, timeout=timeout))
    if ltl and not model.ltl:
        model = _compile(system, whole=True, timeout=timeout)
        _COMPILED[id(system)] = (system, model)
    return model


def _compiled_within(system: TransitionSystem, options: SearchOptions, ltl: bool = False
                     ) -> tuple[CompiledModel, SearchOptions]:
    """Return ``system`` compiled within ``options.timeout`` (``compile_model``) and the
    options of the search that follows, whose time limit is what the compiling left."""
    started = time.perf_counter()
    model = compile_model(system, ltl=ltl, timeout=options.timeout)
    if options.timeout is not None:
        left = max(0.001, options.timeout - (time.perf_counter() - started))
        options = dataclasses.replace(options, timeout=left)
    return model, options


def needs_fair_search(system: TransitionSystem) -> bool:
    """Return True when a property of ``system`` is checked by the C fair search (its
    library is then built whole at once, never lean and then whole)."""
    return system.never is not None or any(
        p.kind in FAIR_SEARCH_KINDS for p in system.properties)


def own_code_count(system: TransitionSystem) -> int:
    """Return how many process templates or static instances of ``system`` get C code of
    their own (``GeneratedModel.own_code``; generates the source, remembered, without
    compiling it); raises ``CUnsupported`` when the C engine cannot take the model."""
    return generate_model(system).own_code


def is_compiled(system: TransitionSystem) -> bool:
    """Return True when the library of ``system`` is already built (this process or the
    disk cache), so a C search starts without compiling."""
    try:
        source = generate_model(system).source
    except CUnsupported:
        return False
    return library_cached(source) or (
        not needs_fair_search(system) and library_cached(lean_source(source)))


def _generate(system: TransitionSystem) -> GeneratedModel:
    if find_compiler() is None:
        raise CUnsupported("no C compiler found (looked for $CC, cc, gcc)")
    space = build_state_space(system)  # UnsupportedError / ModelRuntimeError go up
    expressions = _expressions(system)
    try:
        source, ok, packed, own_code = generate(space, expressions)
    except CUnsupported:
        raise
    except (KeyError, AttributeError, TypeError, ValueError, IndexError,
            AssertionError) as error:
        # a shape of IR the generator was not written for: refuse, never crash
        raise CUnsupported(f"a construct the C generator does not handle "
                           f"({type(error).__name__}: {error})") from None
    canonical = packed.canonical(space, space.initial_states()[0])
    try:
        initial = packed.pack(canonical)
    except ValueError:
        raise CUnsupported(_unpackable_initial_value(space, packed, canonical)) from None
    table = {e: k for k, e in enumerate(expressions) if ok[k]}
    return GeneratedModel(space, source, packed, table, initial, own_code)


def _unpackable_initial_value(space: CompiledStateSpace, packed: PackedLayout,
                              values: list[Any]) -> str:
    """Return the refusal naming the first value of the initial state ``values`` that
    its packed slot cannot hold (``PackedLayout.pack`` refused it): the variable (a
    global one by name and declaration, with the cell of an array) and the value."""
    fmt, _ = packed._format(values)

    def fits(code: str, value: Any) -> bool:
        try:
            struct.pack("<" + code, value)
        except (struct.error, TypeError):
            return False
        return True

    bad = next((i for i, (code, value) in enumerate(zip(fmt[1:], values, strict=False))
                if not fits(code, value)), None)
    if bad is None:
        return "the initial state has a value outside its packed slot"
    where = f"slot {bad}"
    for slot in space.layout.globals.values():
        if slot.offset <= bad < slot.offset + slot.size:
            cell = f"[{bad - slot.offset}]" if slot.size > 1 else ""
            where = f"'{slot.name}{cell}'"
            declared = next((v.span for v in space.system.globals if v.name == slot.name), None)
            if declared is not None:
                where += f" (declared at {declared})"
    return (f"the initial value {values[bad]!r} of {where}, which its packed slot of "
            f"{struct.calcsize('<' + fmt[1 + bad])} bytes cannot hold")


def _compile(system: TransitionSystem, whole: bool = False,
             timeout: float | None = None) -> CompiledModel:
    generated = generate_model(system)
    source = generated.source
    whole = whole or needs_fair_search(system) or library_cached(source)
    try:
        library = build_library(source if whole else lean_source(source), timeout)
    except BackendError as error:
        raise CUnsupported(f"a model the C compiler rejected ({error})") from None
    handle = _type_library(library.handle)
    return CompiledModel(system, generated.space, generated.packed, handle,
                         generated.expressions, library.compile_seconds, library.cached,
                         generated.initial, ltl=whole)


def vector_buffer(model: CompiledModel, extra: int = 0) -> Any:
    """Return a buffer for a state vector of ``model`` (its longest, BR_MAXVEC, which may
    pass 65,535 bytes) and ``extra`` bytes more."""
    return ctypes.create_string_buffer(max(1, model.library.bridge_max_vector()) + extra)


def _type_library(lib: Any) -> Any:
    """Return ``lib`` (a loaded model library) with the ctypes signatures of every
    function the driver calls (``templates/c/search_bfs.c``, ``search_ltl.c``; a lean
    library, ``compile_model``, has no ``bridge_ltl_*`` functions)."""
    void_p, i32, i64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64
    signatures: dict[str, tuple[Any, list[Any]]] = {
        "bridge_search": (void_p, [ctypes.POINTER(_Params), ctypes.c_char_p, ctypes.c_uint32,
                                   ctypes.POINTER(_Result)]),
        "bridge_parent": (i64, [void_p, i64]),
        "bridge_state": (ctypes.c_uint32, [void_p, i64, ctypes.c_char_p, ctypes.c_uint32]),
        "bridge_free": (None, [void_p]),
        "bridge_lib_value": (i64, [void_p, i64, ctypes.POINTER(i64), i64]),
        "bridge_cycle_length": (i64, [void_p]),
        "bridge_cycle_step": (i64, [void_p, i64, ctypes.POINTER(i64)]),
        "bridge_event_name": (ctypes.c_char_p, [i32]),
        "bridge_event_count": (i32, []),
        "bridge_event_intern": (i32, [ctypes.c_char_p]),
        "bridge_process_words": (i32, []),
        "bridge_max_vector": (ctypes.c_uint32, []),
        "bridge_ltl_search": (void_p, [ctypes.POINTER(_LtlParams), ctypes.c_char_p,
                                       ctypes.c_uint32, ctypes.POINTER(_LtlResult)]),
        "bridge_ltl_part": (i32, [void_p, i64]),
        "bridge_ltl_path": (i32, [void_p, i64]),
        "bridge_ltl_node": (i64, [void_p, i64, ctypes.POINTER(i32)]),
        "bridge_ltl_free": (None, [void_p]),
        "bridge_ltl_check_part": (i32, [void_p, ctypes.POINTER(_LtlParams),
                                        ctypes.POINTER(i32), i64, ctypes.c_double,
                                        ctypes.POINTER(_PartCheck)]),
    }
    whole = hasattr(lib, "bridge_ltl_search")  # a lean library has no fair search
    for name, (restype, argtypes) in signatures.items():
        if name.startswith("bridge_ltl_") and not whole:
            continue
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


def supports(system: TransitionSystem, prop: Property | None = None) -> tuple[bool, str]:
    """Return ``(True, "")`` when the C engine can run this task, else ``(False, why)``.

    ``prop`` None asks about exploring the state space. Generates the C source
    (remembered) to find out, since only the generator knows every construct it
    translates; the compiler does not run.
    """
    if prop is not None and prop.kind not in SUPPORTED_KINDS:
        if prop.kind in FAIR_SEARCH_KINDS:
            return False, f"{prop.kind.value} properties go to the C fair search (ltl_supports)"
        return False, f"the C engine does not check '{prop.kind.value}' properties"
    try:
        model = generate_model(system)
    except CUnsupported as why:
        return False, f"the C engine does not translate {why}"
    except (UnsupportedError, ModelRuntimeError) as error:
        return False, f"the Python engine rejects the model ({error})"
    if prop is not None:
        for e in (prop.condition, prop.optimise[1] if prop.optimise else None):
            if e is not None and e not in model.expressions:
                return False, "the C engine does not translate the property's expression"
    return True, ""


# ---------------------------------------------------------------------------------
# Running


@dataclass
class _Run:
    model: CompiledModel
    result: _Result
    handle: int | None
    wall: float

    def close(self) -> None:
        if self.handle:
            self.model.library.bridge_free(self.handle)
            self.handle = None

    def statistics(self) -> Statistics:
        r = self.result
        per_state = r.memory_bytes / r.states if r.states else 0.0
        rate = r.states / r.seconds if r.seconds > 0 else 0.0
        return Statistics(
            states=r.states, transitions=r.transitions, seconds=r.seconds,
            peak_memory_bytes=r.memory_bytes, depth=r.depth,
            extra=(("bytes_per_state", round(per_state, 1)),
                   ("states_per_second", round(rate)), ("engine", "c"),
                   ("compile_seconds", round(self.model.compile_seconds, 3))))

    def vector(self, sid: int) -> list[Any]:
        buf = vector_buffer(self.model)
        n = self.model.library.bridge_state(self.handle, sid, buf, len(buf))
        if n == 0:
            raise EngineDisagreement(f"C engine: no state {sid}")
        return library_values(self.model, self.handle, self.model.packed.unpack(buf.raw[:n]))

    def path_ids(self, sid: int) -> list[int]:
        ids = [sid]
        while True:
            parent = self.model.library.bridge_parent(self.handle, ids[-1])
            if parent < 0:
                break
            ids.append(parent)
        ids.reverse()
        return ids

    def replay(self, sid: int) -> tuple[list[tuple[Step, StateVector]], StateVector]:
        """Return the Python path to C state ``sid`` and the Python state reached."""
        space = self.model.space
        packed = self.model.packed
        ids = self.path_ids(sid)
        state = space.initial_states()[0]
        if packed.canonical(space, state) != self.vector(ids[0]):
            raise EngineDisagreement("the C engine's initial state differs from the Python one")
        path: list[tuple[Step, StateVector]] = []
        for nid in ids[1:]:
            want = self.vector(nid)
            for step, nxt in space.successors(state):
                if packed.canonical(space, nxt) == want:
                    path.append((step, nxt))
                    state = nxt
                    break
            else:
                raise EngineDisagreement(
                    f"a step of the C engine's trace (state {nid}) is not a step of the "
                    "Python semantics")
        return path, state

    def trace(self, sid: int) -> Trace:
        path, _ = self.replay(sid)
        space = self.model.space
        return make_trace(space, space.initial_states()[0], path)


def library_values(model: CompiledModel, handle: int | None, values: list[Any]) -> list[Any]:
    """Return the canonical list of a C state with each library id (``templates/c/
    library.c``, in the table of search ``handle``) replaced by the Python engine's
    tuple of that value (``semantics/library.py``: a HashTable's pairs as pairs), so
    it compares with ``PackedLayout.canonical`` of a Python state."""
    slots, mixed = model.packed.value_slots(values)
    if not slots and not mixed:
        return values
    cache: dict[int, tuple] = {}
    lib = model.library

    def value_of(vid: int) -> tuple:
        value = cache.get(vid)
        if value is None:
            out = (ctypes.c_int64 * 64)()
            code = lib.bridge_lib_value(handle, vid, out, 64)
            if code >> 2 > 64:  # longer: again with room for all of it
                out = (ctypes.c_int64 * (code >> 2))()
                code = lib.bridge_lib_value(handle, vid, out, code >> 2)
            if code < 0:
                raise EngineDisagreement(f"C engine: no library value {vid}")
            items = list(out[: code >> 2])
            kind = code & 3  # 1: a HashTable's pairs; 2: an array's mixed cells
            value = tuple(zip(items[::2], items[1::2], strict=True)) if kind == 1 \
                else tuple(mixed_value(v, value_of) for v in items) if kind == 2 \
                else tuple(items)
            cache[vid] = value
        return value

    for i in slots:
        values[i] = value_of(values[i])
    for i in mixed:
        values[i] = mixed_value(values[i], value_of)
    return values


def _search(model: CompiledModel, mode: int, options: SearchOptions, pred: int = -1,
            value: int = -1) -> _Run:
    params = _Params()
    params.max_states = options.max_states or 0
    params.timeout = options.timeout or 0.0
    params.max_memory = options.max_memory or 0
    params.mode = mode
    params.ignore_end = int(options.ignore_end_states)
    params.pred = pred
    params.value = value
    _report, interrupted, callback = _progress_callback(options)
    params.progress = callback
    result = _Result()
    started = time.perf_counter()
    handle = model.library.bridge_search(ctypes.byref(params), model.initial,
                                         len(model.initial), ctypes.byref(result))
    run = _Run(model, result, handle, time.perf_counter() - started)
    del callback
    if interrupted:
        run.close()
        raise interrupted[0]
    if result.status == _FALLBACK:
        run.close()
        if result.found_kind == _FOUND_NONDETERMINISTIC:
            raise CFallback(UNNAMED_EVENT)
        raise CFallback("a value left what the C engine represents (64-bit arithmetic or a "
                        "packed state slot); the Python engine (unbounded integers) ran it")
    return run


def _progress_callback(options: SearchOptions) -> tuple[Any, list[BaseException], Any]:
    """Return ``(report, interrupted, callback)``: the C core calls ``callback`` about
    every 1024 states: the progress line (about once a second) and a chance for Python
    to see Ctrl-C, which stops the search (``interrupted`` then holds it)."""
    report = None
    if options.progress:
        report = options.progress if callable(options.progress) else _print_progress
    interrupted: list[BaseException] = []
    last = [time.perf_counter()]

    def _call(states: int, transitions: int, seconds: float) -> int:
        try:
            if report is not None and time.perf_counter() - last[0] >= 1.0:
                last[0] = time.perf_counter()
                report(int(states), int(transitions), float(seconds))
        except KeyboardInterrupt as stop:
            interrupted.append(stop)
            return 1
        except Exception:  # noqa: BLE001 - a broken progress line must not kill a search
            pass
        return 0

    return report, interrupted, _PROGRESS(_call)


def _print_progress(states: int, transitions: int, seconds: float) -> None:
    import sys

    rate = states / seconds if seconds > 0 else 0.0
    print(f"bridge: {states} states, {transitions} transitions, {seconds:.1f}s, "
          f"{rate:,.0f} states/s", file=sys.stderr, flush=True)


def _limit_reason(kind: int, options: SearchOptions) -> str:
    """Return the reason of a C search's limit ``kind`` (``BR_LIMIT_*``)."""
    if kind == 1:
        return f"state limit {options.max_states} reached"
    if kind == 2:
        return f"time limit {options.timeout}s reached"
    if options.max_memory:
        return f"memory limit {options.max_memory} bytes reached"
    return "out of memory (the state store could not grow)"


def _python_error(run: _Run, sid: int, prop: Property | None) -> tuple[ModelRuntimeError, Trace]:
    """Return the Python engine's error on C state ``sid`` and the trace to it."""
    path, state = run.replay(sid)
    space = run.model.space
    trace = make_trace(space, space.initial_states()[0], path)
    try:
        space.successors(state)
        if run.result.in_predicate and prop is not None:
            if prop.condition is not None and space.predicate(prop.condition)(state) \
                    and prop.optimise is not None:
                space.evaluator(prop.optimise[1])(state)
    except ModelRuntimeError as error:
        return error, trace
    raise EngineDisagreement(f"the C engine met a model error in state {sid} that the "
                             "Python engine does not")


def explore_c(system: TransitionSystem, options: SearchOptions = SearchOptions()) -> Statistics:
    """Return the statistics of a full breadth-first exploration by the C engine
    (``semantics.explore.explore``'s contract: ``ResourceLimitReached`` with the
    statistics at a limit, the Python engine's ``ModelRuntimeError`` at a model error,
    ``CFallback`` when the Python engine must run it)."""
    model, options = _compiled_within(system, options)
    run = _search(model, 0, options)
    try:
        if run.result.status == _LIMIT:
            raise ResourceLimitReached(_limit_reason(run.result.limit_kind, options), run.statistics())
        if run.result.status == _MODEL_ERROR:
            # explore keeps no parents: search again with them to replay the path
            run.close()
            run = _search(model, 8, options)  # explore, keeping parent links
            if run.result.status != _MODEL_ERROR:
                raise EngineDisagreement("the C engine's model error did not reproduce")
            error, _ = _python_error(run, run.result.state, None)
            raise error
        return run.statistics()
    finally:
        run.close()


def check_property_c(system: TransitionSystem, prop: Property,
                     options: SearchOptions = SearchOptions()) -> Verdict:
    """Return the verdict of a non-LTL property by the C engine
    (``semantics.explore.check_property``'s contract and verdicts)."""
    model, options = _compiled_within(system, options)
    mode = _MODES[prop.kind]
    pred = value = -1
    if prop.kind in (PropertyKind.INVARIANT, PropertyKind.REACHES):
        if prop.condition is None:
            from bridge.diagnostics import ConfigurationError

            raise ConfigurationError(f"property '{prop.name}' has no condition")
        pred = model.expressions[prop.condition]
        if prop.kind is PropertyKind.REACHES and prop.optimise is not None:
            direction, expr = prop.optimise
            if direction not in ("min", "max"):
                from bridge.diagnostics import ConfigurationError

                raise ConfigurationError(
                    f"unknown optimisation '{direction}'; expected 'min' or 'max'")
            mode = 6 if direction == "min" else 7
            value = model.expressions[expr]
    run = _search(model, mode, options, pred, value)
    try:
        return _verdict_of(run, prop, options)
    finally:
        run.close()


def _verdict_of(run: _Run, prop: Property, options: SearchOptions) -> Verdict:
    r = run.result
    name = run.model.system.name

    def verdict(outcome: Outcome, reason: str, trace: Trace | None = None,
                lasso: Lasso | None = None, **kw: Any) -> Verdict:
        return Verdict(name, prop.name, outcome, reason, "none", trace, lasso,
                       run.statistics(), **kw)

    if r.status == _LIMIT:
        return verdict(Outcome.UNKNOWN, _limit_reason(run.result.limit_kind, options))
    if r.status == _MODEL_ERROR:
        error, trace = _python_error(run, r.state, prop)
        return verdict(Outcome.VIOLATED, error.kind, trace, notes=(str(error),))
    if r.status == _FOUND and r.found_kind == _FOUND_NONDETERMINISTIC:
        path, state = run.replay(r.state)
        space = run.model.space
        event = nondeterministic_event(space, space.successors(state))
        if event is None:
            raise EngineDisagreement(f"the C engine found state {r.state} nondeterministic; "
                                     "the Python semantics does not")
        trace = make_trace(space, space.initial_states()[0], path)
        return verdict(Outcome.VIOLATED, f"nondeterministic on event '{event}'", trace)
    if r.status == _FOUND and r.found_kind == _FOUND_DIVERGENCE:
        trace = run.trace(r.state)
        return verdict(Outcome.VIOLATED, "divergence", trace,
                       lasso=Lasso(trace, _tau_loop(run)))
    if r.status == _FOUND:
        trace = run.trace(r.state)
        reason = _FOUND_REASONS[r.found_kind]
        if prop.kind is PropertyKind.REACHES:
            return verdict(Outcome.HOLDS, reason, trace)
        return verdict(Outcome.VIOLATED, reason, trace)
    if prop.kind is PropertyKind.REACHES:
        if r.best_state >= 0:
            return verdict(Outcome.HOLDS, "reached", run.trace(r.best_state),
                           value=_best_value(run, prop))
        return verdict(Outcome.VIOLATED, "condition not reachable")
    return verdict(Outcome.HOLDS, "")


def _tau_loop(run: _Run) -> tuple:
    """Return the steps of the tau cycle the C search found (divergencefree), replayed
    on the Python semantics as ``check_property`` shows it: each step is the first
    internal step of its source's stored state to a state with the key of its target,
    and shows that target's stored state (the first one reached, as the Python engine
    keeps it)."""
    lib = run.model.library
    space = run.model.space
    packed = run.model.packed
    hidden = hidden_slots(space)
    stored: dict[int, StateVector] = {}

    def state_of(sid: int) -> StateVector:
        if sid not in stored:
            stored[sid] = run.replay(sid)[1]
        return stored[sid]

    dst = ctypes.c_int64()
    loop: list[tuple[Step, StateVector]] = []
    entry = at = lib.bridge_cycle_step(run.handle, 0, ctypes.byref(dst))
    for k in range(lib.bridge_cycle_length(run.handle)):
        src = lib.bridge_cycle_step(run.handle, k, ctypes.byref(dst))
        if src != at:
            raise EngineDisagreement("the C engine's tau cycle is not a path")
        at = dst.value
        want = run.vector(dst.value)[hidden:]
        for step, nxt in space.successors(state_of(src)):
            if step.event is None and not step.stutter \
                    and packed.canonical(space, nxt)[hidden:] == want:
                loop.append((step, state_of(dst.value)))
                break
        else:
            raise EngineDisagreement(f"a tau step of the C engine's cycle (state {src} to "
                                     f"{dst.value}) is not a step of the Python semantics")
    if not loop or at != entry:
        raise EngineDisagreement("the C engine's tau cycle does not close")
    return make_steps(space, state_of(entry), loop)


def _best_value(run: _Run, prop: Property) -> Any:
    """Return the optimum as the Python engine computes it on the witness state (its
    type, bool or int, is the Python expression's)."""
    assert prop.optimise is not None
    _, state = run.replay(run.result.best_state)
    return run.model.space.evaluator(prop.optimise[1])(state)


# ---------------------------------------------------------------------------------
# The fair emptiness check of LTL properties (templates/c/search_ltl.c)

# The fairness notions the C search decides (search_ltl.c: early reports, and the
# Fig. 5 recursion for the strong ones), with their code there.
LTL_FAIRNESS = {Fairness.NONE: 0, Fairness.PROCESS_WEAK: 1, Fairness.WEAK: 2,
                Fairness.STRONG_LOCAL: 3, Fairness.PROCESS_STRONG: 4,
                Fairness.STRONG_GLOBAL: 5}
(_LTL_DONE, _LTL_FOUND, _LTL_MODEL_ERROR, _LTL_LIMIT, _LTL_FALLBACK, _LTL_UNDECIDED,
 _LTL_COMPUTED_EVENT, _LTL_MORE_PROCESSES, _LTL_MORE_ITEMS, _LTL_COMPUTED_ACTION) = range(10)
# Action sets (weak, strong-local) of at most this many 64-bit words (65536 actions)
_MAX_IWORDS = 1024


# What C still leaves unnamed (gen_events: every value of a name carries its kind, known
# when the code is generated or computed next to the value at run time; a name of any
# length is rendered): the table of names or a name out of memory, a value that is
# neither a number, a bool nor a library value (hand-built IR only).
UNNAMED_EVENT = ("the deterministic check met a step whose event name C cannot render "
                 "(of a value that is neither a number, a bool nor a library value, or "
                 "out of memory)")
COMPUTED_EVENT = ("a step's event name is computed at run time and cannot be rendered in C "
                  "(of a value that is neither a number, a bool nor a library value, or "
                  "out of memory), or every event name is an annotation unit, and "
                  "the C engine's fair search cannot match it")
COMPUTED_ACTION = ("the C engine's fair search cannot name a step's action for "
                   "event-level fairness (a CSP# event name computed at run time that C "
                   "cannot render: of a value that is neither a number, a bool nor a "
                   "library value, or out of memory; or a barrier of a model that is "
                   "not CSP#)")


class _LtlParams(ctypes.Structure):
    _fields_ = [("max_states", ctypes.c_int64), ("timeout", ctypes.c_double),
                ("max_memory", ctypes.c_int64), ("progress", _PROGRESS),
                ("nq", ctypes.c_int32), ("q0", ctypes.c_int32), ("n_ap", ctypes.c_int32),
                ("fairness", ctypes.c_int32), ("pwords", ctypes.c_int32),
                ("iwords", ctypes.c_int32), ("all_sets", ctypes.c_uint64),
                ("init_letter", ctypes.c_uint64),
                ("ap_expr", ctypes.POINTER(ctypes.c_int32)),
                ("q_edges", ctypes.POINTER(ctypes.c_int32)),
                ("e_target", ctypes.POINTER(ctypes.c_int32)),
                ("e_acc", ctypes.POINTER(ctypes.c_uint64)),
                ("e_cubes", ctypes.POINTER(ctypes.c_int32)),
                ("c_mask", ctypes.POINTER(ctypes.c_uint64)),
                ("c_value", ctypes.POINTER(ctypes.c_uint64)),
                ("event_bits", ctypes.POINTER(ctypes.c_uint64)),
                ("n_events", ctypes.c_int32), ("event_atoms", ctypes.c_int32),
                ("csp", ctypes.c_int32), ("n_units", ctypes.c_int32),
                ("n_labels", ctypes.c_int32), ("n_edge_units", ctypes.c_int32),
                ("name_units", ctypes.c_int32), ("pad3", ctypes.c_int32),
                ("ev_unit", ctypes.POINTER(ctypes.c_int32)),
                ("lab_unit", ctypes.POINTER(ctypes.c_int32)),
                ("lab_mark", ctypes.POINTER(ctypes.c_int32)),
                ("unit_mark", ctypes.POINTER(ctypes.c_int32)),
                ("eu_key", ctypes.POINTER(ctypes.c_uint64)),
                ("eu_bit", ctypes.POINTER(ctypes.c_int32)),
                ("sym", ctypes.c_void_p), ("flat_bytes", ctypes.c_int64),
                ("log_bytes", ctypes.c_int64)]


# The fair search's store keeps flat vectors up to this many bytes, then turns them
# into trees of shared pairs (templates/c/store.c; 0: the C default, 2 GB; negative:
# trees from the start). Tests set it to see both layouts.
FLAT_STORE_BYTES = 0
# The fair search logs the edges of its live nodes for paper 000's Fig. 5 in up to
# this many bytes, past which it re-expands them (search_ltl.c ls_log; 0: the C
# default, 2 GB; negative: no log). Tests set it to see both ways.
EDGE_LOG_BYTES = 0


class _SymParams(ctypes.Structure):
    """``br_sym_t`` of ``templates/c/symmetry.c``."""

    _fields_ = [("n_slots", ctypes.c_int32), ("slot_off", ctypes.POINTER(ctypes.c_int32)),
                ("slot_kind", ctypes.POINTER(ctypes.c_int32)), ("n_phases", ctypes.c_int32),
                ("phase_slot", ctypes.POINTER(ctypes.c_int32)),
                ("phase_off", ctypes.POINTER(ctypes.c_int32)),
                ("phase_done", ctypes.POINTER(ctypes.c_int64)), ("n_fam", ctypes.c_int32),
                ("fam_n", ctypes.POINTER(ctypes.c_int32)),
                ("fam_m", ctypes.POINTER(ctypes.c_int32)),
                ("cell_off", ctypes.POINTER(ctypes.c_int32)),
                ("cells", ctypes.POINTER(ctypes.c_int32)),
                ("order", ctypes.POINTER(ctypes.c_int32)),
                ("fam_nperm", ctypes.POINTER(ctypes.c_int32)),
                ("perm_off", ctypes.POINTER(ctypes.c_int32)),
                ("src", ctypes.POINTER(ctypes.c_int32)),
                ("max_cells", ctypes.c_int32), ("max_n", ctypes.c_int32),
                ("dynamic", ctypes.c_int32), ("count_slot", ctypes.c_int32),
                ("static_bytes", ctypes.c_int32),
                ("tpl_size", ctypes.POINTER(ctypes.c_int32)),
                ("tpl_first", ctypes.POINTER(ctypes.c_int32)),
                ("seg_off", ctypes.POINTER(ctypes.c_int32)),
                ("seg_kind", ctypes.POINTER(ctypes.c_int32)),
                ("fam_tpl", ctypes.POINTER(ctypes.c_int32)),
                ("fam_top", ctypes.POINTER(ctypes.c_int32)),
                ("cell_pid", ctypes.POINTER(ctypes.c_int32)),
                ("phase_tpl", ctypes.POINTER(ctypes.c_int32)),
                ("cell_byte", ctypes.POINTER(ctypes.c_int32)),
                ("cell_kind", ctypes.POINTER(ctypes.c_int32)),
                ("top", ctypes.c_int32), ("scratch_n", ctypes.c_int32)]


_KIND_CODES = {"u8": 0, "i8": 1, "u16": 2, "i16": 3, "i32": 4, "u32": 5}


def symmetry_supports(system: TransitionSystem, action: Any) -> tuple[bool, str]:
    """Return ``(True, "")`` when the C fair search can search the symmetry quotient
    given by ``action`` (a ``reductions.symmetry.GroupAction``), else ``(False, why)``."""
    try:
        _symmetry_tables(generate_model(system), action)
    except CUnsupported as why:
        return False, str(why)
    return True, ""


def _symmetry_tables(model: Any, action: Any) -> tuple[_SymParams, list[Any]]:
    """Return the ``br_sym_t`` of a group action and the arrays it points into (keep
    them alive while the search runs); raises ``CUnsupported``. A dynamic layout's
    action (``GroupAction.dynamic``) names segment cells by pid and slot: the C side
    finds them per state (``sym_canon_dynamic``)."""
    packed = model.packed
    if action.dynamic != packed.dynamic:
        raise CUnsupported("a group action of another layout")  # never: one system
    if packed.dynamic:
        table = list(zip(packed.static_offsets, packed.static_kinds, strict=True))
        initial = packed.layout.initial_templates
    else:
        table = packed.slot_table()
    hidden = hidden_slots(model.space)

    def static_slot(cell: Any) -> int | None:
        """The static slot of a cell (None: a segment cell of a dynamic layout)."""
        if not action.dynamic:
            return cell
        return cell[1] if cell[0] < 0 else None

    moved = [static_slot(c) for cells, _ in action.families for pos in cells for c in pos]
    moved = [slot for slot in moved if slot is not None]
    if any(slot < hidden or slot >= len(table) for slot in moved):
        raise CUnsupported("symmetry reduction that moves a hidden variable")
    if set(moved) & set(packed.library_slots + packed.mixed_slots) or (
            packed.dynamic and (any(packed.segment_library) or any(packed.segment_mixed))):
        raise CUnsupported("symmetry reduction that moves a value of a library class (the "
                           "C engine would order ids, the Python engine tuples)")

    def arr(kind: Any, values: list[int]) -> Any:
        return (kind * max(1, len(values)))(*values)

    def sort_key(cell: Any) -> tuple[int, ...]:
        """Python slot order: the static part first, then the segments by pid."""
        slot = static_slot(cell)
        return (0, slot, 0) if slot is not None else (1, cell[0], cell[1])

    fam_n, fam_m, cell_off, cells, order, nperm, perm_off, src = [], [], [0], [], [], [], [0], []
    cell_pid, fam_tpl, fam_top = [], [], []
    for positions, elements in action.families:
        n, m = len(positions), len(positions[0]) if positions else 0
        flat = [c for pos in positions for c in pos]
        fam_n.append(n)
        fam_m.append(m)
        if action.dynamic:
            pids = {c[0] for c in flat if c[0] >= 0}
            templates = {initial[k] for k in pids}
            if len(templates) != 1:
                raise CUnsupported("a symmetry family of several process templates in a "
                                   "layout with processes started at run time")
            fam_tpl.append(templates.pop())
            fam_top.append(max(pids))
            cell_pid.extend(c[0] for c in flat)
            cells.extend(c[1] for c in flat)
        else:
            cells.extend(flat)
        by_slot = sorted(range(len(flat)), key=lambda k: sort_key(flat[k]))
        order.extend(by_slot)
        cell_off.append(len(cells))
        identity = tuple(range(n))
        if elements and identity not in elements:
            raise CUnsupported("a symmetry group without its identity")  # never: a group
        ordered = [identity] + [g for g in elements or () if g != identity]
        nperm.append(len(ordered) if elements else 0)
        for perm in ordered if elements else ():
            # the candidate's cell j * m + r comes from position perm[j]'s cell r
            src.extend(perm[k // m] * m + k % m for k in by_slot)
        perm_off.append(len(src))
    phase_slot, phase_off, phase_done = [], [0], []
    for slot, done in action.phases:
        phase_slot.append(slot)
        phase_done.extend(sorted(done))
        phase_off.append(len(phase_done))
    tpl_size, tpl_first, seg_off, seg_kind = [], [], [], []
    for seg in packed.segments if packed.dynamic else ():
        tpl_size.append(seg.size)
        tpl_first.append(len(seg_off))
        seg_off.extend(seg.offsets)
        seg_kind.extend(_KIND_CODES[k.name] for k in seg.kinds)
    i32 = ctypes.c_int32
    keep = [arr(i32, [off for off, _ in table]),
            arr(i32, [_KIND_CODES[k.name] for _, k in table]),
            arr(i32, phase_slot), arr(i32, phase_off),
            arr(ctypes.c_int64, phase_done), arr(i32, fam_n),
            arr(i32, fam_m), arr(i32, cell_off),
            arr(i32, cells), arr(i32, order),
            arr(i32, nperm), arr(i32, perm_off),
            arr(i32, src), arr(i32, tpl_size), arr(i32, tpl_first), arr(i32, seg_off),
            arr(i32, seg_kind), arr(i32, fam_tpl), arr(i32, fam_top), arr(i32, cell_pid),
            arr(i32, [initial[k] for k in phase_slot] if packed.dynamic else []),
            arr(i32, [] if packed.dynamic else [table[c][0] for c in cells]),
            arr(i32, [] if packed.dynamic else [_KIND_CODES[table[c][1].name] for c in cells])]
    sym = _SymParams()
    sym.n_slots, sym.n_phases, sym.n_fam = len(table), len(phase_slot), len(fam_n)
    (sym.slot_off, sym.slot_kind, sym.phase_slot, sym.phase_off, sym.phase_done, sym.fam_n,
     sym.fam_m, sym.cell_off, sym.cells, sym.order, sym.fam_nperm, sym.perm_off,
     sym.src, sym.tpl_size, sym.tpl_first, sym.seg_off, sym.seg_kind, sym.fam_tpl,
     sym.fam_top, sym.cell_pid, sym.phase_tpl, sym.cell_byte, sym.cell_kind) = keep
    sym.max_cells = max([n * m for n, m in zip(fam_n, fam_m, strict=True)], default=1)
    sym.max_n = max(fam_n, default=1)
    sym.dynamic = int(packed.dynamic)
    if packed.dynamic:
        sym.count_slot = packed.layout.layout_slot
        sym.static_bytes = packed.static_bytes
        sym.top = max(fam_top + [slot for slot, _ in action.phases], default=0)
    sym.scratch_n = sym.max_n + 2 * sym.max_cells + 2 * (sym.top + 1)
    return sym, keep


class _LtlResult(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int32), ("limit_kind", ctypes.c_int32),
                ("early_report", ctypes.c_int32), ("event_atoms_seen", ctypes.c_uint64),
                ("states", ctypes.c_int64), ("transitions", ctypes.c_int64),
                ("sys_states", ctypes.c_int64), ("memory_bytes", ctypes.c_int64),
                ("sccs", ctypes.c_int64), ("nontrivial_sccs", ctypes.c_int64),
                ("error_node", ctypes.c_int64), ("part_len", ctypes.c_int64),
                ("path_len", ctypes.c_int64), ("subgraphs", ctypes.c_int64),
                ("pruned", ctypes.c_int64), ("items", ctypes.c_int64),
                ("seconds", ctypes.c_double), ("units_seen", ctypes.POINTER(ctypes.c_uint8)),
                ("dfs_len", ctypes.c_int64)]


ProductKey = tuple[tuple[int, ...], int]  # (canonical system state, automaton state)


class _PartCheck(ctypes.Structure):
    """``br_part_check_t`` of ``templates/c/search_ltl.c``."""

    _fields_ = [("status", ctypes.c_int32), ("limit_kind", ctypes.c_int32),
                ("nodes", ctypes.c_int64), ("sys_states", ctypes.c_int64),
                ("edges", ctypes.c_int64), ("acceptance", ctypes.c_uint64),
                ("closed", ctypes.c_int32), ("node_closed", ctypes.c_int32),
                ("connected", ctypes.c_int32), ("accepting", ctypes.c_int32),
                ("seconds", ctypes.c_double)]


@dataclass(frozen=True)
class PartCheck:
    """What the C engine's check of a strong globally fair part found (the C twin of
    ``fairness.terminal.TerminalPart``, paper 001 Lemma 2): the part is the nodes
    reached from its first node through its nodes (``nodes`` of them, ``system_states``
    distinct system states, ``edges`` internal edges whose marks are ``acceptance``);
    ``closed``: every system step of each of its system states is taken inside;
    ``node_closed``: every node takes each of its steps inside; ``connected``: every
    node reaches the first back; ``accepting``: its edges meet every acceptance set."""

    nodes: int
    system_states: int
    edges: int
    acceptance: int
    closed: bool
    node_closed: bool
    connected: bool
    accepting: bool
    seconds: float = 0.0

    @property
    def fair_accepting(self) -> bool:
        """Return True when the part certifies a fair accepting run (001 Lemma 2)."""
        return self.closed and self.connected and self.accepting

    @property
    def problem(self) -> str:
        """Return what failed, in words ("" when nothing did)."""
        if not self.closed:
            return "a step of one of its system states leaves it"
        if not self.connected:
            return "it is not strongly connected"
        return "" if self.accepting else "its edges miss an acceptance set"


class PartProbe:
    """The product of a finished C fair search, open while ``fair_search_c``'s
    ``probe`` runs: ``states`` nodes, ``part`` the reported part's node ids (empty when
    none), ``key(node)`` a node's ``ProductKey``, ``check(nodes)`` the C check of the
    part reached from ``nodes[0]`` through ``nodes`` (``PartCheck``)."""

    def __init__(self, key: Callable[[int], ProductKey],
                 check: Callable[[list[int]], PartCheck], states: int, part: list[int]):
        self.key, self.check, self.states, self.part = key, check, states, part


def hidden_slots(space: CompiledStateSpace) -> int:
    """Return how many leading slots of a canonical state are hidden variables (not
    part of the state's identity: each engine keeps the first value it reached, so two
    engines, or two products, may keep different ones)."""
    return getattr(space.layout, "hidden_count", 0)


@dataclass
class LtlResult:
    """What the C fair search found. ``outcome``: ``"empty"`` (no fair accepting
    cycle), ``"found"`` (``part``: the nodes of a fair accepting part, ``path``: the DFS
    path from an initial node to its first node), ``"error"`` (a model error expanding
    the last node of ``path``; empty ``path``: in the initial state) or ``"limit"``
    (``reason`` says which). Nodes are ``ProductKey``s: the canonical system state (as
    ``PackedLayout.canonical`` gives it for a Python state) without its hidden
    variables (``hidden_slots``) and the automaton state.
    ``events_seen``: the event atoms' names some explored step has. ``subgraphs`` and
    ``pruned``: what the Fig. 5 recursion examined and pruned (strong notions)."""

    outcome: str
    reason: str
    statistics: Statistics
    sccs: int
    nontrivial_sccs: int
    early_report: bool
    subgraphs: int = 0
    pruned: int = 0
    part: list[ProductKey] = field(default_factory=list)
    path: list[ProductKey] = field(default_factory=list)
    events_seen: frozenset[str] = frozenset()
    annotations_seen: frozenset[str] = frozenset()
    part_size: int = 0
    part_check: PartCheck | None = None
    # path[:dfs_len] is the search's DFS path (each node the tree child of the one
    # before, entered by the first edge to it in the search order,
    # ``fairness.onthefly.edge_order``); the rest a shortest path inside the part
    dfs_len: int = 0
    # the search's system state ids of path[:dfs_len] (the rotated search order shifts
    # a node's edges by its id: the replay follows the same edges with them)
    path_sys: list[int] = field(default_factory=list)


def _cubes(condition: Any) -> list[tuple[int, int]]:
    """Return a condition (``automata.buchi.Condition``: True, False or ``(ap, if true,
    if false)``) as cubes ``(mask, value)``: it holds for letter ``l`` iff
    ``l & mask == value`` for one of them (the paths of the diagram to True)."""
    out: list[tuple[int, int]] = []
    stack = [(condition, 0, 0)]
    while stack:
        node, mask, value = stack.pop()
        if node is True:
            out.append((mask, value))
        elif node is not False:
            ap, high, low = node
            bit = 1 << ap
            if mask & bit:  # decided higher up on this path (not in Spot's BDDs)
                stack.append((high if value & bit else low, mask, value))
                continue
            stack.append((low, mask | bit, value))
            stack.append((high, mask | bit, value | bit))
    return out


Annotations = tuple[tuple[FairnessMark, str], ...]

# The marks' codes in search_ltl.c (the stronger kept: _AnnotationUnits._set)
_MARK_CODE = {FairnessMark.WF: 1, FairnessMark.WL: 1, FairnessMark.SF: 2,
              FairnessMark.SL: 2, FairnessMark.F: 3}
_LOCAL = 4  # wl/sl in the model: a unit per (instance, edge)


def model_has_marks(system: TransitionSystem) -> bool:
    """Return True when some edge of the model carries a fairness mark."""
    return any(e.fairness is not None for proc in system.processes for e in proc.edges)


@dataclass
class _UnitTables:
    """The annotation units of a C fair search (search_ltl.c, br_ltl_params_t)."""

    names: list[str]  # the name of each unit ("" for a (pid, edge) unit)
    unit_mark: list[int]
    ev_unit: list[int]
    lab_unit: list[int]
    lab_mark: list[int]
    edge_units: list[tuple[int, int]]  # sorted (key, bit)
    name_units: int  # 0 none, 1 annotated names, 2 every event name is a unit


def _unit_tables(system: TransitionSystem, space: CompiledStateSpace, events: list[str],
                 annotations: Annotations, use_model: bool) -> _UnitTables:
    """Return the units of ``fairness.check._AnnotationUnits`` as tables: a unit per
    annotated name (every event name when the model marks events, the labels of marked
    edges) and per (instance, edge) of a ``wl``/``sl`` edge; raises ``CUnsupported``
    when the C search cannot name them."""
    units: dict[Any, int] = {}
    marks: list[int] = []

    def unit(key: Any) -> int:
        if key not in units:
            units[key] = len(marks)
            marks.append(0)
        return units[key]

    for mark, name in annotations:
        u = unit(("event", name))
        marks[u] = max(marks[u], _MARK_CODE[mark])
    edges = [e for proc in system.processes for e in proc.edges]
    marked = [e for e in edges if use_model and e.fairness is not None]
    if any(e.fairness not in (FairnessMark.WL, FairnessMark.SL) for e in marked):
        for name in events:  # a step's event names the unit: any event may be marked
            unit(("event", name))
        for e in marked:
            if e.label is not None:
                unit(("event", e.label))
    lab_unit = [units.get(("event", e.label), -1) if e.label is not None else -1
                for e in edges]
    lab_mark = [0] * len(edges)
    edge_units: list[tuple[int, int]] = []
    bases, n = [], 0
    for proc in system.processes:
        bases.append(n)
        n += len(proc.edges)
    for t, proc in enumerate(system.processes):
        for k, e in enumerate(proc.edges):
            if not use_model or e.fairness is None:
                continue
            label = bases[t] + k
            lab_mark[label] = _MARK_CODE[e.fairness]
            if e.fairness in (FairnessMark.WL, FairnessMark.SL):
                lab_mark[label] |= _LOCAL
                if not space.layout.dynamic:
                    for pid, tpl in enumerate(space.layout.initial_templates):
                        if tpl == t:
                            edge_units.append(((pid << 32) | label, unit(("edge", pid, k))))
    shared = shared_pid_marks(system) if use_model and space.layout.dynamic else None
    if shared is not None:  # the Python engine refuses them too
        raise CUnsupported(f"fairness marks: {shared[1]}")
    if space.layout.dynamic:
        # a pid may run any template over time: the unit ("edge", pid, k) of a wl/sl
        # edge k is engaged by a step of whatever template runs at pid taking its edge k
        # (check._AnnotationUnits keys it by instance and edge index)
        local = sorted({k for proc in system.processes for k, e in enumerate(proc.edges)
                        if use_model and e.fairness in (FairnessMark.WL, FairnessMark.SL)})
        for pid in range(min(system.max_instances, MAX_PROCESSES)):
            for k in local:
                for t, proc in enumerate(system.processes):
                    if k < len(proc.edges):
                        edge_units.append(((pid << 32) | (bases[t] + k),
                                           unit(("edge", pid, k))))
    edge_units.sort()
    if not units:
        # Marks no unit can name (wf on an unlabelled Promela statement): the Python
        # condition is still conditions.AnnotatedFairness, which has items (onthefly
        # rotates a node's edges, sends complete components to Fig. 5); one unmarked
        # unit, never engaged, gives the C search the same order
        unit(("none",))
    names = [key[1] if key[0] == "event" else "" for key in units]
    ev_unit = [units.get(("event", name), -1) for name in events]
    every = any(e.fairness not in (FairnessMark.WL, FairnessMark.SL) for e in marked)
    return _UnitTables(names, marks, ev_unit, lab_unit, lab_mark, edge_units,
                       2 if every else int(any(key[0] == "event" for key in units)))


def ltl_supports(system: TransitionSystem, prop: Property, atoms: list[Any],
                 fairness: Fairness, num_sets: int, num_states: int,
                 annotations: Annotations = (), model_annotations: bool = True
                 ) -> tuple[bool, str]:
    """Return ``(True, "")`` when the C fair search can check ``prop`` (an LTL property,
    a never claim, non-progress or acceptance cycles: one of ``FAIR_SEARCH_KINDS``,
    whose automaton has the atoms ``atoms``: ``ir`` state or event atoms or
    ``LabelAtom``s, in AP order)
    under ``fairness`` and the annotations (``annotations`` from the command line, the
    model's own when ``model_annotations``), else ``(False, why)``. Generates the C
    source to find out."""
    if fairness not in LTL_FAIRNESS:
        names = ", ".join(f.value for f in LTL_FAIRNESS)
        return False, (f"the C engine's fair search does not handle {fairness.value} fairness "
                       f"yet (it handles {names})")
    if len(atoms) > 64 or num_sets > 64 or num_states > 0xFFFF:
        return False, ("the automaton is too big for the C engine's fair search (at most 64 "
                       "propositions, 64 acceptance sets, 65535 states)")
    try:
        model = generate_model(system)
    except CUnsupported as why:
        return False, f"the C engine does not translate {why}"
    except (UnsupportedError, ModelRuntimeError) as error:
        return False, f"the Python engine rejects the model ({error})"
    if any(isinstance(a, LtlState) and a.expr not in model.expressions for a in atoms):
        what = "a guard of the never claim" if prop.kind is PropertyKind.NEVER else \
            "a proposition of the formula"
        return False, f"the C engine does not translate {what}"
    if annotations or model_annotations and model_has_marks(system):
        try:
            _unit_tables(system, model.space, [], annotations,
                         model_annotations and model_has_marks(system))
        except CUnsupported as why:
            return False, f"the C engine's fair search does not handle {why}"
    return True, ""


def fair_search_c(system: TransitionSystem, buchi: Any, atoms: list[Any],
                  fairness: Fairness, options: SearchOptions = SearchOptions(),
                  annotations: Annotations = (), model_annotations: bool = True,
                  symmetry: Any = None, check_part_over: int | None = None,
                  probe: Callable[[PartProbe], None] | None = None) -> LtlResult:
    """Return what the C fair search finds in the product of ``system`` with ``buchi``
    (an ``automata.buchi.Buchi``: the automaton of the negation, a never claim's or
    SPIN's non-progress or acceptance automaton; its AP ``i`` is ``atoms[i]``, a state
    or event atom or a ``LabelAtom``) under ``fairness`` (one of ``LTL_FAIRNESS``): the C twin
    of ``fairness.onthefly.find_fair_subgraph_on_the_fly`` with early reports and, for
    the strong notions, the Fig. 5 recursion (paper 000) on complete components. The
    caller rebuilds and re-checks what it reports on the Python semantics. Raises
    ``CFallback`` when the Python engine must decide.

    ``annotations`` (``(mark, event or label)``, the command line's) and, when
    ``model_annotations``, the marks written in the model are conjoined with the notion
    as ``fairness.check.build_condition`` does (paper 000 Fig. 11, per mark): the units
    of ``_unit_tables``, whose marks learnt from the model follow the Python engine's;
    ``LtlResult.annotations_seen`` gives the annotated names some explored step has.

    ``symmetry``: a ``reductions.symmetry.GroupAction`` (paper 001 Def. 4): the search
    runs on the quotient, every system state replaced by the Python engine's
    representative (``templates/c/symmetry.c``), so the nodes it reports are nodes of
    the Python quotient product. The caller must allow the notion (001 Theorems 2, 4:
    none or strong global) and must not combine it with annotations.

    ``check_part_over``: under strong global fairness without annotations, a reported
    part of more nodes than this is checked here, in C (``bridge_ltl_check_part``:
    closed under steps per system state, strongly connected, accepting; paper 001
    Lemma 2), into ``LtlResult.part_check``, and ``part`` then holds only its first
    node (``part_size`` counts them all; a part this large is never replayed as a
    lasso). ``probe``: called with a ``PartProbe`` while the search's product is open
    (tests compare the C check with ``fairness.terminal`` through it)."""
    model, options = _compiled_within(system, options, ltl=True)
    lib = model.library
    q_edges, e_target, e_acc, e_cubes, c_mask, c_value = [0], [], [], [0], [], []
    for out in buchi.edges:
        for e in out:
            e_target.append(e.target)
            e_acc.append(e.acceptance)
            for mask, value in _cubes(e.condition):
                c_mask.append(mask)
                c_value.append(value)
            e_cubes.append(len(c_mask))
        q_edges.append(len(e_target))

    def arr(kind: Any, values: list[int]) -> Any:
        return (kind * max(1, len(values)))(*values)

    params = _LtlParams()
    params.max_states = options.max_states or 0
    params.timeout = options.timeout or 0.0
    params.max_memory = options.max_memory or 0
    params.flat_bytes = FLAT_STORE_BYTES
    params.log_bytes = EDGE_LOG_BYTES
    params.nq = buchi.num_states
    params.q0 = buchi.initial
    params.n_ap = len(atoms)
    params.fairness = LTL_FAIRNESS[fairness]
    # words of a process set: enough for the instances declared; a step of a process
    # beyond them (Promela run) stops the search, which runs again with every word the
    # model has (BR_PWORDS: its instances, or SPIN's 255 for processes started by run)
    max_pwords = lib.bridge_process_words()
    params.pwords = min(max_pwords, max(1, (len(system.instances) + 63) // 64))
    # words of an action set (weak, strong-local): enough for the statements of the
    # initial instances (and their deaths) or the event names; a search that meets more
    # actions stops and runs again with enough words
    if model.space.csp:
        actions = lib.bridge_event_count()
    else:
        edges = {p.name: len(p.edges) for p in system.processes}
        actions = sum(edges.get(i.process, 0) + 1 for i in system.instances)
    params.iwords = max(1, (actions + 63) // 64)
    params.csp = int(bool(model.space.csp))
    params.all_sets = buchi.all_sets
    # event atoms: the bits of each named event (product.py: an atom holds on a step
    # whose event is exactly its name; the initial pseudo-step's event is "init")
    # The names a step's event is compared with (the atoms', the annotated ones) are
    # interned first: an event name computed at run time (br_evname, br_chev) equal to
    # one of them gets its id, below n_events; every other gets a later id, no atom
    # bit and no unit.
    wanted = [a.name for a in atoms if isinstance(a, LtlEvent)] + [n for _, n in annotations]
    wanted += [e.label for proc in system.processes for e in proc.edges
               if e.label is not None and e.fairness is not None and model_annotations]
    for name in wanted:
        if lib.bridge_event_intern(name.encode("utf-8")) < 0:
            raise CFallback("out of memory interning the event names of the formula")
    names = [lib.bridge_event_name(i).decode("utf-8") for i in range(lib.bridge_event_count())]
    bits: dict[str, int] = {}
    for i, a in enumerate(atoms):
        if isinstance(a, LtlEvent):
            bits[a.name] = bits.get(a.name, 0) | (1 << i)
    params.init_letter = bits.get("init", 0)
    params.n_events = len(names)
    params.event_atoms = int(bool(bits))
    use_model = model_annotations and model_has_marks(system)
    tables = _unit_tables(system, model.space, names, annotations, use_model) \
        if annotations or use_model else None
    seen = (ctypes.c_uint8 * max(1, len(tables.names) if tables else 1))()
    if tables is not None and tables.names:
        params.n_units = len(tables.names)
        params.n_labels = len(tables.lab_unit)
        params.n_edge_units = len(tables.edge_units)
        params.name_units = int(tables.name_units)
        unit_arrays = [arr(ctypes.c_int32, tables.ev_unit), arr(ctypes.c_int32, tables.lab_unit),
                       arr(ctypes.c_int32, tables.lab_mark), arr(ctypes.c_int32, tables.unit_mark),
                       arr(ctypes.c_uint64, [k for k, _ in tables.edge_units]),
                       arr(ctypes.c_int32, [b for _, b in tables.edge_units])]
        (params.ev_unit, params.lab_unit, params.lab_mark, params.unit_mark, params.eu_key,
         params.eu_bit) = unit_arrays
    else:
        unit_arrays = []
    keep = [arr(ctypes.c_int32, [model.expressions[a.expr] if isinstance(a, LtlState)
                                 else _LABEL_ATOM_CODES[a.kind] if isinstance(a, LabelAtom)
                                 else -1 for a in atoms]),
            arr(ctypes.c_int32, q_edges), arr(ctypes.c_int32, e_target),
            arr(ctypes.c_uint64, e_acc), arr(ctypes.c_int32, e_cubes),
            arr(ctypes.c_uint64, c_mask), arr(ctypes.c_uint64, c_value),
            arr(ctypes.c_uint64, [bits.get(n, 0) for n in names])]
    (params.ap_expr, params.q_edges, params.e_target, params.e_acc, params.e_cubes,
     params.c_mask, params.c_value, params.event_bits) = keep
    sym_keep: list[Any] = []
    if symmetry is not None:
        sym, sym_keep = _symmetry_tables(model, symmetry)
        sym_keep.append(sym)
        params.sym = ctypes.cast(ctypes.byref(sym), ctypes.c_void_p)
    report, interrupted, callback = _progress_callback(options)
    params.progress = callback
    result = _LtlResult()
    result.units_seen = ctypes.cast(seen, ctypes.POINTER(ctypes.c_uint8))
    handle = lib.bridge_ltl_search(ctypes.byref(params), model.initial, len(model.initial),
                                   ctypes.byref(result))
    while (result.status == _LTL_MORE_PROCESSES and params.pwords < max_pwords
           or result.status == _LTL_MORE_ITEMS and params.iwords < _MAX_IWORDS):
        # processes started at run time beyond the words given, or more actions: again
        # (the same search: the words do not change its order), with enough words
        lib.bridge_ltl_free(handle)
        if result.status == _LTL_MORE_PROCESSES:
            params.pwords = max_pwords
        else:
            params.iwords = min(_MAX_IWORDS, max(params.iwords * 2,
                                                 (2 * result.items + 63) // 64))
        ctypes.memset(seen, 0, ctypes.sizeof(seen))
        handle = lib.bridge_ltl_search(ctypes.byref(params), model.initial,
                                       len(model.initial), ctypes.byref(result))
    del callback
    try:
        if interrupted:
            raise interrupted[0]
        checkable = fairness is Fairness.STRONG_GLOBAL and tables is None
        part_ids = [lib.bridge_ltl_part(handle, i) for i in range(result.part_len)] \
            if result.status == _LTL_FOUND else []

        def check(nodes: list[int]) -> PartCheck:
            if not checkable:
                raise ValueError("the C part check is for strong global fairness "
                                 "without annotations")
            return _check_part(lib, handle, params, nodes, options.timeout)

        if probe is not None:
            probe(PartProbe(lambda n: _node_key(model, handle, n), check,
                            result.states, part_ids))
        large = checkable and check_part_over is not None and len(part_ids) > check_part_over
        found = _ltl_result(model, handle, result, options, False) if large else \
            _ltl_result(model, handle, result, options)
        if large:
            left = None if options.timeout is None else max(0.001, options.timeout
                                                             - result.seconds)
            try:
                found.part_check = _check_part(lib, handle, params, part_ids, left)
            except PartCheckLimit as limit:  # what is left of the timeout ran out
                found.outcome, found.reason = "limit", str(limit)
        found.events_seen = frozenset(a.name for i, a in enumerate(atoms) if isinstance(
            a, LtlEvent) and result.event_atoms_seen >> i & 1)
        if tables is not None:
            found.annotations_seen = frozenset(
                name for u, name in enumerate(tables.names) if name and seen[u])
        del unit_arrays, sym_keep
        return found
    finally:
        lib.bridge_ltl_free(handle)


def _check_part(lib: Any, handle: int, params: _LtlParams, nodes: list[int],
                timeout: float | None) -> PartCheck:
    """Return the C check of the part reached from ``nodes[0]`` through ``nodes`` (node
    ids of the open search ``handle``; ``bridge_ltl_check_part``); raises
    ``PartCheckLimit`` past ``timeout`` seconds or the memory limit, ``CFallback`` when
    the C engine cannot judge it."""
    out = _PartCheck()
    ids = (ctypes.c_int32 * max(1, len(nodes)))(*nodes)
    status = lib.bridge_ltl_check_part(handle, ctypes.byref(params), ids, len(nodes),
                                       timeout or 0.0, ctypes.byref(out))
    if status == _LTL_LIMIT:
        raise PartCheckLimit({2: "time limit", 4: "interrupted"}.get(out.limit_kind,
                                                                      "memory limit"))
    if status != 0:
        raise CFallback(f"the C engine could not check the fair part (status {status})")
    return PartCheck(out.nodes, out.sys_states, out.edges, out.acceptance,
                     bool(out.closed), bool(out.node_closed), bool(out.connected),
                     bool(out.accepting), out.seconds)


class PartCheckLimit(BridgeError):
    """The C check of a fair part stopped at a limit (its message says which)."""


def _node_key(model: CompiledModel, handle: int, node: int, buf: Any = None,
              q: Any = None) -> ProductKey:
    """Return the ``ProductKey`` of C node ``node`` of the open search ``handle``
    (``buf``, ``q``: scratch to reuse)."""
    lib = model.library
    q = q if q is not None else ctypes.c_int32()
    buf = buf if buf is not None else vector_buffer(model)
    sid = lib.bridge_ltl_node(handle, node, ctypes.byref(q))
    n = lib.bridge_state(handle, sid, buf, len(buf)) if sid >= 0 else 0
    if n == 0:
        raise EngineDisagreement(f"C engine: no product state {node}")
    values = library_values(model, handle, model.packed.unpack(buf.raw[:n]))
    return tuple(values[hidden_slots(model.space):]), q.value


def _ltl_result(model: CompiledModel, handle: int, r: _LtlResult,
                options: SearchOptions, whole_part: bool = True) -> LtlResult:
    if r.status == _LTL_FALLBACK:
        raise CFallback("a value left what the C engine represents (64-bit arithmetic or a "
                        "packed state slot); the Python engine (unbounded integers) ran it")
    if r.status == _LTL_MORE_PROCESSES:
        raise CFallback("more processes than the C engine's fair search keeps")
    if r.status == _LTL_MORE_ITEMS:
        raise CFallback("more actions than the C engine's fair search keeps")
    if r.status == _LTL_COMPUTED_ACTION:
        raise CFallback(COMPUTED_ACTION)
    if r.status == _LTL_COMPUTED_EVENT:
        raise CFallback(COMPUTED_EVENT)
    if r.status == _LTL_UNDECIDED:
        raise CFallback("the C fair search met a complete component it cannot judge alone")
    per_state = r.memory_bytes / r.states if r.states else 0.0
    rate = r.states / r.seconds if r.seconds > 0 else 0.0
    stats = Statistics(
        states=r.states, transitions=r.transitions, seconds=r.seconds,
        peak_memory_bytes=r.memory_bytes,
        extra=(("system_states", r.sys_states), ("bytes_per_state", round(per_state, 1)),
               ("states_per_second", round(rate)), ("engine", "c"),
               ("compile_seconds", round(model.compile_seconds, 3))))
    lib = model.library
    buf = vector_buffer(model)
    q = ctypes.c_int32()

    def key(node: int) -> ProductKey:
        return _node_key(model, handle, node, buf, q)

    out = LtlResult("empty", "", stats, r.sccs, r.nontrivial_sccs, bool(r.early_report),
                    r.subgraphs, r.pruned)
    if r.status == _LTL_LIMIT:
        kind = {1: "state limit", 2: "time limit", 4: "interrupted"}.get(r.limit_kind,
                                                                        "memory limit")
        out.outcome, out.reason = "limit", kind
    elif r.status in (_LTL_FOUND, _LTL_MODEL_ERROR):
        out.outcome = "found" if r.status == _LTL_FOUND else "error"
        nodes = [lib.bridge_ltl_path(handle, i) for i in range(r.path_len)]
        out.path = [key(n) for n in nodes]
        out.dfs_len = r.dfs_len
        out.path_sys = [lib.bridge_ltl_node(handle, n, ctypes.byref(q))
                        for n in nodes[:r.dfs_len]]
        shown = r.part_len if whole_part else min(1, r.part_len)
        out.part = [key(lib.bridge_ltl_part(handle, i)) for i in range(shown)]
        out.part_size = r.part_len
    return out


__all__ = ["FAIR_SEARCH_KINDS", "LTL_FAIRNESS", "CFallback", "EngineDisagreement", "LabelAtom",
           "LtlResult", "PartCheck", "PartCheckLimit", "PartProbe", "SearchOptions",
           "check_property_c", "claim_guards", "compile_model", "explore_c", "fair_search_c", "hidden_slots",
           "ltl_supports", "needs_fair_search", "supports", "symmetry_supports"]
