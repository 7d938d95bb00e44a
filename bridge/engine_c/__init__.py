"""The compiled engine (issue 12): the IR as one C translation unit per model, compiled
with the system C compiler into a cached shared library, with a C state store and
breadth-first search; the Python engine (``bridge.semantics``) stays the reference
semantics that every C result is checked against.

Rooms: may import ``ir``, ``semantics``, ``diagnostics`` and ``_resources``; only
``bridge.api`` imports this room.

Modules: ``layout`` (the packed state vector), ``codegen`` (IR -> C through
``templates/c/model.c.j2``), ``build`` (compiler, cache, ctypes), ``driver`` (supports,
searches, trace replay). The C side: ``templates/c/runtime.h`` (storage kinds, checked
arithmetic, channels, the successor buffer), the generated model (``model_successors``,
``model_expr``, ``model_is_terminal``, ``model_is_valid_end``, ``BR_EVENT_NAMES``),
``templates/c/store.c`` (the state store) and ``templates/c/search_bfs.c`` (the BFS);
``refine`` runs ``templates/c/search_refine.c``, CSP#'s refinement search.

A second search (the fair SCC search for LTL) is one more C file beside
``search_bfs.c``, included by ``model.c.j2`` after it, using the same pieces:
``store_t`` keeps any byte vector (a product node is the system vector followed by the
automaton state), ``br_expand``/``model_successors`` give each successor with its
processes (``procs``), step label and event (``labels``/``events``, see
``succ_commit``), and ``model_expr`` evaluates the propositions.
"""

from bridge.engine_c.build import cache_dir, find_compiler
from bridge.engine_c.codegen import CUnsupported
from bridge.engine_c.driver import (
    FAIR_SEARCH_KINDS,
    LTL_FAIRNESS,
    CFallback,
    EngineDisagreement,
    LabelAtom,
    LtlResult,
    PartCheck,
    PartCheckLimit,
    PartProbe,
    SearchOptions,
    check_property_c,
    claim_guards,
    compile_model,
    explore_c,
    fair_search_c,
    generate_model,
    hidden_slots,
    is_compiled,
    ltl_supports,
    own_code_count,
    supports,
    symmetry_supports,
)
from bridge.engine_c.refine import REFINE_MODELS, RefineRun, refine_c, refine_supports

__all__ = ["FAIR_SEARCH_KINDS", "LTL_FAIRNESS", "CFallback", "CUnsupported",
           "EngineDisagreement", "LabelAtom", "LtlResult", "PartCheck", "PartCheckLimit",
           "PartProbe", "REFINE_MODELS", "RefineRun", "SearchOptions", "cache_dir",
           "check_property_c", "claim_guards", "compile_model", "explore_c",
           "fair_search_c", "find_compiler", "generate_model", "hidden_slots", "is_compiled",
           "ltl_supports", "own_code_count", "refine_c", "refine_supports", "supports",
           "symmetry_supports"]
