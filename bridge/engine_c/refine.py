"""Run the compiled engine's refinement search (``templates/c/search_refine.c``).

CSP#'s ``Impl refines Spec`` in the traces, stable failures and failures-divergence
models (cspsharp.md section 6; Roscoe, *Understanding Concurrent Systems*, section
16.1): the implementation's states are explored in C, paired with the nodes of the
specification's normal form, which the caller builds on the Python engine and hands
over as a table (``refinement.table.SpecTable``: read here by its attributes only,
the refinement room being no import of this one). Event names meet by name: the
specification's names are interned in the library before the search, and the C
engine renders CSP# event names computed at run time (``gen_events``), so an
implementation event gets the id of the specification's event of the same name.

The search's answer is replayed on the Python semantics (``RefineRun.path``: each C
pair is matched with a Python successor of the previous state whose event moves the
specification's node as the C pair says); the caller checks the violation itself on
the Python state reached (``refinement.check.verdict_from_c``), so a C answer the
reference semantics refutes is never reported.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any

from bridge.diagnostics import ModelRuntimeError, UnsupportedError
from bridge.engine_c.codegen import CUnsupported
from bridge.engine_c.driver import (
    _PROGRESS,
    CFallback,
    CompiledModel,
    EngineDisagreement,
    SearchOptions,
    _compiled_within,
    _limit_reason,
    _progress_callback,
    generate_model,
    library_values,
    vector_buffer,
)
from bridge.ir import TransitionSystem
from bridge.semantics.statespace import CompiledStateSpace
from bridge.semantics.successors import StateVector, Step

# refinement models, as search_refine.c numbers them
REFINE_MODELS = {"T": 0, "F": 1, "FD": 2}
_FOUND = {1: "trace", 2: "failure", 3: "divergence"}
_DONE, _FOUND_STATUS, _MODEL_ERROR, _LIMIT, _FALLBACK = range(5)


class _RefineParams(ctypes.Structure):
    _fields_ = [("max_states", ctypes.c_int64), ("timeout", ctypes.c_double),
                ("max_memory", ctypes.c_int64), ("model", ctypes.c_int32),
                ("n_nodes", ctypes.c_int32), ("n_events", ctypes.c_int32),
                ("n_words", ctypes.c_int32), ("n_codes", ctypes.c_int32),
                ("code_event", ctypes.POINTER(ctypes.c_int32)),
                ("after", ctypes.POINTER(ctypes.c_int32)),
                ("acc_first", ctypes.POINTER(ctypes.c_int32)),
                ("acc_sets", ctypes.POINTER(ctypes.c_uint64)),
                ("divergent", ctypes.POINTER(ctypes.c_uint8)),
                ("progress", _PROGRESS)]


class _RefineResult(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int32), ("limit_kind", ctypes.c_int32),
                ("found_kind", ctypes.c_int32), ("event", ctypes.c_int32),
                ("pair", ctypes.c_int64), ("pairs", ctypes.c_int64),
                ("transitions", ctypes.c_int64), ("depth", ctypes.c_int64),
                ("explored", ctypes.c_int64), ("tau_states", ctypes.c_int64),
                ("memory_bytes", ctypes.c_int64), ("seconds", ctypes.c_double)]


@dataclass
class RefineRun:
    """The C refinement search's answer. ``found``: None (refinement holds, or a
    ``limit`` stopped the search), ``trace``, ``failure`` or ``divergence`` at the
    pair reached by ``path`` (the implementation's steps from ``space``'s initial
    state, replayed on the Python semantics) whose specification nodes are ``nodes``
    (one more than steps: node 0 first); ``event``: the event of a trace violation
    (the C engine's name). Counts are the C search's."""

    space: CompiledStateSpace
    found: str | None = None
    limit: str | None = None
    path: list[tuple[Step, StateVector]] = field(default_factory=list)
    nodes: list[int] = field(default_factory=list)
    event: str | None = None
    pairs: int = 0
    transitions: int = 0
    depth: int = 0
    seconds: float = 0.0
    memory_bytes: int = 0
    compile_seconds: float = 0.0


def refine_supports(system: TransitionSystem) -> tuple[bool, str]:
    """Return ``(True, "")`` when the C engine can explore the implementation
    ``system`` for a refinement check, else ``(False, why)`` (the specification is
    normalised by the Python engine)."""
    try:
        generate_model(system)
    except CUnsupported as why:
        return False, f"the C engine does not translate {why}"
    except (UnsupportedError, ModelRuntimeError) as error:
        return False, f"the Python engine rejects the model ({error})"
    return True, ""


def refine_c(system: TransitionSystem, table: Any, model: str,
             options: SearchOptions | None = None) -> RefineRun:
    """Return the C engine's answer to ``system`` refines the specification whose
    normal form is ``table`` in ``model`` (a key of ``REFINE_MODELS``: the values of
    ``RefinementModel``). Raises
    ``CFallback`` when the Python engine must answer (a value C does not represent,
    an event name C did not render, a model error: the Python engine reports it with
    its trace) and ``EngineDisagreement`` when the replay refutes the C path."""
    compiled, options = _compiled_within(system, options or SearchOptions())
    lib = _typed(compiled.library)
    codes = [lib.bridge_event_intern(name.encode("utf-8")) for name in table.events]
    if any(code < 0 for code in codes):
        raise CFallback("out of memory interning the specification's event names")
    n_codes = lib.bridge_event_count()
    code_event = [-1] * n_codes
    for k, code in enumerate(codes):
        code_event[code] = k
    n_events = len(table.events)
    words = max(1, (n_events + 63) // 64)
    after = [t for row in table.after for t in row]
    acc_first = [0]
    acc_sets: list[int] = []
    for sets in table.acceptances:
        for accepted in sets:
            bits = [0] * words
            for event in accepted:
                k = table.events.index(event)
                bits[k >> 6] |= 1 << (k & 63)
            acc_sets.extend(bits)
        acc_first.append(acc_first[-1] + len(sets))

    def arr(kind: Any, values: list[int]) -> Any:
        return (kind * max(1, len(values)))(*values)

    keep = {"code_event": arr(ctypes.c_int32, code_event), "after": arr(ctypes.c_int32, after),
            "acc_first": arr(ctypes.c_int32, acc_first),
            "acc_sets": arr(ctypes.c_uint64, acc_sets),
            "divergent": arr(ctypes.c_uint8, [int(d) for d in table.divergent])}
    params = _RefineParams(options.max_states or 0, options.timeout or 0.0,
                           options.max_memory or 0, REFINE_MODELS[model], len(table.after),
                           n_events, words, n_codes, keep["code_event"], keep["after"],
                           keep["acc_first"], keep["acc_sets"], keep["divergent"])
    _report, interrupted, callback = _progress_callback(options)
    params.progress = callback
    result = _RefineResult()
    handle = lib.bridge_refine_search(ctypes.byref(params), compiled.initial,
                                      len(compiled.initial), ctypes.byref(result))
    try:
        if interrupted:
            raise interrupted[0]
        run = RefineRun(compiled.space, pairs=result.pairs, transitions=result.transitions,
                        depth=result.depth, seconds=result.seconds,
                        memory_bytes=result.memory_bytes,
                        compile_seconds=compiled.compile_seconds)
        if result.status == _FALLBACK:
            raise CFallback("a value left what the C engine represents (64-bit arithmetic "
                            "or a packed state slot), or an event name it does not render")
        if result.status == _MODEL_ERROR:
            raise CFallback("the C engine met a model error in the implementation; the "
                            "Python engine reports it with its trace")
        if result.status == _LIMIT:
            run.limit = _limit_reason(result.limit_kind, options)
            return run
        if result.status == _FOUND_STATUS:
            run.found = _FOUND[result.found_kind]
            if result.event >= 0:
                run.event = lib.bridge_event_name(result.event).decode("utf-8")
            run.path, run.nodes = _replay(compiled, lib, handle, result.pair, table)
        return run
    finally:
        lib.bridge_refine_free(handle)


def _typed(lib: Any) -> Any:
    """Return ``lib`` with the signatures of ``search_refine.c``'s functions."""
    void_p = ctypes.c_void_p
    lib.bridge_refine_search.restype = void_p
    lib.bridge_refine_search.argtypes = [ctypes.POINTER(_RefineParams), ctypes.c_char_p,
                                         ctypes.c_uint32, ctypes.POINTER(_RefineResult)]
    lib.bridge_refine_pair.restype = ctypes.c_uint32
    lib.bridge_refine_pair.argtypes = [void_p, ctypes.c_int64, ctypes.c_char_p,
                                       ctypes.c_uint32, ctypes.POINTER(ctypes.c_int32)]
    lib.bridge_refine_free.restype = None
    lib.bridge_refine_free.argtypes = [void_p]
    return lib


def _replay(model: CompiledModel, lib: Any, handle: int, pair: int, table: Any
            ) -> tuple[list[tuple[Step, StateVector]], list[int]]:
    """Return the Python path to C pair ``pair`` and the specification's node after
    each of its prefixes; each C pair is matched with the first Python successor of
    the previous state with its vector whose event takes the previous node to its
    node (tau: the same node)."""
    ids = [pair]
    while (parent := lib.bridge_parent(handle, ids[-1])) >= 0:
        ids.append(parent)
    ids.reverse()
    space = model.space
    packed = model.packed
    buf = vector_buffer(model)
    node = ctypes.c_int32()

    def pair_of(sid: int) -> tuple[list[Any], int]:
        n = lib.bridge_refine_pair(handle, sid, buf, len(buf), ctypes.byref(node))
        if n == 0:
            raise EngineDisagreement(f"C engine: no pair {sid}")
        return library_values(model, handle, packed.unpack(buf.raw[:n])), node.value

    state = space.initial_states()[0]
    want, at = pair_of(ids[0])
    if packed.canonical(space, state) != want or at != 0:
        raise EngineDisagreement("the C engine's initial pair differs from the Python one")
    path: list[tuple[Step, StateVector]] = []
    nodes = [at]
    for sid in ids[1:]:
        want, target = pair_of(sid)
        for step, nxt in space.successors(state):
            if step.stutter or packed.canonical(space, nxt) != want:
                continue
            moved = at if step.event is None else table.next_node(at, step.event)
            if moved == target:
                path.append((step, nxt))
                state, at = nxt, target
                nodes.append(at)
                break
        else:
            raise EngineDisagreement(f"a step of the C engine's refinement path (pair {sid}) "
                                     "is not a step of the Python semantics")
    return path, nodes


__all__ = ["REFINE_MODELS", "RefineRun", "refine_c", "refine_supports"]

